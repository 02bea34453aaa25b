import { z } from 'zod';
import { parseConfig } from '@wap/config';
import { ServiceEnv } from '@wap/service-runtime';

/** The runner's own settings; each has a default, so the embedded launcher may pass none. */
export const WorkflowRunnerSettings = z.object({
  /** Public origin of the gateway; webhook addresses are `<PUBLIC_BASE_URL>/webhooks/<id>`. */
  PUBLIC_BASE_URL: z.url().default('http://localhost:3000'),
  /** Test events kept per workflow; older ones are pruned as new ones arrive. */
  TEST_EVENTS_PER_WORKFLOW: z.coerce.number().int().min(1).max(1000).default(50),
  /** How often workflows that received test events are pruned to that cap, in ms. */
  TEST_EVENTS_PRUNE_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /** Days an ended run stays in the run history; 0 keeps every run for good (decision 46). */
  RUN_HISTORY_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
  /** How often runs older than RUN_HISTORY_DAYS are deleted, in ms. */
  RUN_HISTORY_PRUNE_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(24 * 60 * 60 * 1000)
    .default(60 * 60 * 1000),
  /**
   * SMTP server of approval emails (`smtp://user:pass@host:587`, `smtps://...`); unset: each
   * email is written as an .eml file under MAIL_DROP_DIR instead (decision 73).
   */
  SMTP_URL: z.url().optional(),
  /** Sender of approval emails. */
  MAIL_FROM: z.string().min(3).default('Workspace Assistant <no-reply@localhost>'),
  /** Folder of the .eml files written while SMTP_URL is unset. */
  MAIL_DROP_DIR: z.string().min(1).default('./data/mail'),
  /** How often approvals are checked for emails to queue and queued emails are sent, in ms. */
  MAIL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /** Wait before the first retry of an email that failed; doubles each time, up to an hour, in ms. */
  MAIL_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  /** How often schedules are checked for failures in a row and failure alerts queued and sent, in ms. */
  FAILURE_ALERTS_INTERVAL_MS: z.coerce.number().int().min(10).max(600_000).default(10_000),
  /** Attempts before an email is recorded as failed. */
  MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  /** Consumers of the RUNS stream per replica; their requests in flight share commits. */
  RUNS_CONSUMER_MEMBERS: z.coerce.number().int().min(1).max(64).default(4),
  /** Consumers of the WEBHOOK_EVENTS stream per replica; their events in flight share commits. */
  EVENTS_CONSUMER_MEMBERS: z.coerce.number().int().min(1).max(64).default(8),
  /** Runs one replica executes at once. */
  RUN_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  /** How often the run table is read for due runs (delays ending, queued runs), in ms. */
  RUN_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /**
   * How often the scheduler decides the schedules' owed fires, in ms; 0 runs no scheduler loop
   * (tests that drive the scheduler by hand with an injected clock).
   */
  SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  /**
   * How long before its due time a fire is decided and its run created, waiting, in ms
   * (decision 139); under the shortest period a schedule can have (a minute).
   */
  SCHEDULER_LOOKAHEAD_MS: z.coerce.number().int().min(0).max(30_000).default(10_000),
  /**
   * The most runs one run started from outside may start through its loops and calls, all
   * levels counted (decision 165): loops inside loops cannot multiply past it.
   */
  RUN_MAX_DESCENDANTS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** Lease of a run being executed; a dead replica's runs resume after it lapses, in ms. */
  RUN_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  /** How often replays and bulk cancels are worked on, in ms (decision 159). */
  RUN_BATCH_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /** Runs a replay starts per pass: its pace, so that a replay does not flood what runs call. */
  RUN_BATCH_REPLAYS_PER_PASS: z.coerce.number().int().min(1).max(1_000).default(50),
  /** Runs a bulk cancel stops per pass. */
  RUN_BATCH_CANCELS_PER_PASS: z.coerce.number().int().min(1).max(1_000).default(500),
  /** Longest wait for an http_request step's response, in ms. */
  HTTP_STEP_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  /** An http_request step keeps this many bytes of the response body (runs travel in bus messages). */
  HTTP_STEP_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .max(512 * 1024)
    .default(64 * 1024),
  /** Longest wait for a step served over the bus (MCP tool, table row, assistant), in ms. */
  STEP_BUS_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(60_000),
  /**
   * Hosts, addresses and CIDRs http_request steps may reach although they are not public; its
   * own list, apart from MCP servers' (`MCP_SSRF_ALLOWLIST`).
   */
  HTTP_STEP_SSRF_ALLOWLIST: z.string().optional(),
  /** The list of releases before there were two: used while HTTP_STEP_SSRF_ALLOWLIST is unset. */
  SSRF_ALLOWLIST: z.string().default(''),
  /**
   * Attempts to connect a provider account one workspace may make in an hour, refused ones
   * included (issue 41): claims of made-up accounts and probes of proven ones stay slow.
   */
  PROVIDER_CONNECT_ATTEMPTS_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(10),
});
export type WorkflowRunnerSettings = z.infer<typeof WorkflowRunnerSettings>;

/**
 * The workflow runner's environment: the common service variables and its own, and the
 * key-encryption keys mcp-registry has (`kid:base64key,...`, newest first), which seal
 * connections' signing secrets and the workspace credentials here (decision 151).
 */
export const WorkflowRunnerEnv = ServiceEnv.extend({
  ...WorkflowRunnerSettings.shape,
  CREDENTIALS_ENCRYPTION_KEYS: z.string().min(1),
});
export type WorkflowRunnerEnv = z.infer<typeof WorkflowRunnerEnv>;

export function loadConfig(env: NodeJS.ProcessEnv): WorkflowRunnerEnv {
  return parseConfig(WorkflowRunnerEnv, env);
}
