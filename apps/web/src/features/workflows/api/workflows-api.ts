import {
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  CreateWorkflowBody,
  ListMcpToolsResponse,
  McpToolRecord,
  PutScheduleBody,
  Run,
  RunDetailsResponse,
  RunFilter,
  RunListResponse,
  RunStartedResponse,
  RunStatus,
  ScheduleFiresResponse,
  ScheduleResponse,
  StepTypesResponse,
  TablesPage,
  TestEventsResponse,
  UpdateWorkflowBody,
  Workflow,
  WorkflowListResponse,
  WorkflowPermissions,
  WorkflowPermissionsResponse,
  WorkflowResponse,
  WorkflowWithWebhook,
  WorkflowVersionListResponse,
  VersionDiffResponse,
} from '@wap/contracts';
import { isFinalRunStatus, WORKSPACE_LIST_PAGE } from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { workflowsKeys } from './workflows-keys';

export type WorkflowWithAddress = z.infer<typeof WorkflowWithWebhook>;
export type StepTypeInfo = z.infer<typeof StepTypesResponse>['step_types'][number];
export type TestEvent = z.infer<typeof TestEventsResponse>['events'][number];
export type RunsPage = z.infer<typeof RunListResponse>;
export type StepRun = Run['steps'][number];
export type ScheduleFire = z.infer<typeof ScheduleFiresResponse>['fires'][number];
export type { McpToolRecord, Run, RunFilter, RunStatus, Workflow, ScheduleResponse };

/** How often test events are asked for while a workflow's page is open, in ms. */
export const TEST_EVENTS_REFRESH_MS = 3_000;
/** How often a run that has not ended, and a runs list, are asked for again, in ms. */
export const RUN_REFRESH_MS = 2_000;
/** A run waiting for a reviewer waits on a person, for minutes or days: asked for less often. */
export const WAITING_RUN_REFRESH_MS = 15_000;
export const RUNS_LIST_REFRESH_MS = 5_000;
/** Runs per page of the runs list. */
export const RUNS_PAGE_SIZE = 25;

/** How soon a run in `status` is asked for again; false once it has ended. */
function runRefreshInterval(status: RunStatus | undefined): number | false {
  if (status === undefined) return RUN_REFRESH_MS;
  if (isFinalRunStatus(status)) return false;
  return status === 'waiting_approval' ? WAITING_RUN_REFRESH_MS : RUN_REFRESH_MS;
}

const workflowPath = (workflowId: string, rest = '') =>
  `/workflows/${encodeURIComponent(workflowId)}${rest}`;

/** Step types with their price and settings schema: fixed for a deployment's lifetime. */
export function useStepTypes() {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.stepTypes(),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof StepTypesResponse>>('/workflows/step-types', { signal }),
    staleTime: Infinity,
  });
}

export function useWorkflows(workspaceId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.list(workspaceId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof WorkflowListResponse>>('/workflows', {
        signal,
        query: { workspaceId },
      }),
  });
}

export function useWorkflow(workflowId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.workflow(workflowId),
    queryFn: ({ signal }) => api.get<WorkflowWithAddress>(workflowPath(workflowId), { signal }),
  });
}

function rememberWorkflow(queryClient: QueryClient, saved: WorkflowWithAddress) {
  queryClient.setQueryData(workflowsKeys.workflow(saved.workflow.id), saved);
  return queryClient.invalidateQueries({
    queryKey: workflowsKeys.list(saved.workflow.workspace_id),
  });
}

/** Puts a workflow answered without its address (live, draft) into the cached one. */
function rememberStatus(queryClient: QueryClient, workflow: Workflow) {
  queryClient.setQueryData<WorkflowWithAddress>(workflowsKeys.workflow(workflow.id), (cached) =>
    cached ? { ...cached, workflow } : cached,
  );
  return queryClient.invalidateQueries({ queryKey: workflowsKeys.list(workflow.workspace_id) });
}

export function useCreateWorkflow() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateWorkflowBody) => api.post<WorkflowWithAddress>('/workflows', body),
    onSuccess: (saved) => rememberWorkflow(queryClient, saved),
  });
}

export function useUpdateWorkflow(workflowId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateWorkflowBody) =>
      api.patch<WorkflowWithAddress>(workflowPath(workflowId), body),
    onSuccess: (saved) => rememberWorkflow(queryClient, saved),
  });
}

