import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  CreateCredentialBody,
  UpdateCredentialBody,
  WorkspaceCredentialResponse,
  WorkspaceCredentialsResponse,
} from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { workflowsKeys } from './workflows-keys';

const credentialsPath = (workspaceId: string) =>
  `/workspaces/${encodeURIComponent(workspaceId)}/credentials`;

export function useWorkspaceCredentials(workspaceId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.credentials(workspaceId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof WorkspaceCredentialsResponse>>(credentialsPath(workspaceId), {
        signal,
      }),
  });
}

function useInvalidateCredentials(workspaceId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: workflowsKeys.credentials(workspaceId) });
}

export function useCreateCredential(workspaceId: string) {
  const api = useApiClient();
  const invalidate = useInvalidateCredentials(workspaceId);
  return useMutation({
    mutationFn: (body: z.input<typeof CreateCredentialBody>) =>
      api.post<z.infer<typeof WorkspaceCredentialResponse>>(credentialsPath(workspaceId), body),
    onSuccess: invalidate,
  });
}

export function useUpdateCredential(workspaceId: string, credentialId: string) {
  const api = useApiClient();
  const invalidate = useInvalidateCredentials(workspaceId);
  return useMutation({
    mutationFn: (body: UpdateCredentialBody) =>
      api.patch<z.infer<typeof WorkspaceCredentialResponse>>(
        `${credentialsPath(workspaceId)}/${encodeURIComponent(credentialId)}`,
        body,
      ),
    onSuccess: invalidate,
  });
}

export function useDeleteCredential(workspaceId: string, credentialId: string) {
  const api = useApiClient();
  const invalidate = useInvalidateCredentials(workspaceId);
  return useMutation({
    mutationFn: () =>
      api.delete<void>(`${credentialsPath(workspaceId)}/${encodeURIComponent(credentialId)}`),
    onSuccess: invalidate,
  });
}
