/**
 * The one registry of error codes: each stable code with its HTTP status.
 * `docs/errors.md` lists them; a test keeps the two in step.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: {
    status: 400,
    summary: 'The request does not match the schema; details lists the issues.',
  },
  INVALID_JSON: { status: 400, summary: 'The body is not valid JSON.' },
  BAD_REQUEST: { status: 400, summary: 'The request cannot be served as sent.' },
  WORKSPACE_ID_REQUIRED: { status: 400, summary: 'The workspace id is missing.' },
  UNAUTHORIZED: {
    status: 401,
    summary: 'No valid session or token; also a workspace API key used on a REST endpoint.',
  },
  SESSION_EXPIRED: { status: 401, summary: 'The session has expired.' },
  INVALID_SIGNATURE: {
    status: 401,
    summary:
      'A signed provider webhook whose signature is missing, wrong or outside its replay window.',
  },
  INSUFFICIENT_CREDITS: {
    status: 402,
    summary: 'Workspace out of credits or below the price of the workflow.',
  },
  FORBIDDEN: {
    status: 403,
    summary: 'Authenticated but not permitted for the resource or workspace.',
  },
  NOT_FOUND: { status: 404, summary: 'The resource does not exist or the caller cannot see it.' },
  ROUTE_NOT_FOUND: { status: 404, summary: 'No route matches the method and path.' },
  METHOD_NOT_ALLOWED: { status: 405, summary: 'The path exists but not with this method.' },
  CONFLICT: { status: 409, summary: 'The request conflicts with the current state.' },
  GONE: { status: 410, summary: 'The resource was deleted.' },
  PAYLOAD_TOO_LARGE: { status: 413, summary: 'The body is larger than the limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, summary: 'The Content-Type is not accepted here.' },
  RATE_LIMITED: { status: 429, summary: 'Too many requests; retry after the Retry-After header.' },
  HEADERS_TOO_LARGE: { status: 431, summary: 'The request headers are larger than the limit.' },
  INTERNAL_ERROR: {
    status: 500,
    summary: 'An unexpected failure; the details are in the logs, never in the body.',
  },
  INSECURE_SERVER_URL: { status: 400, summary: 'The MCP server URL must use https.' },
  SERVER_URL_NOT_ALLOWED: {
    status: 400,
    summary: 'The URL is not a public address the platform may reach (SSRF guard).',
  },
  MCP_NOT_REFRESHABLE: { status: 400, summary: 'Only custom (HTTP) MCP servers can be refreshed.' },
  MCP_SYNC_IN_PROGRESS: {
    status: 409,
    summary: 'A tool sync of this MCP server is already running.',
  },
  MCP_SYNC_FAILED: {
    status: 502,
    summary: 'The MCP server could not be reached or listed; details.errors says why.',
  },
  MCP_CALL_FAILED: {
    status: 502,
    summary: 'The MCP server could not be reached for the tool call.',
  },
  MCP_ACCOUNT_NOT_CONNECTED: {
    status: 409,
    summary:
      "The MCP server uses each person's own account and the caller has not connected theirs (or it expired).",
  },
  MCP_ACCOUNT_NOT_USED: {
    status: 400,
    summary: 'The MCP server does not use the account auth type: there is no account to connect.',
  },
  MCP_AUTHORIZATION_DENIED: {
    status: 400,
    summary: "The MCP server's authorization server refused the connection (the user declined).",
  },
  MCP_AUTHORIZATION_FAILED: {
    status: 502,
    summary:
      "The MCP server's authorization server could not be discovered, registered with or asked for tokens.",
  },
  PROPERTY_NOT_TEXT: {
    status: 400,
    summary: 'split-name takes a text property as its source and as its target.',
  },
  INVALID_CURSOR: { status: 400, summary: 'The cursor was not issued for this list.' },
  MODEL_NOT_CONFIGURED: {
    status: 503,
    summary: 'No language model is configured for the assistant (LLM_BASE_URL, LLM_MODEL).',
  },
  MODEL_FAILED: {
    status: 502,
    summary: 'The language model provider failed, timed out or sent what could not be read.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    summary: 'The service that owns the route did not answer in time.',
  },
} as const satisfies Record<string, { status: number; summary: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/** The spec's Error body: every failure over HTTP has this shape. */
export interface ErrorBody {
  error: string;
  code?: string;
  details?: unknown;
}

export interface AppErrorOptions {
  details?: unknown;
  /** Some spec bodies carry no code (`{"error": "Webhook not found"}`); the code then stays internal. */
  exposeCode?: boolean;
}

/** A failure the caller should see as-is: user errors (4xx) and known operational ones (503). */
export class AppError extends Error {
  readonly status: number;
  readonly details: unknown;
  readonly exposeCode: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = statusOf(code);
    this.details = options.details;
    this.exposeCode = options.exposeCode ?? true;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { error: this.message };
    if (this.exposeCode) body.code = this.code;
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}
