export {
  ERROR_CODES,
  AppError,
  statusOf,
  isErrorCode,
  type ErrorCode,
  type ErrorBody,
  type AppErrorOptions,
} from './errors';
export { Actor, ServiceRequest, ServiceReply, BusErrorReply } from './service-protocol';
export {
  defineRoutes,
  type RouteSpec,
  type RouteAuth,
  type RouteBodyKind,
  type RouteResponse,
  type HttpMethod,
  type ServiceName,
  type OperationsOf,
} from './route-spec';
export { ErrorBodySchema, Uuid, sessionErrorResponses } from './common';
export {
  WorkspaceRole,
  WorkspaceIdParams,
  User,
  MeResponse,
  CreateWorkspaceBody,
  Workspace,
  CreateWorkspaceResponse,
  AddMemberBody,
  Member,
  AddMemberResponse,
  NotificationSettingsBody,
  NotificationSettings,
  UpdateNotificationSettingsResponse,
  PreferencesBody,
  PreferencesResponse,
  CreateApiKeyBody,
  CreateApiKeyResponse,
  directoryRoutes,
  EnsureUserRequest,
  EnsureUserReply,
  FirstWorkspaceRequest,
  FirstWorkspaceReply,
  VerifyApiKeyRequest,
  VerifyApiKeyReply,
  DIRECTORY_SUBJECTS,
  DIRECTORY_BUCKET,
  DirectoryWorkspace,
  directoryKey,
} from './directory';
export { ROUTES, type Routes } from './routes';
export { CreditBalanceResponse, GrantCreditsBody, creditRoutes } from './credits';
