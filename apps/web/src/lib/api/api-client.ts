import type { ErrorBody } from '@wap/contracts';
import { ApiError } from './api-error';
import { isKnownErrorCode } from './error-messages';

type QueryValue = string | number | boolean | undefined;

export interface RequestOptions {
  /** JSON request body. */
  body?: unknown;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, QueryValue>;
  /** Aborts the request (TanStack Query passes one to every query function). */
  signal?: AbortSignal;
}

/** The one HTTP client of the web app: JSON over the gateway with the session cookie. */
export interface ApiClient {
  request<T>(method: string, path: string, options?: RequestOptions): Promise<T>;
  get<T>(path: string, options?: Omit<RequestOptions, 'body'>): Promise<T>;
  post<T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<T>;
  put<T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<T>;
  patch<T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<T>;
  delete<T>(path: string, options?: Omit<RequestOptions, 'body'>): Promise<T>;
}

export interface ApiClientOptions {
  /** Origin and path prefix of the gateway; '' (the default) is the page's own origin. */
  baseUrl?: string;
  fetch?: typeof fetch;
  /**
   * Called once per failed request whose 401 says the session is missing or expired, before
   * the request's promise rejects: the one place the app sends the person to sign in.
   */
  onSessionEnded?: (error: ApiError) => void;
}

/**
 * Creates the client. Every non-2xx answer becomes an `ApiError` carrying the Error body and
 * its registry code; a request that gets no answer becomes an `ApiError` with status 0.
 */
export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  const baseUrl = options.baseUrl ?? '';
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function request<T>(method: string, path: string, init: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | undefined;
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.body);
    }
    let response: Response;
    try {
      response = await fetchImpl(`${baseUrl}${path}${queryString(init.query)}`, {
        method,
        headers,
        body,
        credentials: 'include',
        signal: init.signal,
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ApiError(0, { error: 'The platform could not be reached' }, undefined);
    }
    const text = await response.text();
    if (response.ok) return (text ? JSON.parse(text) : undefined) as T;
    const failure = toApiError(response.status, text);
    if (failure.needsSignIn) options.onSessionEnded?.(failure);
    throw failure;
  }

  return {
    request,
    get: (path, init) => request('GET', path, init),
    post: (path, body, init) => request('POST', path, { ...init, body }),
    put: (path, body, init) => request('PUT', path, { ...init, body }),
    patch: (path, body, init) => request('PATCH', path, { ...init, body }),
    delete: (path, init) => request('DELETE', path, init),
  };
}

function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, String(value));
  }
  const encoded = params.toString();
  return encoded ? `?${encoded}` : '';
}

/** The Error body of a failed response; a body that is not one (a proxy's HTML page) keeps the status. */
function toApiError(status: number, text: string): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isErrorBody(parsed)) {
    return new ApiError(status, parsed, isKnownErrorCode(parsed.code) ? parsed.code : undefined);
  }
  return new ApiError(status, { error: `The request failed with status ${status}` }, undefined);
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const { error, code } = value as Record<string, unknown>;
  return typeof error === 'string' && (code === undefined || typeof code === 'string');
}
