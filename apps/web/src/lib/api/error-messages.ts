import type { ApiErrorCode } from './api-error';
import { ApiError } from './api-error';

/**
 * What a person reads for each registry code. `null` keeps the server's own message, which is
 * specific to the request ("Already a member", "Workflow not found"); a string replaces a message
 * that is generic or written for developers. Typed by the registry, so a new code does not
 * compile until it has an entry here.
 */
const MESSAGES: Record<ApiErrorCode, string | null> = {
  VALIDATION_ERROR: 'Some of the values were not accepted.',
  INVALID_JSON: 'The request could not be read. Reload the page and try again.',
  BAD_REQUEST: null,
  WORKSPACE_ID_REQUIRED: 'Choose a workspace first.',
  UNAUTHORIZED: 'You are not signed in.',
  SESSION_EXPIRED: 'Your session has expired. Sign in again.',
  INVALID_SIGNATURE: null,
  INSUFFICIENT_CREDITS: null,
  FORBIDDEN: null,
  NOT_FOUND: null,
  ROUTE_NOT_FOUND: 'This part of the platform is not available.',
  METHOD_NOT_ALLOWED: 'This part of the platform is not available.',
  CONFLICT: null,
  GONE: 'This was deleted.',
  PAYLOAD_TOO_LARGE: 'That is too large to send.',
  HEADERS_TOO_LARGE: 'The request was too large to send. Sign out and in again, then retry.',
  UNSUPPORTED_MEDIA_TYPE: 'This kind of file or content is not accepted here.',
  RATE_LIMITED: 'Too many requests. Wait a moment and try again.',
  INTERNAL_ERROR: 'Something went wrong on our side. Try again in a moment.',
  INSECURE_SERVER_URL: null,
  SERVER_URL_NOT_ALLOWED: null,
  MCP_NOT_REFRESHABLE: null,
  MCP_SYNC_IN_PROGRESS: null,
  MCP_SYNC_FAILED: null,
  MCP_CALL_FAILED: null,
  MCP_ACCOUNT_NOT_CONNECTED: null,
  MCP_ACCOUNT_NOT_USED: null,
  MCP_AUTHORIZATION_DENIED: null,
  MCP_AUTHORIZATION_FAILED: null,
  PROPERTY_NOT_TEXT: null,
  INVALID_CURSOR: 'This list changed. Reload the page to start again.',
  MODEL_NOT_CONFIGURED: 'No language model is configured for the assistant.',
  MODEL_FAILED: 'The language model did not answer. Try again.',
  SERVICE_UNAVAILABLE: 'The platform is busy or restarting. Try again in a moment.',
};

const NETWORK_FAILURE_MESSAGE = 'The platform could not be reached. Check your connection.';
const UNEXPECTED_MESSAGE = 'Something went wrong. Try again.';

/** A readable sentence for any error a feature shows: an ApiError by its code, anything else generically. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return UNEXPECTED_MESSAGE;
  if (error.status === 0) return NETWORK_FAILURE_MESSAGE;
  if (error.code === undefined) return error.message || UNEXPECTED_MESSAGE;
  return MESSAGES[error.code] ?? error.message;
}

/** Whether `value` is a code of the registry as this build knows it. */
export function isKnownErrorCode(value: unknown): value is ApiErrorCode {
  return typeof value === 'string' && Object.hasOwn(MESSAGES, value);
}
