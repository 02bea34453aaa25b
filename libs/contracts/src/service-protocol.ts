import { z } from 'zod';

/** The signed-in user on whose behalf a request runs, as the gateway established it. */
export const Actor = z.object({
  userId: z.uuid(),
  subject: z.string(),
  email: z.string(),
  name: z.string(),
  platformAdmin: z.boolean(),
});
export type Actor = z.infer<typeof Actor>;

/** A REST request as the gateway forwards it over the bus to the service that owns the route. */
export const ServiceRequest = z.object({
  requestId: z.string(),
  actor: Actor.nullable(),
  params: z.record(z.string(), z.string()),
  query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  /** Lower-cased request headers the route asked for (never cookies or authorization). */
  headers: z.record(z.string(), z.string()),
  body: z.unknown().optional(),
});
export type ServiceRequest = z.infer<typeof ServiceRequest>;

/** A service's answer, written to HTTP by the gateway as it is. */
export const ServiceReply = z.object({
  status: z.number().int().min(100).max(599),
  body: z.unknown().optional(),
  /** `text` sends body (a string) as text/plain; default json. */
  bodyKind: z.enum(['json', 'text']).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});
export type ServiceReply = z.infer<typeof ServiceReply>;

/** A failure travelling back over the bus, turned into the same AppError on the caller's side. */
export const BusErrorReply = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
    exposeCode: z.boolean().optional(),
  }),
});
export type BusErrorReply = z.infer<typeof BusErrorReply>;
