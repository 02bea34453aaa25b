import type { ErrorBody, ErrorCode } from '@wap/contracts';

/** A code of the platform's error registry, or undefined when the body carried none. */
export type ApiErrorCode = ErrorCode;

/** One issue of a 400 VALIDATION_ERROR's `details`, as the services write them. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/**
 * A failed API call: the spec's Error body `{error, code?, details?}` with its HTTP status,
 * or, with status 0, a request that never got an answer (offline, server down).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    /** The registry code, when the body's `code` is one the registry knows. */
    readonly code: ApiErrorCode | undefined,
  ) {
    super(body.error);
  }

  /** The issues of a VALIDATION_ERROR, empty for any other error. */
  get validationIssues(): ValidationIssue[] {
    if (this.code !== 'VALIDATION_ERROR' || !Array.isArray(this.body.details)) return [];
    return this.body.details.flatMap((detail: unknown) => {
      if (typeof detail !== 'object' || detail === null) return [];
      const { path, message } = detail as Record<string, unknown>;
      return typeof message === 'string'
        ? [{ path: typeof path === 'string' ? path : '', message }]
        : [];
    });
  }

  /** True for the two 401s after which the person has to sign in again. */
  get needsSignIn(): boolean {
    return this.code === 'UNAUTHORIZED' || this.code === 'SESSION_EXPIRED';
  }
}
