import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Logger } from 'pino';
import { generateCredentialKey, parseCredentialKeys } from '@wap/auth';
import {
  DIRECTORY_BUCKET,
  directoryKey,
  ROUTES,
  RunResponse,
  type Actor,
  type DirectoryWorkspace,
  type Run,
  type ServiceReply,
  type StepInput,
  type WebhookReceived,
  WEBHOOK_RECEIVED_SUBJECT,
  WorkflowWithWebhook,
} from '@wap/contracts';
import { encodeJson, type Platform } from '@wap/platform';
import { callRoute } from '@wap/bus-protocol';
import type { ServiceHandle } from '@wap/service-runtime';
import { asBusPrincipal, eventually, testLogger, testRuntimes } from '@wap/testing';
import type { WorkflowRunnerSettings } from '../config';
import { startWorkflowRunnerService } from '../service';

/** Generous for a cold PGlite, still far below jest's test timeout. */
export const CALL_TIMEOUT_MS = 10_000;

export type { RuntimeUnderTest } from '@wap/testing';

/** The two runtimes every integration spec here runs on. */
export const runtimes = testRuntimes('workflow-runner-test');

/** Starts workflow-runner behind its trust layer, as its composition roots do. */
export async function startRunner(
  platform: Platform,
  settings: Partial<WorkflowRunnerSettings> = {},
  logger: Logger = testLogger(),
): Promise<ServiceHandle> {
  // storage owns the directory and no storage runs here: the spec makes the bucket as storage
  // would, so the runner's read-only view of it finds it (decision 149).
  await platform.kv.bucket(DIRECTORY_BUCKET);
  return startWorkflowRunnerService({
    platform: await asBusPrincipal(platform, 'workflow-runner'),
    logger,
    migrationsFolder: path.join(__dirname, '../../migrations'),
    settings: { RUN_POLL_INTERVAL_MS: 50, ...settings },
    keyring: parseCredentialKeys(generateCredentialKey('runner-test')),
  });
}

export function actorFor(label: string, options: { platformAdmin?: boolean } = {}): Actor {
  return {
    userId: randomUUID(),
    subject: `test|${label}`,
    email: `${label}@example.com`,
    name: label,
    platformAdmin: options.platformAdmin ?? false,
  };
}

/** Publishes a workspace to the directory bucket as storage does (storage is another app). */
export async function publishWorkspace(
  platform: Platform,
  members: readonly Actor[],
): Promise<string> {
  const workspace: DirectoryWorkspace = {
    id: randomUUID(),
    name: 'spec workspace',
    deleted: false,
    members: Object.fromEntries(members.map((member) => [member.userId, 'owner' as const])),
  };
  const bucket = await platform.kv.bucket(DIRECTORY_BUCKET);
  await bucket.put(directoryKey(workspace.id), encodeJson(workspace));
  return workspace.id;
}

const subjectOf = new Map<string, string>(
  ROUTES.filter((route) => route.owner === 'workflow-runner').map((route) => [
    route.operationId,
    route.subject,
  ]),
);
let requestCounter = 0;

const gatewayViews = new WeakMap<Platform, Promise<Platform>>();

/** The platform as the gateway sees it (its requests signed with the gateway's key), one per platform. */
export function asGateway(platform: Platform): Promise<Platform> {
  let view = gatewayViews.get(platform);
  if (!view) {
    view = asBusPrincipal(platform, 'gateway');
    gatewayViews.set(platform, view);
  }
  return view;
}

/** Calls a runner route exactly as the gateway forwards it. */
export async function callRunnerRoute(
  platform: Platform,
  operation: string,
  actor: Actor | null,
  request: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown } = {},
): Promise<ServiceReply> {
  const subject = subjectOf.get(operation);
  if (!subject) throw new Error(`no route ${operation}`);
  requestCounter += 1;
  return callRoute(
    (await asGateway(platform)).bus,
    subject,
    {
      requestId: `runner-spec-${requestCounter}`,
      actor,
      params: request.params ?? {},
      query: request.query ?? {},
      headers: {},
      body: request.body ?? null,
    },
    { timeoutMs: CALL_TIMEOUT_MS },
  );
}

export type CreatedWorkflow = ReturnType<typeof WorkflowWithWebhook.parse>;

/** Creates a Custom Webhook workflow of these steps (in draft) as `owner` does. */
export async function createWebhookWorkflow(
  platform: Platform,
  owner: Actor,
  workspaceId: string,
  steps: StepInput[],
  settings: Record<string, unknown> = {},
): Promise<CreatedWorkflow> {
  const reply = await callRunnerRoute(platform, 'create_workflow', owner, {
    body: { workspaceId, name: 'spec flow', trigger: { type: 'custom_webhook' }, steps, settings },
  });
  if (reply.status !== 201) {
    throw new Error(`create_workflow answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
  return WorkflowWithWebhook.parse(reply.body);
}

/**
 * A WEBHOOK_EVENTS message for the workflow as webhook-ingest builds it, its body inline; with
 * `run`, the message starts that run.
 */
export function webhookEventFor(
  created: CreatedWorkflow,
  body: unknown,
  run?: WebhookReceived['run'],
): WebhookReceived {
  return {
    eventId: randomUUID(),
    webhookId: created.webhook?.id ?? randomUUID(),
    workflowId: created.workflow.id,
    workspaceId: created.workflow.workspace_id,
    receivedAt: new Date().toISOString(),
    headers: { 'content-type': 'application/json' },
    payload: { kind: 'inline', body },
    ...(run ? { run } : {}),
  };
}

/**
 * Publishes a WEBHOOK_EVENTS message as webhook-ingest does, signed with its key; `dedupe:
 * false` leaves JetStream's dedupe out, as for a copy published again outside its window.
 */
export async function publishWebhookEvent(
  platform: Platform,
  data: WebhookReceived,
  options: { dedupe?: boolean } = {},
): Promise<void> {
  const ingest = await asBusPrincipal(platform, 'webhook-ingest');
  await ingest.streams.publish(
    WEBHOOK_RECEIVED_SUBJECT,
    encodeJson({ type: WEBHOOK_RECEIVED_SUBJECT, id: data.eventId, time: data.receivedAt, data }),
    options.dedupe === false ? {} : { messageId: data.eventId },
  );
}

/** Reads the run until it reaches one of `statuses`. */
export async function runReaching(
  platform: Platform,
  actor: Actor,
  runId: string,
  statuses: readonly Run['status'][],
  timeoutMs = 10_000,
): Promise<Run> {
  return eventually(async () => {
    const reply = await callRunnerRoute(platform, 'get_run', actor, { params: { runId } });
    const { run } = RunResponse.parse(reply.body);
    if (!statuses.includes(run.status)) throw new Error(`run is ${run.status}`);
    return run;
  }, timeoutMs);
}