export function useDeleteWorkflow(workflow: Workflow) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<void>(workflowPath(workflow.id)),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: workflowsKeys.workflow(workflow.id) });
      await queryClient.invalidateQueries({ queryKey: workflowsKeys.list(workflow.workspace_id) });
    },
  });
}

export function useSetLive(workflowId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (live: boolean) =>
      api.post<z.infer<typeof WorkflowResponse>>(
        workflowPath(workflowId, live ? '/live' : '/draft'),
      ),
    onSuccess: ({ workflow }) => rememberStatus(queryClient, workflow),
  });
}

export function useDuplicateWorkflow(workflowId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<WorkflowWithAddress>(workflowPath(workflowId, '/duplicate')),
    onSuccess: (copy) => rememberWorkflow(queryClient, copy),
  });
}

/** Who may edit, run, publish, schedule and delete the workspace's workflows. */
export function useWorkflowPermissions(workspaceId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.permissions(workspaceId),
    queryFn: ({ signal }) =>
      api.get<WorkflowPermissionsResponse>(
        `/workspaces/${encodeURIComponent(workspaceId)}/workflow-permissions`,
        { signal },
      ),
  });
}

export function useSaveWorkflowPermissions(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (permissions: Partial<WorkflowPermissions>) =>
      api.put<WorkflowPermissionsResponse>(
        `/workspaces/${encodeURIComponent(workspaceId)}/workflow-permissions`,
        { permissions },
      ),
    onSuccess: (saved) => queryClient.setQueryData(workflowsKeys.permissions(workspaceId), saved),
  });
}

/** Runs act as the signed-in person from now on (how an owner accepts another member's change). */
export function useAdoptWorkflow(workflowId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<WorkflowWithAddress>(workflowPath(workflowId, '/adopt')),
    onSuccess: (saved) => rememberWorkflow(queryClient, saved),
  });
}

/** The workflow's versions, newest first (decision 163). */
export function useWorkflowVersions(workflowId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.versions(workflowId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof WorkflowVersionListResponse>>(workflowPath(workflowId, '/versions'), {
        signal,
      }),
  });
}

/** What differs between a version and the one before it, asked for when shown. */
export function useVersionDiff(workflowId: string, number: number, enabled: boolean) {
  const api = useApiClient();
  return useQuery({
    queryKey: [...workflowsKeys.versions(workflowId), number, 'diff'],
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof VersionDiffResponse>>(
        workflowPath(workflowId, `/versions/${number}/diff`),
        { signal },
      ),
    enabled,
    staleTime: Infinity,
  });
}

/** Makes a version the newest again, as a new version; Set live still publishes it. */
export function useRestoreVersion(workflowId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (number: number) =>
      api.post<WorkflowWithAddress>(workflowPath(workflowId, `/versions/${number}/restore`)),
    onSuccess: async (saved) => {
      await rememberWorkflow(queryClient, saved);
      await queryClient.invalidateQueries({ queryKey: workflowsKeys.versions(workflowId) });
    },
  });
}

/** Hands the workflow to another member; whom it runs as stays until they adopt it. */
export function useTransferWorkflow(workflowId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (ownerId: string) =>
      api.put<WorkflowWithAddress>(workflowPath(workflowId, '/owner'), { ownerId }),
    onSuccess: (saved) => rememberWorkflow(queryClient, saved),
  });
}

/** The user action Run: on the chosen test event, else the newest one. */
export function useRunWorkflow(workflowId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (testEventId: string | undefined) =>
      api.post<z.infer<typeof RunStartedResponse>>(
        workflowPath(workflowId, '/run'),
        testEventId ? { testEventId } : {},
      ),
    onSuccess: () =>
      // Set live needs a Run: `last_test_run_at` changed; and the runs list has a new run.
      queryClient.invalidateQueries({ queryKey: workflowsKeys.workflow(workflowId) }),
  });
}

/** Captured webhook requests, newest first, asked for again every few seconds. */
export function useTestEvents(workflowId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.testEvents(workflowId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof TestEventsResponse>>(workflowPath(workflowId, '/test-events'), {
        signal,
      }),
    refetchInterval: TEST_EVENTS_REFRESH_MS,
  });
}

