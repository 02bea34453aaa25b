export { createApiClient } from './api-client';
export { ApiError } from './api-error';
export { describeError } from './error-messages';
export { ApiClientProvider, useApiClient } from './api-client-context';
