import type { z } from 'zod';
import { AppError, type Actor, type ServiceRequest } from '@wap/contracts';

/**
 * The gateway validated params, query and body already; parsing again keeps the service safe on
 * its own (anyone on the bus can send a request) and gives the handlers their types.
 */
export function parse<Schema extends z.ZodType>(schema: Schema, value: unknown): z.infer<Schema> {
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