/** The runs the filter keeps, newest first, a page at a time (`nextCursor`). */
export function useRuns(workflowId: string, filter: RunFilter) {
  const api = useApiClient();
  return useInfiniteQuery({
    queryKey: workflowsKeys.filteredRuns(workflowId, filter),
    queryFn: ({ signal, pageParam }) =>
      api.get<RunsPage>(workflowPath(workflowId, '/runs'), {
        signal,
        query: { limit: RUNS_PAGE_SIZE, ...filter, cursor: pageParam },
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    refetchInterval: RUNS_LIST_REFRESH_MS,
  });
}

/** One run with its steps; asked for again until it has ended. */
export function useRun(runId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.run(runId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof RunDetailsResponse>>(`/runs/${encodeURIComponent(runId)}`, {
        signal,
      }),
    refetchInterval: (query) => runRefreshInterval(query.state.data?.run.status),
  });
}

/** Cancels a run: answered once it ended (cancelled, or as it ended first). */
export function useCancelRun(runId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<{ run: Run }>(`/runs/${encodeURIComponent(runId)}/cancel`, {}),
    onSuccess: (answer) =>
      queryClient.setQueryData<z.infer<typeof RunDetailsResponse>>(
        workflowsKeys.run(runId),
        (current) => ({ retries: current?.retries ?? [], run: answer.run }),
      ),
  });
}

/** Retries an ended run as a new one: from its failed step, or from the start. */
export function useRetryRun(runId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (from: 'failed_step' | 'start') =>
      api.post<z.infer<typeof RunStartedResponse>>(`/runs/${encodeURIComponent(runId)}/retry`, {
        from,
      }),
    // The original's page lists its retries: read it again when it is next shown.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workflowsKeys.run(runId) }),
  });
}

export function useSchedule(workflowId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.schedule(workflowId),
    queryFn: ({ signal }) =>
      api.get<ScheduleResponse>(workflowPath(workflowId, '/schedule'), { signal }),
  });
}

export function useSaveSchedule(workflowId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: PutScheduleBody) =>
      api.put<ScheduleResponse>(workflowPath(workflowId, '/schedule'), body),
    onSuccess: async (saved) => {
      queryClient.setQueryData(workflowsKeys.schedule(workflowId), saved);
      // queue_outside_window and stop_on_node_failure are the workflow's own settings too.
      await queryClient.invalidateQueries({
        queryKey: workflowsKeys.workflow(workflowId),
        exact: true,
      });
      await queryClient.invalidateQueries({ queryKey: workflowsKeys.scheduleFires(workflowId) });
    },
  });
}

export function useScheduleFires(workflowId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.scheduleFires(workflowId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof ScheduleFiresResponse>>(workflowPath(workflowId, '/schedule/fires'), {
        signal,
      }),
    refetchInterval: 30_000,
  });
}

/**
 * The newest run with its steps' outputs, for the variables of earlier steps; none before the
 * first run. Asked for again when a run started from the page changes the workflow's queries.
 */
export function useLastRun(workflowId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.lastRun(workflowId),
    queryFn: async ({ signal }) => {
      const page = await api.get<RunsPage>(workflowPath(workflowId, '/runs'), {
        signal,
        query: { limit: 1 },
      });
      const newest = page.runs[0];
      if (!newest) return null;
      return (await api.get<{ run: Run }>(`/runs/${encodeURIComponent(newest.id)}`, { signal }))
        .run;
    },
    // A run started from the page gets its outputs as its steps end.
    // No run yet: nothing to follow until the page starts one (which invalidates this).
    refetchInterval: (query) =>
      query.state.data ? runRefreshInterval(query.state.data.status) : false,
  });
}

/** The enabled MCP tools the signed-in person may use in the workspace (spec endpoint 4). */
export function useUsableTools(workspaceId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.tools(workspaceId),
    queryFn: async ({ signal }) => {
      const answer = await api.get<z.infer<typeof ListMcpToolsResponse>>('/mcp-registry/tools', {
        signal,
        query: { workspaceId },
      });
      // Without groupByServer the data is the flat list.
      return Array.isArray(answer.data) ? answer.data.filter((tool) => tool.isEnabled) : [];
    },
    staleTime: 30_000,
  });
}

/** The workspace's newest tables (one page of the most a page holds), for a table-row step. */
export function useTableChoices(workspaceId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: workflowsKeys.tables(workspaceId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof TablesPage>>('/tables', {
        signal,
        query: { workspaceId, limit: WORKSPACE_LIST_PAGE.max },
      }),
    staleTime: 30_000,
  });
}
