import type { z } from 'zod';
import { AppError, type Actor, type ServiceRequest } from '@wap/contracts';

/**
 * Parses a part of a forwarded request. The gateway validated params, query and body already;
 * parsing again keeps a service safe on its own (anyone on the bus can send a request) and
 * gives its handlers their types.
 */
export function parseRequestPart<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
): z.infer<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AppError('VALIDATION_ERROR', 'Invalid request', { details: parsed.error.issues });
  }
  return parsed.data;
}

/** The signed-in caller of a session route. */
export function actorOf(request: ServiceRequest): Actor {
  if (!request.actor) throw new AppError('UNAUTHORIZED', 'Authentication required');
  return request.actor;
}
