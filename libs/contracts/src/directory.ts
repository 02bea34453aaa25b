import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes } from './route-spec';

export const WorkspaceRole = z.enum(['owner', 'member']);
export type WorkspaceRole = z.infer<typeof WorkspaceRole>;

export const WorkspaceIdParams = z.object({ workspaceId: z.uuid() });

export const User = z.object({ id: z.uuid(), email: z.string(), name: z.string() });
export type User = z.infer<typeof User>;

export const MeResponse = z.object({
  user: User,
  workspaces: z.array(
    z.object({ id: z.uuid(), name: z.string(), role: WorkspaceRole, joined_at: z.iso.datetime() }),
  ),
  /** The caller's own settings (`PATCH /me/preferences` changes them). */
  preferences: z.object({ approval_tasks_email: z.boolean() }),
  /** Whether this session is a platform administrator's (it may grant credits). */
  platform_admin: z.boolean(),
});
export type MeResponse = z.infer<typeof MeResponse>;

export const CreateWorkspaceBody = z.object({ name: z.string().trim().min(1).max(200) });
export type CreateWorkspaceBody = z.infer<typeof CreateWorkspaceBody>;
export const Workspace = z.object({ id: z.uuid(), name: z.string(), created_at: z.iso.datetime() });
export const CreateWorkspaceResponse = z.object({ workspace: Workspace });

export const AddMemberBody = z.object({
  email: z.email().max(320),
  role: WorkspaceRole,
});
export type AddMemberBody = z.infer<typeof AddMemberBody>;
export const Member = z.object({
  user_id: z.uuid(),
  workspace_id: z.uuid(),
  email: z.string(),
  name: z.string(),
  role: WorkspaceRole,
  joined_at: z.iso.datetime(),
});
export const AddMemberResponse = z.object({ member: Member });
export const MemberParams = WorkspaceIdParams.extend({ userId: z.uuid() });
export const UpdateMemberBody = z.object({ role: WorkspaceRole });
export type UpdateMemberBody = z.infer<typeof UpdateMemberBody>;
export const MemberResponse = z.object({ member: Member });
/** The refusal when a change would leave a workspace without an owner. */
export const LAST_OWNER_MESSAGE = 'A workspace keeps at least one owner';
export const MembersResponse = z.object({ members: z.array(Member) });

export const NotificationSettingsBody = z.object({ email_on_approval: z.boolean() });
export type NotificationSettingsBody = z.infer<typeof NotificationSettingsBody>;
export const NotificationSettings = z.object({ email_on_approval: z.boolean() });
export const UpdateNotificationSettingsResponse = z.object({
  success: z.boolean(),
  email_on_approval: z.boolean(),
});

export const PreferencesBody = z.object({ approval_tasks_email: z.boolean() });
export type PreferencesBody = z.infer<typeof PreferencesBody>;
export const PreferencesResponse = z.object({
  preferences: z.object({ approval_tasks_email: z.boolean() }),
});

export const CreateApiKeyBody = z.object({ name: z.string().trim().min(1).max(200) });
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;
export const CreateApiKeyResponse = z.object({
  id: z.uuid(),
  name: z.string(),
  key: z.string().startsWith('sk_'),
});

export const ApiKeyIdParams = WorkspaceIdParams.extend({ keyId: z.uuid() });
/** A key as its workspace's owners see it: never the key, only its first characters. */
export const ApiKeySummary = z.object({
  id: z.uuid(),
  name: z.string(),
  /** `sk_` and the next characters, to tell keys apart. */
  prefix: z.string(),
  created_by: z.uuid(),
  created_by_name: z.string(),
  created_at: z.iso.datetime(),
});
export type ApiKeySummary = z.infer<typeof ApiKeySummary>;
export const ApiKeysResponse = z.object({ api_keys: z.array(ApiKeySummary) });

