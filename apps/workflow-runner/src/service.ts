import { join } from 'node:path';
import type { Logger } from 'pino';
import { ROUTES, WEBHOOK_INFLIGHT_BUCKET, WEBHOOK_INFLIGHT_BUCKET_OPTIONS } from '@wap/contracts';
import { createGuardedFetch, parseAllowlist } from '@wap/egress';
import { type Platform } from '@wap/platform';
import { serveRoutes } from '@wap/bus-protocol';
import type { ServiceHandle } from '@wap/service-runtime';
import { createDirectoryClient } from '@wap/workspace-directory';
import { serveWorkflowApi } from './bus/workflow-api';
import { WorkflowRunnerSettings } from './config';
import { creditHandlers } from './credits/handlers';
import { createCreditLedger } from './credits/ledger';
import { servePaymentGrants } from './credits/payment-grants';
import { createCreditSnapshots } from './credits/snapshots';
import { consumeRunRequests } from './runs/consumer';
import { startRunExecutor } from './runs/executor';
import { startRunHistoryPruner } from './runs/history-pruner';
import { startInflightClaimRefresh } from './runs/inflight-claims';
import { createRunRepository } from './runs/repository';
import { createStepExecutor } from './runs/steps';
import { providerEventHandlers, serveProviderEventTargets } from './provider-events/handlers';
import { createProviderEventsRepository } from './provider-events/repository';
import { createTestEventRepository } from './test-events/repository';
import { consumeWebhookEvents } from './webhook-events/consumer';
import { approvalHandlers } from './approvals/handlers';
import { createApprovalRepository } from './approvals/repository';
import { scheduleHandlers } from './schedules/handlers';
import { createScheduleRepository } from './schedules/repository';
import { startScheduler } from './schedules/scheduler';
import { startApprovalEmails } from './notifications/approval-emails';
import { createMailer } from './notifications/mailer';
import { serveRunOfEvent } from './webhook-events/run-of-event';
import { workflowHandlers } from './workflows/handlers';
import { createModelRequirement } from './workflows/model-requirement';
import { createWorkflowRepository } from './workflows/repository';
import { createWebhookPublisher } from './workflows/webhook-publisher';

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
}): Promise<ServiceHandle> {
  const { platform, logger } = deps;
  const settings = WorkflowRunnerSettings.parse(deps.settings ?? {});
  await platform.sql.migrate({
    schema: 'workflow_runner',
    migrationsFolder: deps.migrationsFolder ?? join(__dirname, '../migrations'),
  });
  const { db } = platform.sql;
  const { clock, ids } = platform;
  const directory = await createDirectoryClient({ kv: platform.kv, logger });
  const ledger = createCreditLedger({ db, clock, ids });
  const snapshots = await createCreditSnapshots({ kv: platform.kv, ledger, logger });
  const workflows = createWorkflowRepository({ db, clock, ids });
  const providerEvents = createProviderEventsRepository({ db, clock, ids });
  const runs = createRunRepository({ db, clock });
  const testEvents = createTestEventRepository({
    db,
    capPerWorkflow: settings.TEST_EVENTS_PER_WORKFLOW,
  });
  const publisher = await createWebhookPublisher({ kv: platform.kv, workflows, logger });
  await publisher.publishAll();
  await snapshots.publishAll();

  const inflight = await platform.kv.bucket(
    WEBHOOK_INFLIGHT_BUCKET,
    WEBHOOK_INFLIGHT_BUCKET_OPTIONS,
  );
  const httpFetch = createGuardedFetch({ allowlist: parseAllowlist(settings.SSRF_ALLOWLIST) });
  const executor = startRunExecutor({
    runs,
    ledger,
    snapshots,
    steps: createStepExecutor({
      bus: platform.bus,
      httpFetch,
      httpTimeoutMs: settings.HTTP_STEP_TIMEOUT_MS,
      maxResponseBytes: settings.HTTP_STEP_MAX_RESPONSE_BYTES,
      busTimeoutMs: settings.STEP_BUS_TIMEOUT_MS,
    }),
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
  const claimRefresh = startInflightClaimRefresh({
    runs,
    inflight,
    ttlMs: WEBHOOK_INFLIGHT_BUCKET_OPTIONS.ttlMs,
    clock,
    logger,
  });
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
  const onRunCreated = () => executor.nudge();
  const requireModelFor = createModelRequirement({ bus: platform.bus });
  const mailer = createMailer({
    smtpUrl: settings.SMTP_URL,
    from: settings.MAIL_FROM,
    dropDir: settings.MAIL_DROP_DIR,
    logger,
  });
  const approvalEmails = startApprovalEmails({
    db,
    bus: platform.bus,
    clock,
    ids,
    mailer,
    logger,
    intervalMs: settings.MAIL_INTERVAL_MS,
    retryBaseMs: settings.MAIL_RETRY_BASE_MS,
    maxAttempts: settings.MAIL_MAX_ATTEMPTS,
    busTimeoutMs: settings.STEP_BUS_TIMEOUT_MS,
    appBaseUrl: settings.PUBLIC_BASE_URL,
  });
  const schedules = createScheduleRepository({ db, clock, runs });
  const scheduler = startScheduler({
    schedules,
    clock,
    logger,
    intervalMs: settings.SCHEDULER_INTERVAL_MS,
    lookaheadMs: settings.SCHEDULER_LOOKAHEAD_MS,
    loop: settings.SCHEDULER_INTERVAL_MS > 0,
    executor,
  });
  const consumers = [
    await consumeWebhookEvents({
      streams: platform.streams,
      objects: platform.objects,
      db,
      testEvents,
      providerEvents,
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
      onRunCreated,
    }),
  ];
  const subscriptions = [
    ...serveRoutes(
      platform.bus,
      ROUTES,
      'workflow-runner',
      {
        ...creditHandlers({ ledger, directory, snapshots }),
        ...providerEventHandlers({ providerEvents, directory }),
        ...scheduleHandlers({ schedules, workflows, publisher, directory }),
        ...approvalHandlers({
          approvals: createApprovalRepository({ db, clock }),
          directory,
          inflight,
          onRunDue: onRunCreated,
        }),
        ...workflowHandlers({
          workflows,
          runs,
          testEvents,
          ledger,
          publisher,
          directory,
          ids,
          publicBaseUrl: settings.PUBLIC_BASE_URL,
          requireModelFor,
          onRunCreated,
        }),
      },
      { queue: 'workflow-runner', logger },
    ),
    servePaymentGrants({ bus: platform.bus, db, clock, directory, snapshots, logger }),
    serveRunOfEvent({ bus: platform.bus, runs, logger }),
    serveProviderEventTargets({ bus: platform.bus, providerEvents, workflows, logger }),
    ...serveWorkflowApi({
      bus: platform.bus,
      streams: platform.streams,
      objects: platform.objects,
      workflows,
      runs,
      ledger,
      clock,
      ids,
      logger,
      requireModelFor,
      onRunCreated,
    }),
  ];
  return {
    stop: async () => {
      await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      await scheduler.stop();
      await approvalEmails.stop();
      mailer.close();
      await executor.stop();
      await claimRefresh.stop();
      await historyPruner?.stop();
      await httpFetch.close();
      await directory.stop();
    },
  };
}
export { WorkflowRunnerEnv, type WorkflowRunnerSettings } from './config';
