import type { z } from 'zod';
import type { BusApi } from './bus-apis';
import type { UploadTarget } from './workspace-data';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The services: each owns its routes and serves their bus subjects. */
export const SERVICE_NAMES = [
  'storage',
  'chat',
  'mcp-registry',
  'workflow-runner',
  'webhook-ingest',
] as const;
/** The service that owns a route and serves its bus subject. */
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * How the gateway authenticates the caller:
 * - session: the `session` cookie (a JWT); API keys are refused with 401.
 * - none: no credential (the custom webhook; provider webhooks verify their own signature).
 * - api_key: `Authorization: Bearer sk_...`, a workspace API key (the platform's MCP server only).
 */
export type RouteAuth = 'session' | 'none' | 'api_key';

/**
 * How the gateway reads the body:
 * - json: parsed and validated against `request.body`;
 * - none: no body expected;
 * - raw: forwarded as bytes with every header but cookies and credentials (webhooks parse and
 *   verify it themselves; see RawServiceRequest).
 * - multipart: multipart/form-data whose one file the gateway streams into the object store
 *   (see `upload`); the service gets the stored file's description as the JSON body.
 */
export type RouteBodyKind = 'json' | 'none' | 'raw' | 'multipart';

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
  /** Other media types the same answer may come in (a Custom Response's plain text). */
  alsoAs?: readonly { contentType: string; schema?: z.ZodType }[];
}

/** One REST route as data: the gateway's route table and /openapi.json are both built from these. */
export interface RouteSpec {
  operationId: string;
  summary: string;
  method: HttpMethod;
  /** Express-style path, `:name` for parameters. */
  path: string;
  owner: ServiceName;
  /** Bus subject the gateway forwards to: `<owner>.api.<operation>.v<major>`. */
  subject: string;
  /**
   * The version before `subject`, still served beside it for callers not yet moved (decision
   * 143): its schemas are the ones it was published with, and the gateway falls back to it when
   * no service answers `subject` yet (one not yet updated in a rolling deploy).
   */
  previousSubject?: string;
  auth: RouteAuth;
  /**
   * Session routes also take the browser extension's bearer token (spec, Authentication)
   * unless this says `refused`: routes that mint or manage credentials, or that only an owner
   * or a platform administrator uses (decision 128).
   */
  extensionToken?: 'refused';
  bodyKind: RouteBodyKind;
  request?: {
    params?: z.ZodObject;
    query?: z.ZodObject;
    body?: z.ZodType;
  };
  /**
   * Lower-cased request headers forwarded to the service; raw routes get all of them, and list
   * here those they read (idempotency and signature headers), for the document.
   */
  forwardHeaders?: readonly string[];
  /** Largest body accepted on this route, in bytes, when it differs from the gateway's default. */
  bodyLimitBytes?: number;
  /**
   * How long the gateway waits for this route's answer, in ms, when the work it asks for grows
   * with the data (a whole table) and may outlast REQUEST_TIMEOUT_MS.
   */
  timeoutMs?: number;
  responses: Record<number, RouteResponse>;
  /** Multipart routes: how the gateway takes the file in (see UploadRoute). */
  upload?: UploadRoute;
  /**
   * `file`: the service answers 200 with a StoredFile and the gateway streams that object to
   * the caller as a download, instead of sending the JSON.
   * `event_stream`: Server-Sent Events. The service answers long polls with a TurnEventsBatch
   * (the `last-event-id` header says where to go on from); the gateway writes each batch's
   * events and asks again from the last id until the batch says `done`.
   */
  responseKind?: 'json' | 'file' | 'event_stream';
}

/** How the gateway takes in the file of a multipart route. */
export interface UploadRoute {
  /** Form field of the file; any other file part is refused. */
  fileField: string;
  /** Largest file in bytes: 413 above, however the client framed the request. */
  maxBytes: number;
  /**
   * The bus API asked, with the actor and the path params, before a byte is stored: it answers
   * where the file goes (UploadTarget) or refuses the caller.
   */
  prepare: BusApi<z.ZodType<{ params: Record<string, string> }>, z.ZodType<UploadTarget>>;
}

/** Keeps the literal operation ids and owners so handler maps can be checked at compile time. */
export function defineRoutes<const T extends readonly RouteSpec[]>(routes: T): T {
  return routes;
}

/** Operation ids of the routes a service owns: a service's handler map must have exactly these keys. */
export type OperationsOf<Routes extends readonly RouteSpec[], Owner extends ServiceName> = Extract<
  Routes[number],
  { owner: Owner }
>['operationId'];
