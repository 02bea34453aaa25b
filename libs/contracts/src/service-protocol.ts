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

/**
 * A REST request as it travels on the bus: without the actor, which only the request's signed
 * assertion may carry (the serving side adds it from there).
 */
export const ForwardedRequest = ServiceRequest.omit({ actor: true });
export type ForwardedRequest = z.infer<typeof ForwardedRequest>;

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

/** The workspace API key a request was authenticated with (routes with auth `api_key`). */
export const ApiKeyPrincipal = z.object({ workspaceId: z.uuid(), keyId: z.uuid() });
export type ApiKeyPrincipal = z.infer<typeof ApiKeyPrincipal>;

/** Where the gateway parks a raw body too large for one bus message (see `callRawRoute`). */
export const REQUEST_BODIES_BUCKET = 'request-bodies';

/** Where a raw body too large for one bus message was put instead (the object store). */
export const BodyReference = z.object({
  bucket: z.string(),
  name: z.string(),
  size: z.number().int().nonnegative(),
});
export type BodyReference = z.infer<typeof BodyReference>;

/**
 * A raw route's request as the gateway forwards it: this metadata travels as JSON in a message
 * header, the body bytes as the message data (or, when large, in the object store: `bodyRef`).
 */
export const RawRequestMeta = z.object({
  requestId: z.string(),
  method: z.string(),
  path: z.string(),
  params: z.record(z.string(), z.string()),
  query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  /** Every request header, lower-cased, except cookie and authorization. */
  headers: z.record(z.string(), z.string()),
  /** The scheme the client used: X-Forwarded-Proto behind a trusted proxy, else the socket's. */
  protocol: z.enum(['http', 'https']),
  host: z.string(),
  remoteAddress: z.string(),
  apiKey: ApiKeyPrincipal.nullable(),
  bodyRef: BodyReference.optional(),
});
export type RawRequestMeta = z.infer<typeof RawRequestMeta>;

/** What a raw route's handler receives: the metadata and the body's bytes, whole. */
export interface RawServiceRequest extends Omit<RawRequestMeta, 'bodyRef'> {
  body: Uint8Array;
  /** The body as the gateway parked it in the object store, when it was too large for the bus. */
  parkedBody?: ParkedBody;
}

/**
 * A parked body is deleted once its request is answered, unless the handler keeps it: then what
 * the handler stored refers to it (stored once, not copied), and whoever reads that deletes it.
 */
export interface ParkedBody {
  ref: BodyReference;
  keep(): void;
}
