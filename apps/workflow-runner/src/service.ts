import { join } from 'node:path';
import type { Logger } from 'pino';
import { ROUTES, WEBHOOK_INFLIGHT_BUCKET, WEBHOOK_INFLIGHT_BUCKET_OPTIONS } from '@wap/contracts';
import { createGuardedFetch, parseAllowlist } from '@wap/egress';
import type { CredentialKeyring } from '@wap/auth';
import { type Platform } from '@wap/platform';
import { serveRoutes } from '@wap/bus-protocol';
import { createPreviousVersions } from './bus/previous-versions';
import type { ServiceHandle } from '@wap/service-runtime';
import { createDirectoryClient } from '@wap/workspace-directory';
import { serveOperatorRetry } from './bus/operator-retry';
import { serveWorkflowApi } from './bus/workflow-api';
import { WorkflowRunnerSettings } from './config';
import { creditHandlers } from './credits/handlers';
import { createCreditLedger } from './credits/ledger';
import { servePaymentGrants } from './credits/payment-grants';
import { createCreditSnapshots } from './credits/snapshots';
import { runBatchHandlers } from './run-batches/handlers';
import { createRunBatchRepository } from './run-batches/repository';
import { startRunBatchWorker } from './run-batches/worker';
import { runControlHandlers, serveRunCancels } from './runs/run-control-handlers';
import { consumeRunRequests } from './runs/consumer';
import { startRunExecutor, type RunExecutor } from './runs/executor';
import { startRunHistoryPruner } from './runs/history-pruner';
import { startInflightClaimRefresh } from './runs/inflight-claims';
import { createRunRepository } from './runs/repository';
import { createStepExecutor } from './runs/steps';
import {
  providerEventHandlers,
  serveProviderConnectionSecret,
  serveProviderEventTargets,
  serveProviderEventTargetsV1,
} from './provider-events/handlers';
import { credentialHandlers } from './credentials/handlers';
import { rewrapSecrets, serveRewrapSecrets } from './credentials/key-rotation';
import { createCredentialRepository } from './credentials/repository';
import { createCredentialResolver } from './credentials/resolver';
import { createProviderEventsRepository } from './provider-events/repository';
import { createTestEventRepository } from './test-events/repository';
import { consumeWebhookEvents } from './webhook-events/consumer';
import { approvalHandlers } from './approvals/handlers';
import { createApprovalRepository } from './approvals/repository';
import { scheduleHandlers } from './schedules/handlers';
import { createScheduleRepository } from './schedules/repository';
import { startScheduler } from './schedules/scheduler';
import { startFailureAlerts } from './notifications/failure-alerts';
import { startApprovalEmails } from './notifications/approval-emails';
import { createMailer } from './notifications/mailer';
import { serveRunOfEvent } from './webhook-events/run-of-event';
import { workflowHandlers } from './workflows/handlers';
import { workflowPermissionHandlers } from './workflows/permission-handlers';
import { createWorkflowAuthority } from './workflows/permissions';
import { createModelRequirement } from './workflows/model-requirement';
import { createWorkflowRepository } from './workflows/repository';
import { workflowVersionHandlers } from './workflows/version-handlers';
import { createVersionRepository } from './workflows/versions';
import { createWebhookPublisher } from './workflows/webhook-publisher';

interface RunnerContext {
  platform: Platform;
  logger: Logger;
  settings: WorkflowRunnerSettings;
  /** Seals and opens connections' signing secrets (mcp-registry's keys: decision 151). */
  keyring: CredentialKeyring;
}

/** The runner's tables and KV views, each behind the repository or client that owns it. */
async function openStores({ platform, logger, settings }: RunnerContext) {
  const { db } = platform.sql;
  const { clock, ids } = platform;
  const directory = await createDirectoryClient({ kv: platform.kv, logger });
  const ledger = createCreditLedger({ db, clock, ids });
  const snapshots = await createCreditSnapshots({ kv: platform.kv, ledger, logger });
  const workflows = createWorkflowRepository({ db, clock, ids });
  const runs = createRunRepository({ db, clock });
  const publisher = await createWebhookPublisher({ kv: platform.kv, workflows, logger });
  await publisher.publishAll();
  await snapshots.publishAll();
  return {
    directory,
    authority: createWorkflowAuthority({ db, clock, directory }),
    ledger,
    snapshots,
    workflows,
    versions: createVersionRepository(db),
    runs,
    batches: createRunBatchRepository({ db, clock }),
    publisher,
    providerEvents: createProviderEventsRepository({ db, clock, ids }),
    credentials: createCredentialRepository({ db, clock, ids }),
    testEvents: createTestEventRepository({
      db,
      capPerWorkflow: settings.TEST_EVENTS_PER_WORKFLOW,
    }),
    schedules: createScheduleRepository({ db, clock, runs }),
    approvals: createApprovalRepository({ db, clock }),
    inflight: await platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET, WEBHOOK_INFLIGHT_BUCKET_OPTIONS),
  };
}
type RunnerStores = Awaited<ReturnType<typeof openStores>>;

