import { z } from 'zod';
import { Provider } from './provider-events';
import { REQUEST_BODIES_BUCKET } from './service-protocol';

/**
 * What workflow-runner, webhook-ingest, mcp-registry and chat tell each other about workflows,
 * runs and tools. REST routes live in workflows.ts, webhooks.ts and mcp.ts; these are the bus
 * subjects, streams and KV buckets between the services.
 */

/** Every stream message is this envelope; `id` is also the JetStream Nats-Msg-Id (dedupe). */
export function Envelope<Data extends z.ZodType>(data: Data) {
  return z.object({ type: z.string(), id: z.string(), time: z.iso.datetime(), data });
}

export const RunStatus = z.enum([
  'queued',
  'running',
  'waiting_approval',
  'succeeded',
  'failed',
  'cancelled',
]);
export type RunStatus = z.infer<typeof RunStatus>;
/** A run in one of these has ended for good. */
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];
export function isFinalRunStatus(status: string): boolean {
  return (FINAL_RUN_STATUSES as readonly string[]).includes(status);
}

/** Running hours of a workflow (absent: always open). Days 1..7, 1 = Monday; times HH:MM. */
export const RunningHours = z.object({
  timezone: z.string().min(1),
  days: z.array(z.number().int().min(1).max(7)).min(1),
  start: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
  end: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
});
export type RunningHours = z.infer<typeof RunningHours>;

/** The Custom Response option of a Custom Webhook trigger. */
export const CustomResponse = z.object({ enabled: z.boolean(), body: z.string().max(65_536) });
export type CustomResponse = z.infer<typeof CustomResponse>;

/**
 * KV bucket `webhooks`, published by workflow-runner, read by webhook-ingest from a local
 * cache: key `hook.<webhookId>`. A removed trigger deletes its key (404); a deleted workspace
 * is known from the directory bucket (410).
 */
export const WEBHOOKS_BUCKET = 'webhooks';
export function webhookKey(webhookId: string): string {
  return `hook.${webhookId}`;
}
export const WebhookAddress = z.object({
  webhookId: z.uuid(),
  workflowId: z.uuid(),
  workspaceId: z.uuid(),
  status: z.enum(['draft', 'live']),
  customResponse: CustomResponse.nullable(),
  runningHours: RunningHours.nullable(),
  queueOutsideWindow: z.boolean(),
  /** Credits one run of the workflow needs (sum of its paid steps). */
  creditCost: z.number().int().nonnegative(),
});
export type WebhookAddress = z.infer<typeof WebhookAddress>;

/** KV bucket `credit-balances`, published by workflow-runner: key `workspace.<id>` → CreditSnapshot. */
export const CREDIT_BALANCES_BUCKET = 'credit-balances';
export function creditBalanceKey(workspaceId: string): string {
  return `workspace.${workspaceId}`;
}
export const CreditSnapshot = z.object({ balance: z.number().int() });
export type CreditSnapshot = z.infer<typeof CreditSnapshot>;

/**
 * KV bucket `webhook-inflight`: fingerprints of identical requests (no idempotency header)
 * whose run has not ended; webhook-ingest creates the key, workflow-runner deletes it when the
 * run ends (any final status). Value: an InflightClaim (JSON).
 */
export const WEBHOOK_INFLIGHT_BUCKET = 'webhook-inflight';
/**
 * The bucket's options, the same for every service that opens it: its keys expire an hour after
 * their last write. NATS 2.9 keeps the marker of every deleted key for good, one per distinct
 * body, and only the bucket's TTL removes them: the TTL bounds what nats-server holds to the
 * distinct bodies of the last hour (decision 40). workflow-runner rewrites the claims of runs
 * still going long before that, so that a run waiting for days keeps its claim.
 */
export const WEBHOOK_INFLIGHT_BUCKET_OPTIONS = { ttlMs: 60 * 60 * 1000 } as const;
/**
 * The request holding a fingerprint, and when it claimed it. A replica that dies between the
 * claim and storing the request leaves a key that no run will delete: once a claim is older than
 * the abandonment age and its event has no unfinished run (RUN_OF_EVENT_SUBJECT), an identical
 * request takes it over; a claim whose holder replica is no longer alive is taken over at once
 * unless its event has a run still going.
 */
export const InflightClaim = z.object({
  eventId: z.uuid(),
  claimedAtMs: z.number(),
  /** The run the request asks for: a takeover of a dead holder's claim reuses both ids. */
  runId: z.uuid().optional(),
  /** The webhook-ingest replica that took the claim (its liveness key, decision 91). */
  holder: z.string().optional(),
});
export type InflightClaim = z.infer<typeof InflightClaim>;

