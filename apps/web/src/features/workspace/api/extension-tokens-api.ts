import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  CreateExtensionTokenBody,
  CreateExtensionTokenResponse,
  ExtensionTokensResponse,
} from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { workspaceKeys } from './workspace-keys';

export type IssuedExtensionToken = z.infer<typeof CreateExtensionTokenResponse>;

const EXTENSION_TOKENS_PATH = '/me/extension-tokens';

/** The signed-in person's live extension tokens (never their values). */
export function useExtensionTokens() {
  const api = useApiClient();
  return useQuery({
    queryKey: workspaceKeys.extensionTokens(),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof ExtensionTokensResponse>>(EXTENSION_TOKENS_PATH, { signal }),
  });
}

export function useIssueExtensionToken() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateExtensionTokenBody) =>
      api.post<IssuedExtensionToken>(EXTENSION_TOKENS_PATH, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workspaceKeys.extensionTokens() }),
  });
}

export function useRevokeExtensionToken() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) =>
      api.delete<void>(`${EXTENSION_TOKENS_PATH}/${encodeURIComponent(tokenId)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workspaceKeys.extensionTokens() }),
  });
}
