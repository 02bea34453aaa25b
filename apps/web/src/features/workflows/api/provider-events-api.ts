import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  ConnectProviderAccountBody,
  ProviderAccountResponse,
  ProviderAccountsResponse,
  ProviderDeliveriesPage,
  ProviderDelivery,
  ReplaceSigningSecretBody,
} from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { workflowsKeys } from './workflows-keys';

export type { ProviderDelivery };

/** How often deliveries and connections are asked for again while the page is open, in ms. */
export const DELIVERIES_REFRESH_MS = 5_000;

const accountsPath = (workspaceId: string) =>
  `/workspaces/${encodeURIComponent(workspaceId)}/provider-accounts`;

/** The connections, refreshed while open: one waiting for its first delivery becomes proven. */
export function useProviderAccounts(workspaceId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.providerAccounts(workspaceId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof ProviderAccountsResponse>>(accountsPath(workspaceId), { signal }),
    refetchInterval: DELIVERIES_REFRESH_MS,
  });
}

export function useConnectProviderAccount(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ConnectProviderAccountBody) =>
      api.post<z.infer<typeof ProviderAccountResponse>>(accountsPath(workspaceId), body),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: workflowsKeys.providerAccounts(workspaceId) }),
  });
}

export function useReplaceSigningSecret(workspaceId: string, connectionId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ReplaceSigningSecretBody) =>
      api.put<z.infer<typeof ProviderAccountResponse>>(
        `${accountsPath(workspaceId)}/${encodeURIComponent(connectionId)}/signing-secret`,
        body,
      ),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: workflowsKeys.providerAccounts(workspaceId) }),
  });
}

export function useDisconnectProviderAccount(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (connectionId: string) =>
      api.delete<void>(`${accountsPath(workspaceId)}/${encodeURIComponent(connectionId)}`),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: workflowsKeys.providerAccounts(workspaceId) }),
  });
}

/** The workspace's deliveries, newest first, a page per "Load more", refreshed while open. */
export function useProviderDeliveries(workspaceId: string) {
  const api = useApiClient();
  return useInfiniteQuery({
    queryKey: workflowsKeys.providerDeliveries(workspaceId),
    queryFn: ({ signal, pageParam }) =>
      api.get<z.infer<typeof ProviderDeliveriesPage>>(
        `/workspaces/${encodeURIComponent(workspaceId)}/provider-deliveries`,
        { signal, query: { cursor: pageParam } },
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    refetchInterval: DELIVERIES_REFRESH_MS,
  });
}
