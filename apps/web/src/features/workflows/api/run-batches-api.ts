import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { RunBatch, RunBatchListResponse, RunBatchResponse, RunFilter } from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { workflowsKeys } from './workflows-keys';

export type { RunBatch };

/** How often a workflow's batches are asked for while one is running, in ms. */
export const RUN_BATCH_REFRESH_MS = 2_000;

const workflowPath = (workflowId: string, rest: string) =>
  `/workflows/${encodeURIComponent(workflowId)}${rest}`;

/** The workflow's newest replays and bulk cancels; asked for again while one is running. */
export function useRunBatches(workflowId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.runBatches(workflowId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof RunBatchListResponse>>(workflowPath(workflowId, '/run-batches'), {
        signal,
      }),
    refetchInterval: (query) =>
      query.state.data?.batches.some((batch) => batch.status === 'running')
        ? RUN_BATCH_REFRESH_MS
        : false,
  });
}

/** What a bulk action is asked for: a replay from a step, or a cancel, of the filter's runs. */
export type BulkAction = { kind: 'replay'; from: 'failed_step' | 'start' } | { kind: 'cancel' };

/**
 * Starts a batch over the runs the filter keeps. The key is made once per press, so a request
 * the client sends again answers the batch the first one made.
 */
export function useStartRunBatch(workflowId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ action, filter }: { action: BulkAction; filter: RunFilter }) => {
      const key = crypto.randomUUID();
      return action.kind === 'replay'
        ? api.post<z.infer<typeof RunBatchResponse>>(workflowPath(workflowId, '/runs/replay'), {
            filter,
            from: action.from,
            key,
          })
        : api.post<z.infer<typeof RunBatchResponse>>(workflowPath(workflowId, '/runs/cancel'), {
            filter,
            key,
          });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workflowsKeys.runs(workflowId) }),
  });
}

/** Stops a batch: what it has not reached is skipped. */
export function useStopRunBatch(workflowId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (batchId: string) =>
      api.post<z.infer<typeof RunBatchResponse>>(
        `/run-batches/${encodeURIComponent(batchId)}/cancel`,
      ),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: workflowsKeys.runBatches(workflowId) }),
  });
}
