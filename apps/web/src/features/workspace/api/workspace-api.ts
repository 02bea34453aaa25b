import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import type {
  AddMemberBody,
  AddMemberResponse,
  ApiKeysResponse,
  CreateApiKeyBody,
  CreateApiKeyResponse,
  CreateWorkspaceBody,
  CreateWorkspaceResponse,
  CreditBalanceResponse,
  GrantCreditsBody,
  MemberResponse,
  MembersResponse,
  MeResponse,
  NotificationSettings,
  NotificationSettingsBody,
  PreferencesBody,
  PreferencesResponse,
  UpdateNotificationSettingsResponse,
  WorkspaceRole,
} from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { appPaths } from '../../../lib/routing';
import { workspaceKeys } from './workspace-keys';

export type MyWorkspace = MeResponse['workspaces'][number];
export type Member = z.infer<typeof MembersResponse>['members'][number];
export type CreatedApiKey = z.infer<typeof CreateApiKeyResponse>;
export type ApiKeySummary = z.infer<typeof ApiKeysResponse>['api_keys'][number];

/** How this deployment signs people in (answered by the gateway, no session needed). */
export type SignInMethod = 'development' | 'sign_in_link' | 'identity_provider';

const path = (workspaceId: string, rest: string) =>
  `/workspaces/${encodeURIComponent(workspaceId)}/${rest}`;

/** The signed-in person and their workspaces (`GET /me`): the one query of it in the app. */
export function useMe() {
  const api = useApiClient();
  return useQuery({
    queryKey: workspaceKeys.me(),
    queryFn: ({ signal }) => api.get<MeResponse>('/me', { signal }),
  });
}

export function useSignInMethod() {
  const api = useApiClient();
  return useQuery({
    queryKey: workspaceKeys.signInMethod(),
    queryFn: ({ signal }) =>
      api.get<{ method: SignInMethod }>('/session/sign-in-method', { signal }),
    staleTime: Infinity,
  });
}

/**
 * Signs this session out on the server (or, `everywhere`, every session of the person), then
 * leaves for the sign-in page and forgets every cached answer.
 */
export function useSignOut(scope: 'this' | 'everywhere' = 'this') {
  const api = useApiClient();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: () =>
      api.post<void>(scope === 'everywhere' ? '/session/sign-out-everywhere' : '/session/sign-out'),
    onSuccess: async () => {
      await navigate(appPaths.signIn(), { replace: true });
      queryClient.clear();
    },
  });
}

export function useCreateWorkspace() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateWorkspaceBody) =>
      api.post<z.infer<typeof CreateWorkspaceResponse>>('/workspaces', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workspaceKeys.me() }),
  });
}

/** The workspace's members, owners first, then by name. */
/**
 * The workspace's members, owners first, then by name. Every page that names people reads
 * them through this one query, so a page load asks once.
 */
export function useMembers(workspaceId: string, enabled = true) {
  const api = useApiClient();
  return useQuery({
    queryKey: workspaceKeys.members(workspaceId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof MembersResponse>>(path(workspaceId, 'members'), { signal }),
    enabled,
  });
}

/**
 * Who wrote what, for a workspace's records: a person's name by user id (from the members list,
 * "you" for the signed-in person), and whether the signed-in person owns the workspace.
 */
export function useAuthors(workspaceId: string) {
  const me = useMe();
  const members = useMembers(workspaceId);
  const myId = me.data?.user.id;
  const names = new Map(members.data?.members.map((member) => [member.user_id, member.name]));
  return {
    myId,
    isOwner: findWorkspace(me.data, workspaceId)?.role === 'owner',
    nameOf(userId: string): string {
      if (userId === myId) return 'You';
      return names.get(userId) ?? (members.isPending ? 'A member' : 'A former member');
    },
  };
}

export function useAddMember(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: AddMemberBody) =>
      api.post<z.infer<typeof AddMemberResponse>>(path(workspaceId, 'members'), body),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: workspaceKeys.members(workspaceId) }),
  });
}

/** Changes a member's role (owners); `/me` follows, as the person's own role may be it. */
export function useChangeRole(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: { userId: string; role: WorkspaceRole }) =>
      api.patch<z.infer<typeof MemberResponse>>(
        path(workspaceId, `members/${encodeURIComponent(change.userId)}`),
        { role: change.role },
      ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.members(workspaceId) });
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.me() });
    },
  });
}

/** Removes a member (owners), or the signed-in person themselves (leaving). */
export function useRemoveMember(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) =>
      api.delete<void>(path(workspaceId, `members/${encodeURIComponent(userId)}`)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.members(workspaceId) });
      await queryClient.invalidateQueries({ queryKey: workspaceKeys.me() });
    },
  });
}

/** Spec endpoint 7's setting: whether reviewers are emailed about approval requests. */
export function useNotificationSettings(workspaceId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workspaceKeys.notificationSettings(workspaceId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof NotificationSettings>>(path(workspaceId, 'notification-settings'), {
        signal,
      }),
  });
}

export function useUpdateNotificationSettings(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NotificationSettingsBody) =>
      api.patch<z.infer<typeof UpdateNotificationSettingsResponse>>(
        path(workspaceId, 'notification-settings'),
        body,
      ),
    onSuccess: (saved) =>
      queryClient.setQueryData(workspaceKeys.notificationSettings(workspaceId), {
        email_on_approval: saved.email_on_approval,
      }),
  });
}

export function useUpdatePreferences() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: PreferencesBody) =>
      api.patch<z.infer<typeof PreferencesResponse>>('/me/preferences', body),
    onSuccess: (saved) =>
      queryClient.setQueryData<MeResponse>(workspaceKeys.me(), (me) =>
        me ? { ...me, preferences: saved.preferences } : me,
      ),
  });
}

/** Creates a workspace API key; the answer is the only time its secret is ever shown. */
export function useCreateApiKey(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateApiKeyBody) =>
      api.post<CreatedApiKey>(path(workspaceId, 'api-keys'), body),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: workspaceKeys.apiKeys(workspaceId) }),
  });
}

/** The workspace's keys that still work, newest first (owners only: members get 403). */
export function useApiKeys(workspaceId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workspaceKeys.apiKeys(workspaceId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof ApiKeysResponse>>(path(workspaceId, 'api-keys'), { signal }),
    retry: false,
  });
}

/** Revokes a key: the gateway refuses it from the next request on. */
export function useRevokeApiKey(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (keyId: string) =>
      api.delete<void>(path(workspaceId, `api-keys/${encodeURIComponent(keyId)}`)),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: workspaceKeys.apiKeys(workspaceId) }),
  });
}

export function useCredits(workspaceId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workspaceKeys.credits(workspaceId),
    queryFn: ({ signal }) =>
      api.get<CreditBalanceResponse>(path(workspaceId, 'credits'), { signal }),
  });
}

/** A platform administrator's grant (or correction) of a workspace's credits. */
export function useGrantCredits() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ workspaceId, ...body }: GrantCreditsBody & { workspaceId: string }) =>
      api.post<CreditBalanceResponse>(path(workspaceId, 'credits/grants'), body),
    onSuccess: (_balance, { workspaceId }) =>
      queryClient.invalidateQueries({ queryKey: workspaceKeys.credits(workspaceId) }),
  });
}

/** The workspace of the page among the caller's, or undefined when they are not a member of it. */
export function findWorkspace(
  me: MeResponse | undefined,
  workspaceId: string,
): MyWorkspace | undefined {
  return me?.workspaces.find((workspace) => workspace.id === workspaceId);
}