export const directoryRoutes = defineRoutes([
  {
    operationId: 'get_me',
    summary: 'The signed-in user and the workspaces they belong to',
    method: 'GET',
    path: '/me',
    owner: 'storage',
    subject: 'storage.api.get_me.v1',
    auth: 'session',
    bodyKind: 'none',
    responses: { 200: { description: 'The user', schema: MeResponse }, ...sessionErrorResponses },
  },
  {
    operationId: 'update_preferences',
    summary: "Set the caller's own Approval tasks email preference",
    method: 'PATCH',
    path: '/me/preferences',
    owner: 'storage',
    subject: 'storage.api.update_preferences.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { body: PreferencesBody },
    responses: {
      200: { description: 'Saved', schema: PreferencesResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'create_workspace',
    summary: 'Create a workspace; the caller becomes its owner',
    method: 'POST',
    path: '/workspaces',
    owner: 'storage',
    subject: 'storage.api.create_workspace.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { body: CreateWorkspaceBody },
    responses: {
      201: { description: 'Created', schema: CreateWorkspaceResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'delete_workspace',
    summary: 'Soft-delete a workspace (owner only); its webhooks then answer 410',
    method: 'DELETE',
    path: '/workspaces/:workspaceId',
    owner: 'storage',
    subject: 'storage.api.delete_workspace.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'none',
    request: { params: WorkspaceIdParams },
    responses: { 204: { description: 'Deleted' }, ...sessionErrorResponses },
  },
  {
    operationId: 'list_members',
    summary: "The workspace's members, owners first, then by name (members)",
    method: 'GET',
    path: '/workspaces/:workspaceId/members',
    owner: 'storage',
    subject: 'storage.api.list_members.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkspaceIdParams },
    responses: {
      200: { description: 'The members', schema: MembersResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'add_member',
    summary: 'Add a member by email, creating the user when unknown (owner only)',
    method: 'POST',
    path: '/workspaces/:workspaceId/members',
    owner: 'storage',
    subject: 'storage.api.add_member.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    request: { params: WorkspaceIdParams, body: AddMemberBody },
    responses: {
      201: { description: 'Added', schema: AddMemberResponse },
      409: { description: 'Already a member', schema: ErrorBodySchema },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'update_member',
    summary: "Change a member's role (owner only); the last owner stays an owner",
    method: 'PATCH',
    path: '/workspaces/:workspaceId/members/:userId',
    owner: 'storage',
    subject: 'storage.api.update_member.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    request: { params: MemberParams, body: UpdateMemberBody },
    responses: {
      200: { description: 'The member with the new role', schema: MemberResponse },
      409: { description: LAST_OWNER_MESSAGE, schema: ErrorBodySchema },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'remove_member',
    summary: 'Remove a member (owner only), or leave (any member); the last owner stays',
    method: 'DELETE',
    path: '/workspaces/:workspaceId/members/:userId',
    owner: 'storage',
    subject: 'storage.api.remove_member.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'none',
    request: { params: MemberParams },
    responses: {
      204: { description: 'Removed' },
      409: { description: LAST_OWNER_MESSAGE, schema: ErrorBodySchema },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'get_notification_settings',
    summary: "The workspace's approval email option",
    method: 'GET',
    path: '/workspaces/:workspaceId/notification-settings',
    owner: 'storage',
    subject: 'storage.api.get_notification_settings.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkspaceIdParams },
    responses: {
      200: { description: 'The settings', schema: NotificationSettings },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'update_notification_settings',
    summary: 'Set approval emails for the workspace (spec endpoint 7); any member may',
    method: 'PATCH',
    path: '/workspaces/:workspaceId/notification-settings',
    owner: 'storage',
    subject: 'storage.api.update_notification_settings.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: WorkspaceIdParams, body: NotificationSettingsBody },
    responses: {
      200: { description: 'Saved', schema: UpdateNotificationSettingsResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'create_api_key',
    summary: 'Create a workspace API key (shown once; stored only as a hash)',
    method: 'POST',
    path: '/workspaces/:workspaceId/api-keys',
    owner: 'storage',
    subject: 'storage.api.create_api_key.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    request: { params: WorkspaceIdParams, body: CreateApiKeyBody },
    responses: {
      201: { description: 'Created', schema: CreateApiKeyResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'list_api_keys',
    summary: "The workspace's API keys that are not revoked, newest first (owners only)",
    method: 'GET',
    path: '/workspaces/:workspaceId/api-keys',
    owner: 'storage',
    subject: 'storage.api.list_api_keys.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkspaceIdParams },
    responses: {
      200: { description: 'The keys (never their values)', schema: ApiKeysResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'revoke_api_key',
    summary: 'Revoke an API key: it is refused from the next request on (owners only)',
    method: 'DELETE',
    path: '/workspaces/:workspaceId/api-keys/:keyId',
    owner: 'storage',
    subject: 'storage.api.revoke_api_key.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'none',
    request: { params: ApiKeyIdParams },
    responses: { 204: { description: 'Revoked' }, ...sessionErrorResponses },
  },
] as const);

/** `storage.api.ensure_user.v1`: find or create the user of a session subject. */
export const EnsureUserRequest = z.object({
  subject: z.string().min(1),
  email: z.string(),
  name: z.string(),
});
export type EnsureUserRequest = z.infer<typeof EnsureUserRequest>;
export const EnsureUserReply = z.object({ userId: z.uuid() });
export type EnsureUserReply = z.infer<typeof EnsureUserReply>;

/** `storage.api.first_workspace.v1`: the first (oldest joined, not deleted) workspace of a user. */
export const FirstWorkspaceRequest = z.object({ userId: z.uuid() });
export type FirstWorkspaceRequest = z.infer<typeof FirstWorkspaceRequest>;
export const FirstWorkspaceReply = z.object({ workspaceId: z.uuid().nullable() });
export type FirstWorkspaceReply = z.infer<typeof FirstWorkspaceReply>;

/** `storage.api.verify_api_key.v1`: which workspace a presented `sk_` key belongs to, if any. */
export const VerifyApiKeyRequest = z.object({ key: z.string() });
export type VerifyApiKeyRequest = z.infer<typeof VerifyApiKeyRequest>;
export const VerifyApiKeyReply = z.object({
  valid: z.boolean(),
  workspaceId: z.uuid().nullable(),
  keyId: z.uuid().nullable(),
});
export type VerifyApiKeyReply = z.infer<typeof VerifyApiKeyReply>;

export const DIRECTORY_SUBJECTS = {
  ensureUser: 'storage.api.ensure_user.v1',
  firstWorkspace: 'storage.api.first_workspace.v1',
  verifyApiKey: 'storage.api.verify_api_key.v1',
  meChanged: 'storage.evt.me_changed.v1',
} as const;

/**
 * `storage.evt.me_changed.v1`, a core broadcast (no stream): what `GET /me` answers for these
 * users changed, so every storage replica drops its cached answer (decision 94).
 */
export const MeChanged = z.object({ userIds: z.array(z.uuid()) });
export type MeChanged = z.infer<typeof MeChanged>;

/**
 * KV bucket `directory` published by storage: key `workspace.<id>` holds a DirectoryWorkspace.
 * Other services read it through @wap/workspace-directory's cached client.
 */
export const DIRECTORY_BUCKET = 'directory';

/**
 * The gateway's signed-out sessions (issue 41): `token.<sha256 of the token>` for one session,
 * `subject.<sha256 of the subject>` holding `notBefore` for "sign out everywhere". Every gateway
 * replica mirrors it, so a revoked cookie is refused on all of them without a lookup per request.
 * Entries go after the longest session a token may carry.
 */
export const SESSION_REVOCATIONS_BUCKET = 'session-revocations';
export const SESSION_REVOCATIONS_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const DirectoryWorkspace = z.object({
  id: z.uuid(),
  name: z.string(),
  deleted: z.boolean(),
  /** userId → role */
  members: z.record(z.string(), WorkspaceRole),
});
export type DirectoryWorkspace = z.infer<typeof DirectoryWorkspace>;
export function directoryKey(workspaceId: string): string {
  return `workspace.${workspaceId}`;
}
