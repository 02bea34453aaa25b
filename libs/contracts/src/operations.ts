import { z } from 'zod';

/**
 * Operator requests of the admin CLI (apps/admin), served by the service that owns the data so
 * that no other process writes its tables. None of them is reachable over HTTP: only a process
 * on the deployment's NATS account can send them.
 */
export const OPERATIONS_SUBJECTS = {
  /** Served by storage: soft-deletes a workspace whoever owns it. */
  deleteWorkspace: 'storage.api.operator_delete_workspace.v1',
  /** Served by mcp-registry: re-wraps every stored credential under its newest key. */
  rewrapCredentials: 'mcp.api.operator_rewrap_credentials.v1',
  /**
   * Served by workflow-runner: the same for what it seals with those keys (providers' signing
   * secrets, workspace credentials).
   */
  rewrapWorkflowSecrets: 'workflow.api.operator_rewrap_secrets.v1',
  /** Served by workflow-runner: retries an ended run of any workspace, as its acting user. */
  retryRun: 'workflow.api.operator_retry_run.v1',
} as const;

export const OperatorDeleteWorkspaceRequest = z.object({ workspaceId: z.uuid() });
export type OperatorDeleteWorkspaceRequest = z.infer<typeof OperatorDeleteWorkspaceRequest>;
export const OperatorDeleteWorkspaceReply = z.object({
  workspaceId: z.uuid(),
  /** False when the workspace had been deleted before (the call changes nothing then). */
  deleted: z.boolean(),
});
export type OperatorDeleteWorkspaceReply = z.infer<typeof OperatorDeleteWorkspaceReply>;

export const OperatorRewrapCredentialsRequest = z.object({});
export type OperatorRewrapCredentialsRequest = z.infer<typeof OperatorRewrapCredentialsRequest>;
export const OperatorRewrapCredentialsReply = z.object({
  /** Id of the key every stored credential is now wrapped under (the replica's newest). */
  keyId: z.string(),
  /** MCP servers whose credentials moved to that key. */
  rewrapped: z.number().int().nonnegative(),
});
export type OperatorRewrapCredentialsReply = z.infer<typeof OperatorRewrapCredentialsReply>;

export const OperatorRetryRunRequest = z.object({
  runId: z.uuid(),
  from: z.enum(['failed_step', 'start']).default('failed_step'),
});
export type OperatorRetryRunRequest = z.infer<typeof OperatorRetryRunRequest>;
export const OperatorRetryRunReply = z.object({
  /** The run retried. */
  runId: z.uuid(),
  /** The new run that retries it. */
  retryId: z.uuid(),
  workflowId: z.uuid(),
  workspaceId: z.uuid(),
  /** The retry's attempt number: the original's plus one. */
  attempt: z.number().int().positive(),
});
export type OperatorRetryRunReply = z.infer<typeof OperatorRetryRunReply>;
