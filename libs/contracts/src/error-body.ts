import { z } from 'zod';
import { type RouteResponse } from './route-spec';

/** The spec's Error body. */
export const ErrorBodySchema = z.object({
  error: z.string(),
  code: z.string().optional(),
  details: z.unknown().optional(),
});

/** Responses every session route can give besides its success. */
export const sessionErrorResponses: Record<number, RouteResponse> = {
  400: { description: 'VALIDATION_ERROR', schema: ErrorBodySchema },
  401: { description: 'UNAUTHORIZED or SESSION_EXPIRED', schema: ErrorBodySchema },
  403: { description: 'FORBIDDEN', schema: ErrorBodySchema },
  404: { description: 'Not found', schema: ErrorBodySchema },
  503: { description: 'SERVICE_UNAVAILABLE', schema: ErrorBodySchema },
};
