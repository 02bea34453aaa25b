export {
  createApiClient,
  type ApiClient,
  type ApiClientOptions,
  type RequestOptions,
} from './api-client';
export { ApiError, type ApiErrorCode, type ValidationIssue } from './api-error';
export { describeError } from './error-messages';
export { ApiClientProvider, useApiClient } from './api-client-context';
