import { useEffect, useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  CompleteMcpAccountAuthorizationBody,
  CompletedMcpAccountAuthorizationResponse,
  ListMcpServersResponse,
  ListMcpToolsResponse,
  McpAccountAuthorizationResponse,
  McpAccountResponse,
  McpServerResponse,
  McpServerView,
  McpToolRecord,
  RefreshResponseDetailed,
  RefreshResponseSummary,
  RegisterMcpServerBody,
  RegisterMcpServerResponse,
  UpdateMcpServerBody,
  UpdateMcpToolResponse,
} from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { useMe } from '../../workspace';
import { mcpKeys } from './mcp-keys';

/** What a refresh found, in the same words for both of the endpoint's 200 forms. */
export interface RefreshOutcome {
  discovered: number;
  synced: number;
  /** One line per problem; a tool's name leads when the problem is one tool's. */
  errors: string[];
}

/** How often a list or page looks again while a sync runs in the background, in ms. */
const SYNC_POLL_MS = 1500;

const isSyncing = (server: McpServerView) =>
  server.sync_status === 'pending' || server.sync_status === 'running';

/** The signed-in person: their id and role decide whether they may manage a server. */
export function useCurrentPerson(workspaceId: string) {
  const me = useMe();
  const role = me.data?.workspaces.find((workspace) => workspace.id === workspaceId)?.role;
  return { user: me.data?.user, role };
}

/** Creator or workspace owner: who may change, delete and toggle tools (decision 0021). */
export function canManageServer(
  server: { created_by: string },
  person: ReturnType<typeof useCurrentPerson>,
): boolean {
  return person.role === 'owner' || (!!person.user && person.user.id === server.created_by);
}

/** The workspace's servers the caller may see; looked at again while any of them syncs. */
export function useMcpServers(workspaceId: string) {
  const api = useApiClient();
  const servers = useQuery({
    queryKey: mcpKeys.servers(workspaceId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof ListMcpServersResponse>>('/mcp-registry', {
        signal,
        query: { workspaceId },
      }),
    refetchInterval: (query) => (query.state.data?.servers.some(isSyncing) ? SYNC_POLL_MS : false),
  });
  useToolsFollowSyncs(workspaceId, servers.data?.servers);
  return servers;
}

/** One server, looked at again while its sync runs. */
export function useMcpServer(workspaceId: string, serverId: string) {
  const api = useApiClient();
  const server = useQuery({
    queryKey: mcpKeys.server(workspaceId, serverId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof McpServerResponse>>(`/mcp-registry/${encodeURIComponent(serverId)}`, {
        signal,
      }),
    refetchInterval: (query) =>
      query.state.data && isSyncing(query.state.data.mcp) ? SYNC_POLL_MS : false,
  });
  useToolsFollowSyncs(workspaceId, server.data ? [server.data.mcp] : undefined);
  return server;
}

/**
 * When a sync of one of `servers` ends, the tools it found are fetched again: the tools list
 * has no stream of its own, and a sync runs in the background after registration.
 */
function useToolsFollowSyncs(workspaceId: string, servers: McpServerView[] | undefined) {
  const queryClient = useQueryClient();
  const signature = servers
    ?.map((server) => `${server.id}:${server.sync_status}:${server.last_synced_at ?? ''}`)
    .join(',');
  const previous = useRef(signature);
  useEffect(() => {
    if (signature === undefined || previous.current === signature) return;
    const first = previous.current === undefined;
    previous.current = signature;
    if (!first) void queryClient.invalidateQueries({ queryKey: mcpKeys.tools(workspaceId) });
  }, [queryClient, signature, workspaceId]);
}

/**
 * Spec endpoint 4: every tool of the servers the caller may use, in this workspace. Fetched only
 * once `serversLoaded`: tools asked for after the servers' sync status reflect at least that
 * status, and a sync still running is followed by `useToolsFollowSyncs`.
 */
export function useMcpTools(workspaceId: string, serversLoaded: boolean) {
  const api = useApiClient();
  return useQuery({
    enabled: serversLoaded,
    queryKey: mcpKeys.tools(workspaceId),
    queryFn: async ({ signal }) => {
      const answer = await api.get<z.infer<typeof ListMcpToolsResponse>>('/mcp-registry/tools', {
        signal,
        query: { workspaceId },
      });
      // Without groupByServer the data is the flat list.
      return Array.isArray(answer.data) ? answer.data : [];
    },
  });
}

/** Spec endpoint 2: registers a server; its tools are synced in the background. */
export function useRegisterMcpServer(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RegisterMcpServerBody) =>
      api.post<z.infer<typeof RegisterMcpServerResponse>>('/mcp-registry', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: mcpKeys.ofWorkspace(workspaceId) }),
  });
}