/** The claim a key of WEBHOOK_INFLIGHT_BUCKET holds, or null for a value that is not one. */
export function inflightClaimOf(value: Uint8Array): InflightClaim | null {
  try {
    const parsed = InflightClaim.safeParse(JSON.parse(new TextDecoder().decode(value)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** workflow-runner: the run a webhook event started, if any (queue group `workflow-runner`). */
export const RUN_OF_EVENT_SUBJECT = 'workflow.api.run_of_event.v1';
export const RunOfEventRequest = z.object({ eventId: z.uuid() });
export const RunOfEventReply = z.object({
  run: z.object({ id: z.uuid(), status: RunStatus }).nullable(),
});

/** Object bucket for webhook bodies too large to travel inline in a stream message. */
export const WEBHOOK_PAYLOADS_BUCKET = 'webhook-payloads';

/**
 * A webhook body as carried in streams: inline JSON, or in the object store when large (where
 * the gateway parked it, or where webhook-ingest put it when it came in by its own door).
 */
export const WebhookPayload = z.union([
  z.object({ kind: z.literal('inline'), body: z.unknown() }),
  z.object({
    kind: z.literal('object'),
    bucket: z.enum([WEBHOOK_PAYLOADS_BUCKET, REQUEST_BODIES_BUCKET]),
    name: z.string(),
    size: z.number().int().nonnegative(),
  }),
]);
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/**
 * Stream WEBHOOK_EVENTS: every valid webhook request, live or draft (they become test events).
 * A request that starts a run carries `run`: the runner creates the test event and the run
 * from this one message, so a triggered request costs webhook-ingest one stored message.
 * The envelope id (= eventId) dedupes retried publishes; a retry keeps its event and run ids.
 */
export const WEBHOOK_EVENTS_STREAM = 'WEBHOOK_EVENTS';
export const WEBHOOK_RECEIVED_SUBJECT = 'webhook.evt.received.v1';

/**
 * How long WEBHOOK_EVENTS and RUNS keep a message. The runner stores what it consumes within
 * seconds, so the streams are transport, not storage: without an age limit they kept every
 * request for good. A week lets a stopped runner catch up after a long outage (decision 44).
 */
export const AUTOMATION_STREAM_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * WEBHOOK_EVENTS as every service and spec must ensure it: a caller that left the age limit out
 * would set the stream back to keeping messages for good.
 */
export const WEBHOOK_EVENTS_STREAM_CONFIG = {
  name: WEBHOOK_EVENTS_STREAM,
  subjects: [WEBHOOK_RECEIVED_SUBJECT],
  maxAgeMs: AUTOMATION_STREAM_MAX_AGE_MS,
};
/**
 * The payloads bucket as every service must ensure it. A parked body is needed only until the
 * runner stores its message, which deletes it then; the age limit removes what nothing deletes
 * (a replica that died after parking a body, a retried request that was deduplicated), and a
 * body is never kept longer than its message.
 */
export const WEBHOOK_PAYLOADS_BUCKET_OPTIONS = { maxAgeMs: AUTOMATION_STREAM_MAX_AGE_MS } as const;
/**
 * The gateway's parked request bodies, as every service that reads them must ensure the bucket.
 * A large webhook body parked there is kept as its event's body (stored once, decision 126)
 * until the runner stores the event, so it may wait as long as the event does.
 */
export const REQUEST_BODIES_BUCKET_OPTIONS = { maxAgeMs: AUTOMATION_STREAM_MAX_AGE_MS } as const;
export const WebhookReceived = z.object({
  eventId: z.uuid(),
  webhookId: z.uuid(),
  workflowId: z.uuid(),
  workspaceId: z.uuid(),
  receivedAt: z.iso.datetime(),
  /** Request headers, lower-cased (no cookies or credentials). */
  headers: z.record(z.string(), z.string()),
  payload: WebhookPayload,
  /** Set when a provider's verified delivery came through the workflow's address (decision 132). */
  source: z.object({ provider: Provider, deliveryId: z.string() }).optional(),
  run: z
    .object({
      runId: z.uuid(),
      /** Key in WEBHOOK_INFLIGHT_BUCKET to delete when the run ends, or null. */
      inflightKey: z.string().nullable(),
      /** The run waits (status queued) until this instant: the next running-hours window. */
      notBefore: z.iso.datetime().nullable(),
    })
    .optional(),
});
export type WebhookReceived = z.infer<typeof WebhookReceived>;

/**
 * Stream RUNS: runs started by other services than webhook-ingest (the platform's MCP server).
 * The envelope id (= runId) dedupes retried publishes.
 */
export const RUNS_STREAM = 'RUNS';
export const START_RUN_SUBJECT = 'workflow.cmd.start_run.v1';
/** RUNS as every service and spec must ensure it (see WEBHOOK_EVENTS_STREAM_CONFIG). */
export const RUNS_STREAM_CONFIG = {
  name: RUNS_STREAM,
  subjects: [START_RUN_SUBJECT],
  maxAgeMs: AUTOMATION_STREAM_MAX_AGE_MS,
};
export const StartRun = z.object({
  runId: z.uuid(),
  workflowId: z.uuid(),
  workspaceId: z.uuid(),
  trigger: z.object({
    type: z.literal('mcp'),
    keyId: z.uuid(),
    input: z.record(z.string(), z.unknown()),
  }),
});
export type StartRun = z.infer<typeof StartRun>;

/** workflow-runner bus API used by the platform's MCP server (keys act for their workspace). */
export const WORKFLOW_SUBJECTS = {
  listWorkflows: 'workflow.api.list_workflows.v1',
  startRun: 'workflow.api.start_run.v1',
  getRun: 'workflow.api.get_run.v1',
  retryRun: 'workflow.api.retry_run_by_key.v1',
} as const;
/**
 * An event every runner replica hears when a run's cancel was asked for: the one executing it
 * stops its step once the database confirms the cancel (the message alone is never trusted).
 */
export const RUN_CANCEL_REQUESTED_SUBJECT = 'workflow.evt.run_cancel_requested.v1';
export const RunCancelRequested = z.object({ runId: z.uuid() });
export type RunCancelRequested = z.infer<typeof RunCancelRequested>;
export const ListWorkflowsRequest = z.object({ workspaceId: z.uuid() });
export const WorkflowSummary = z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(['draft', 'live']),
  credit_cost: z.number().int().nonnegative(),
});
export const ListWorkflowsReply = z.object({ workflows: z.array(WorkflowSummary) });
/** Fails with INSUFFICIENT_CREDITS (402) like a webhook run, NOT_FOUND for another workspace's workflow. */
export const StartRunRequest = z.object({
  workspaceId: z.uuid(),
  workflowId: z.uuid(),
  keyId: z.uuid(),
  input: z.record(z.string(), z.unknown()).default({}),
});
export const StartRunReply = z.object({ runId: z.uuid() });
export const GetRunRequest = z.object({ workspaceId: z.uuid(), runId: z.uuid() });
export const RunSummary = z.object({
  id: z.uuid(),
  workflow_id: z.uuid(),
  status: RunStatus,
  credits_charged: z.number().int(),
  created_at: z.iso.datetime(),
  finished_at: z.iso.datetime().nullable(),
  steps: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      status: z.string(),
      output: z.unknown().optional(),
      error: z.string().nullable().optional(),
    }),
  ),
});
export const GetRunReply = z.object({ run: RunSummary });
/**
 * A retry of an ended run of the key's workspace (the rules of POST /runs/{runId}/retry): 409
 * CONFLICT when it has not ended or nothing failed, 402 when the steps to run again cost more
 * than the balance.
 */