/** The executor and the loops beside it: claim refresh, history pruning, the scheduler. */
function startRunWork(
  { platform, logger, settings, keyring }: RunnerContext,
  stores: RunnerStores,
) {
  const { clock, ids } = platform;
  const { runs, inflight } = stores;
  const httpFetch = createGuardedFetch({
    allowlist: parseAllowlist(settings.HTTP_STEP_SSRF_ALLOWLIST ?? settings.SSRF_ALLOWLIST),
  });
  const executor = startRunExecutor({
    runs,
    ledger: stores.ledger,
    snapshots: stores.snapshots,
    steps: createStepExecutor({
      bus: platform.bus,
      httpFetch,
      httpTimeoutMs: settings.HTTP_STEP_TIMEOUT_MS,
      maxResponseBytes: settings.HTTP_STEP_MAX_RESPONSE_BYTES,
      busTimeoutMs: settings.STEP_BUS_TIMEOUT_MS,
    }),
    credentials: createCredentialResolver({ credentials: stores.credentials, keyring }),
    workflows: stores.workflows,
    maxDescendantRuns: settings.RUN_MAX_DESCENDANTS,
    inflight,
    clock,
    ids,
    logger,
    config: {
      concurrency: settings.RUN_CONCURRENCY,
      pollIntervalMs: settings.RUN_POLL_INTERVAL_MS,
      leaseMs: settings.RUN_LEASE_MS,
    },
  });
  const ttlMs = WEBHOOK_INFLIGHT_BUCKET_OPTIONS.ttlMs;
  const claimRefresh = startInflightClaimRefresh({ runs, inflight, ttlMs, clock, logger });
  const historyPruner =
    settings.RUN_HISTORY_DAYS > 0
      ? startRunHistoryPruner({
          runs,
          keepDays: settings.RUN_HISTORY_DAYS,
          intervalMs: settings.RUN_HISTORY_PRUNE_INTERVAL_MS,
          clock,
          logger,
        })
      : null;
  const scheduler = startScheduler({
    schedules: stores.schedules,
    clock,
    logger,
    intervalMs: settings.SCHEDULER_INTERVAL_MS,
    lookaheadMs: settings.SCHEDULER_LOOKAHEAD_MS,
    loop: settings.SCHEDULER_INTERVAL_MS > 0,
    executor,
  });
  const batchWorker = startRunBatchWorker({
    ...stores,
    bus: platform.bus,
    clock,
    ids,
    logger,
    pace: {
      intervalMs: settings.RUN_BATCH_INTERVAL_MS,
      replaysPerPass: settings.RUN_BATCH_REPLAYS_PER_PASS,
      cancelsPerPass: settings.RUN_BATCH_CANCELS_PER_PASS,
    },
    onRunCreated: () => executor.nudge(),
  });
  return {
    executor,
    batchWorker,
    stop: async () => {
      await batchWorker.stop();
      await scheduler.stop();
      await executor.stop();
      await claimRefresh.stop();
      await historyPruner?.stop();
      await httpFetch.close();
    },
  };
}

function startMail({ platform, logger, settings }: RunnerContext) {
  const mailer = createMailer({
    smtpUrl: settings.SMTP_URL,
    from: settings.MAIL_FROM,
    dropDir: settings.MAIL_DROP_DIR,
    logger,
  });
  const approvalEmails = startApprovalEmails({
    db: platform.sql.db,
    bus: platform.bus,
    clock: platform.clock,
    ids: platform.ids,
    mailer,
    logger,
    intervalMs: settings.MAIL_INTERVAL_MS,
    retryBaseMs: settings.MAIL_RETRY_BASE_MS,
    maxAttempts: settings.MAIL_MAX_ATTEMPTS,
    busTimeoutMs: settings.STEP_BUS_TIMEOUT_MS,
    appBaseUrl: settings.PUBLIC_BASE_URL,
  });
  const failureAlerts = startFailureAlerts({
    db: platform.sql.db,
    bus: platform.bus,
    clock: platform.clock,
    ids: platform.ids,
    mailer,
    logger,
    intervalMs: settings.FAILURE_ALERTS_INTERVAL_MS,
    retryBaseMs: settings.MAIL_RETRY_BASE_MS,
    maxAttempts: settings.MAIL_MAX_ATTEMPTS,
    busTimeoutMs: settings.STEP_BUS_TIMEOUT_MS,
    appBaseUrl: settings.PUBLIC_BASE_URL,
  });
  return {
    stop: async () => {
      await approvalEmails.stop();
      await failureAlerts.stop();
      mailer.close();
    },
  };
}