export function useUpdateMcpServer(workspaceId: string, serverId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateMcpServerBody) =>
      api.patch<z.infer<typeof McpServerResponse>>(
        `/mcp-registry/${encodeURIComponent(serverId)}`,
        body,
      ),
    onSuccess: async (saved) => {
      queryClient.setQueryData(mcpKeys.server(workspaceId, serverId), saved);
      await queryClient.invalidateQueries({ queryKey: mcpKeys.servers(workspaceId), exact: true });
    },
  });
}

export function useDeleteMcpServer(workspaceId: string, serverId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<void>(`/mcp-registry/${encodeURIComponent(serverId)}`),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: mcpKeys.server(workspaceId, serverId) });
      await queryClient.invalidateQueries({ queryKey: mcpKeys.ofWorkspace(workspaceId) });
    },
  });
}

/**
 * Spec endpoint 3: syncs the server's tools now and says what it found. Either 200 form is read
 * (managers get `tools`, other members `sync`); a failed sync is a 502 whose details list why.
 */
export function useRefreshMcpServer(workspaceId: string, serverId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (): Promise<RefreshOutcome> => {
      const answer = await api.post<
        z.infer<typeof RefreshResponseDetailed> | z.infer<typeof RefreshResponseSummary>
      >(`/mcp-registry/${encodeURIComponent(serverId)}/refresh`, undefined, {
        query: { workspace_id: workspaceId },
      });
      if ('tools' in answer) {
        return {
          discovered: answer.tools.discovered,
          synced: answer.tools.synced,
          errors: answer.tools.errors.map((issue) =>
            issue.tool ? `${issue.tool}: ${issue.message}` : issue.message,
          ),
        };
      }
      return answer.sync;
    },
    // Success or failure, the server's sync status and its tools changed.
    onSettled: () => queryClient.invalidateQueries({ queryKey: mcpKeys.ofWorkspace(workspaceId) }),
  });
}

/** Enables or disables one tool (server managers only). */
export function useSetToolEnabled(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: { toolId: string; isEnabled: boolean }) =>
      api.patch<z.infer<typeof UpdateMcpToolResponse>>(
        `/mcp-registry/tools/${encodeURIComponent(change.toolId)}`,
        { isEnabled: change.isEnabled },
      ),
    onSuccess: ({ tool }) =>
      queryClient.setQueryData<McpToolRecord[]>(mcpKeys.tools(workspaceId), (tools) =>
        tools?.map((candidate) => (candidate.id === tool.id ? tool : candidate)),
      ),
  });
}

/** The `details.errors` of a 502 MCP_SYNC_FAILED: why the server could not be synced. */
export function syncFailureReasons(details: unknown): string[] {
  if (typeof details !== 'object' || details === null) return [];
  const errors = (details as { errors?: unknown }).errors;
  return Array.isArray(errors) ? errors.filter((error) => typeof error === 'string') : [];
}

/** The signed-in person's own connected account at a server of the account auth type. */
export function useMcpAccount(workspaceId: string, serverId: string, enabled: boolean) {
  const api = useApiClient();
  return useQuery({
    enabled,
    queryKey: mcpKeys.account(workspaceId, serverId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof McpAccountResponse>>(
        `/mcp-registry/${encodeURIComponent(serverId)}/account`,
        { signal },
      ),
  });
}

/**
 * Starts connecting the person's own account: the answer is the authorization server's page,
 * where the browser goes next (it comes back to the callback page).
 */
export function useStartMcpAccountConnection(serverId: string) {
  const api = useApiClient();
  return useMutation({
    mutationFn: () =>
      api.post<z.infer<typeof McpAccountAuthorizationResponse>>(
        `/mcp-registry/${encodeURIComponent(serverId)}/account/authorizations`,
      ),
    onSuccess: ({ authorization_url: url }) => {
      window.location.assign(url);
    },
  });
}

/** Finishes a connection with what the authorization server sent back to the callback page. */
export function useCompleteMcpAccountConnection() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (answer: z.infer<typeof CompleteMcpAccountAuthorizationBody>) =>
      api.post<z.infer<typeof CompletedMcpAccountAuthorizationResponse>>(
        '/mcp-registry/oauth/callback',
        answer,
      ),
    onSuccess: ({ workspace_id: workspaceId }) =>
      queryClient.invalidateQueries({ queryKey: mcpKeys.ofWorkspace(workspaceId) }),
  });
}

/** Disconnects the person's own account: its tokens are revoked and forgotten. */
export function useDisconnectMcpAccount(workspaceId: string, serverId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<void>(`/mcp-registry/${encodeURIComponent(serverId)}/account`),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: mcpKeys.account(workspaceId, serverId) }),
  });
}