export const RetryRunRequest = z.object({
  workspaceId: z.uuid(),
  runId: z.uuid(),
  from: z.enum(['failed_step', 'start']).default('failed_step'),
});
export const RetryRunReply = z.object({ runId: z.uuid() });

/** mcp-registry bus API used by the assistant and by mcp_tool workflow steps. */
export const MCP_SUBJECTS = {
  listTools: 'mcp.api.list_tools.v1',
  callTool: 'mcp.api.call_tool.v1',
  /**
   * Published without a stream to every mcp-registry replica: the one running the call named
   * by `callId` aborts it, which sends `notifications/cancelled` to the MCP server.
   */
  cancelToolCall: 'mcp.evt.tool_call_cancel_requested.v1',
} as const;
/** The enabled tools of enabled servers that `userId` may use in the workspace (access modes applied). */
export const ListToolsRequest = z.object({ workspaceId: z.uuid(), userId: z.uuid() });
export const ToolDescriptor = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  serverId: z.string(),
  serverName: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});
export const ListToolsReply = z.object({ tools: z.array(ToolDescriptor) });
/** Calls one tool as `userId` (access modes enforced); `toolId` or `serverId` + `toolName`. */
export const CallToolRequest = z.object({
  workspaceId: z.uuid(),
  userId: z.uuid(),
  toolId: z.string().optional(),
  serverId: z.string().optional(),
  toolName: z.string().optional(),
  arguments: z.record(z.string(), z.unknown()).default({}),
  timeoutMs: z.number().int().positive().max(300_000).optional(),
  /** Names the call so that a CancelToolCall can stop it while it runs. */
  callId: z.string().min(1).max(200).optional(),
  /** Sent to the tool as `_meta.idempotencyKey`: a workflow step's, the same on every attempt. */
  idempotencyKey: z.string().min(1).max(200).optional(),
});
export const CancelToolCall = z.object({ callId: z.string().min(1).max(200) });
export type CancelToolCall = z.infer<typeof CancelToolCall>;
export const CallToolReply = z.object({
  isError: z.boolean(),
  content: z.array(z.unknown()),
  structuredContent: z.unknown().optional(),
});