async function consumeStreams(
  { platform, logger, settings }: RunnerContext,
  stores: RunnerStores,
  executor: RunExecutor,
) {
  const { runs, workflows } = stores;
  return [
    await consumeWebhookEvents({
      streams: platform.streams,
      objects: platform.objects,
      db: platform.sql.db,
      testEvents: stores.testEvents,
      providerEvents: stores.providerEvents,
      runs,
      workflows,
      logger,
      members: settings.EVENTS_CONSUMER_MEMBERS,
      pruneIntervalMs: settings.TEST_EVENTS_PRUNE_INTERVAL_MS,
      executor,
    }),
    await consumeRunRequests({
      streams: platform.streams,
      runs,
      workflows,
      logger,
      members: settings.RUNS_CONSUMER_MEMBERS,
      onRunCreated: () => executor.nudge(),
    }),
  ];
}

function serveSubjects(
  { platform, logger, settings, keyring }: RunnerContext,
  stores: RunnerStores,
  { executor, batchWorker }: Pick<ReturnType<typeof startRunWork>, 'executor' | 'batchWorker'>,
) {
  const { bus, clock, ids } = platform;
  const { directory, authority, ledger, snapshots, workflows, runs, publisher, inflight } = stores;
  const onRunCreated = () => executor.nudge();
  const requireModelFor = createModelRequirement({ bus });
  const routeHandlers = {
    ...creditHandlers({ ledger, directory, snapshots }),
    ...providerEventHandlers({
      providerEvents: stores.providerEvents,
      directory,
      keyring,
      clock,
      ids,
      connectAttemptsPerHour: settings.PROVIDER_CONNECT_ATTEMPTS_PER_HOUR,
    }),
    ...scheduleHandlers({ schedules: stores.schedules, workflows, publisher, authority }),
    ...workflowPermissionHandlers({ authority, directory }),
    ...credentialHandlers({ credentials: stores.credentials, directory, keyring }),
    ...approvalHandlers({
      approvals: stores.approvals,
      directory,
      inflight,
      onRunDue: onRunCreated,
    }),
    ...runControlHandlers({ ...stores, bus, ids, logger, onRunCreated }),
    ...runBatchHandlers({ ...stores, ids, logger, onBatchCreated: () => batchWorker.nudge() }),
    ...workflowVersionHandlers({ workflows, versions: stores.versions, authority }),
    ...workflowHandlers({
      workflows,
      versions: stores.versions,
      runs,
      testEvents: stores.testEvents,
      ledger,
      publisher,
      directory,
      authority,
      ids,
      clock,
      publicBaseUrl: settings.PUBLIC_BASE_URL,
      requireModelFor,
      onRunCreated,
    }),
  };
  const { db } = platform.sql;
  return [
    ...serveRoutes(bus, ROUTES, 'workflow-runner', routeHandlers, {
      queue: 'workflow-runner',
      logger,
      asPreviousVersion: createPreviousVersions({ workflows }),
    }),
    servePaymentGrants({ bus, db, clock, directory, snapshots, logger }),
    serveRunOfEvent({ bus, runs, logger }),
    serveRunCancels({ bus, executor, logger }),
    serveProviderConnectionSecret({ bus, providerEvents: stores.providerEvents, keyring, logger }),
    serveProviderEventTargets({ bus, providerEvents: stores.providerEvents, workflows, logger }),
    serveProviderEventTargetsV1({ bus, logger }),
    serveRewrapSecrets({ bus, ...stores, keyring, logger }),
    serveOperatorRetry({ bus, runs, workflows, ledger, ids, logger, onRunCreated }),
    ...serveWorkflowApi({
      bus,
      streams: platform.streams,
      objects: platform.objects,
      workflows,
      authority,
      runs,
      ledger,
      clock,
      ids,
      logger,
      requireModelFor,
      onRunCreated,
    }),
  ];
}

/**
 * Composes the workflow runner: credit ledger, workflows and their webhook addresses, test
 * events and the runs they start (consumers of WEBHOOK_EVENTS and RUNS, scheduler table, executor) and the MCP server's bus API.
 */
export async function startWorkflowRunnerService(deps: {
  platform: Platform;
  logger: Logger;
  migrationsFolder?: string;
  /** The runner's settings; any left out take their defaults (see config.ts). */
  settings?: Partial<WorkflowRunnerSettings>;
  keyring: CredentialKeyring;
}): Promise<ServiceHandle> {
  const { platform, logger, keyring } = deps;
  const settings = WorkflowRunnerSettings.parse(deps.settings ?? {});
  const context = { platform, logger, settings, keyring };
  await platform.sql.migrate({
    schema: 'workflow_runner',
    migrationsFolder: deps.migrationsFolder ?? join(__dirname, '../migrations'),
  });
  const stores = await openStores(context);
  await rewrapSecrets({ ...stores, keyring, logger });
  const runWork = startRunWork(context, stores);
  const mail = startMail(context);
  const consumers = await consumeStreams(context, stores, runWork.executor);
  const subscriptions = serveSubjects(context, stores, runWork);
  return {
    stop: async () => {
      await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      await mail.stop();
      await runWork.stop();
      await stores.directory.stop();
    },
  };
}
export { WorkflowRunnerEnv, type WorkflowRunnerSettings } from './config';
