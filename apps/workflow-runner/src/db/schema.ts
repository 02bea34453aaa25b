import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** The runner's own PostgreSQL schema; no other service reads it. */
export const workflowRunnerSchema = pgSchema('workflow_runner');

/**
 * The credit ledger: one row per grant, correction, charge or refund; a workspace's balance is
 * the sum of its rows. Rows are never updated, so the history explains every balance.
 */
export const creditLedger = workflowRunnerSchema.table(
  'credit_ledger',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    kind: text('kind').notNull(),
    reason: text('reason').notNull(),
    createdBy: uuid('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    /**
     * A charge's or refund's run and step: a step is charged once, however often a crashed run
     * resumes, and refunded at most once (decision 127).
     */
    runId: uuid('run_id'),
    stepIndex: integer('step_index'),
  },
  (table) => [
    index('credit_ledger_workspace_idx').on(table.workspaceId),
    uniqueIndex('credit_ledger_run_step_kind_idx').on(table.runId, table.stepIndex, table.kind),
    check(
      'credit_ledger_kind_check',
      sql`${table.kind} in ('grant', 'correction', 'charge', 'refund')`,
    ),
  ],
);

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Workflows. `webhook_id` is the Custom Webhook trigger's address (null: no trigger); a deleted
 * workflow keeps its row (`deleted_at`) so that its runs stay readable.
 */
export const workflows = workflowRunnerSchema.table(
  'workflows',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    name: text('name').notNull(),
    status: text('status').notNull(),
    webhookId: uuid('webhook_id').unique(),
    customResponse: jsonb('custom_response'),
    /** The provider events that also start it through its address (decision 132), or null. */
    providerEvents: jsonb('provider_events'),
    steps: jsonb('steps').notNull(),
    runningHours: jsonb('running_hours'),
    queueOutsideWindow: boolean('queue_outside_window').notNull(),
    stopOnNodeFailure: boolean('stop_on_node_failure').notNull(),
    creditCost: integer('credit_cost').notNull(),
    lastTestRunAt: timestamptz('last_test_run_at'),
    createdBy: uuid('created_by').notNull(),
    /** Who answers for it: the creator until handed over. */
    ownerId: uuid('owner_id').notNull(),
    /** Whose access its runs use: who last saved its trigger or steps, or adopted it (decision 147). */
    runsAs: uuid('runs_as').notNull(),
    /** Emails about failed runs (decision 160), or null. */
    failureAlerts: jsonb('failure_alerts'),
    /** Failed runs that ended before this were told of, or fell before the alerts were on. */
    alertedThrough: timestamptz('alerted_through'),
    lastAlertAt: timestamptz('last_alert_at'),
    /** The newest of its versions (decision 163): what the editor shows and Run runs. */
    version: integer('version').notNull().default(1),
    /** The version live traffic runs, set by Set live; null until it first goes live. */
    liveVersion: integer('live_version'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
    deletedAt: timestamptz('deleted_at'),
  },
  (table) => [
    index('workflows_workspace_idx').on(table.workspaceId, table.createdAt),
    index('workflows_failure_alerts_idx')
      .on(table.lastAlertAt)
      .where(sql`${table.failureAlerts} is not null and ${table.deletedAt} is null`),
    check('workflows_status_check', sql`${table.status} in ('draft', 'live')`),
  ],
);

/**
 * Every saved state of a workflow's definition, never changed once written (decision 163): what
 * its runs do (name, trigger, steps, run settings), who saved it, when and what changed.
 */
export const workflowVersions = workflowRunnerSchema.table(
  'workflow_versions',
  {
    workflowId: uuid('workflow_id').notNull(),
    number: integer('number').notNull(),
    workspaceId: uuid('workspace_id').notNull(),
    definition: jsonb('definition').notNull(),
    creditCost: integer('credit_cost').notNull(),
    authorId: uuid('author_id').notNull(),
    /** What differs from the version before it, as a person reads it. */
    changes: jsonb('changes').notNull(),
    restoredFrom: integer('restored_from'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.workflowId, table.number] })],
);

/** Who may do what with a workspace's workflows; a workspace without a row has the defaults. */
export const workflowPermissions = workflowRunnerSchema.table('workflow_permissions', {
  workspaceId: uuid('workspace_id').primaryKey(),
  permissions: jsonb('permissions').notNull(),
  updatedBy: uuid('updated_by').notNull(),
  updatedAt: timestamptz('updated_at').notNull(),
});

/** Webhook requests kept per workflow (newest first, capped): the events a Run can use. */
export const testEvents = workflowRunnerSchema.table(
  'test_events',
  {
    id: uuid('id').primaryKey(),
    workflowId: uuid('workflow_id').notNull(),
    workspaceId: uuid('workspace_id').notNull(),
    webhookId: uuid('webhook_id').notNull(),
    receivedAt: timestamptz('received_at').notNull(),
    body: jsonb('body'),
    headers: jsonb('headers').notNull(),
  },
  (table) => [index('test_events_workflow_idx').on(table.workflowId, table.receivedAt)],
);

/**
 * Runs, which are also the scheduler's table: a run is due when `wake_at` has passed and no
 * live lease holds it; a replica that dies mid-run lets its lease lapse and another resumes.
 */
export const runs = workflowRunnerSchema.table(
  'runs',
  {
    id: uuid('id').primaryKey(),
    workflowId: uuid('workflow_id').notNull(),
    workspaceId: uuid('workspace_id').notNull(),
    status: text('status').notNull(),
    triggerType: text('trigger_type').notNull(),
    eventId: uuid('event_id'),
    testEventId: uuid('test_event_id'),
    keyId: uuid('key_id'),
    input: jsonb('input'),
    /** The user the run acts for: the workflow's `runs_as` when the run was created. */
    actingUserId: uuid('acting_user_id').notNull(),
    stopOnNodeFailure: boolean('stop_on_node_failure').notNull(),
    creditCost: integer('credit_cost').notNull(),
    creditsCharged: integer('credits_charged').notNull().default(0),
    inflightKey: text('inflight_key'),
    error: text('error'),
    notBefore: timestamptz('not_before'),
    /** When the scheduler should next look at the run; null while it waits for an approval or has ended. */
    wakeAt: timestamptz('wake_at'),
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamptz('lease_until'),
    createdAt: timestamptz('created_at').notNull(),
    startedAt: timestamptz('started_at'),
    finishedAt: timestamptz('finished_at'),
    /** W3C traceparent of what asked for the run: its execution, on any replica, continues that trace. */
    traceparent: text('traceparent'),
    /** The run whose failed step started this one (`onFailure: run_workflow`). */
    failedRunId: uuid('failed_run_id'),
    /** A cancel was asked for while a runner executed the run: that runner stops it. */
    cancelRequestedAt: timestamptz('cancel_requested_at'),
    /** The run this one retries; its attempt is one more than that run's. */
    retryOf: uuid('retry_of'),
    attempt: integer('attempt').notNull().default(1),
    /** The version of its workflow it runs; null for runs made before versions were kept. */
    workflowVersion: integer('workflow_version'),
    /**
     * The run whose step waits for this one: a loop's iteration (`iteration` set) or a called
     * workflow's run; null for a run nothing waits for.
     */
    parentRunId: uuid('parent_run_id'),
    parentStepIndex: integer('parent_step_index'),
    /** The item of the parent's for_each this run is for, from 0. */
    iteration: integer('iteration'),
    /** 0 for a run started from outside; one more than its parent's for a loop's or call's. */
    depth: integer('depth').notNull().default(0),
    /** The run started from outside that this one descends from; null for that run itself. */
    rootRunId: uuid('root_run_id'),
    /** On a root run: how many runs its loops and calls started, all levels counted. */
    descendantRuns: integer('descendant_runs').notNull().default(0),
  },
  (table) => [
    index('runs_workflow_idx').on(table.workflowId, table.createdAt),
    // A run's page lists its retries.
    index('runs_retry_of_idx')
      .on(table.retryOf)
      .where(sql`${table.retryOf} is not null`),
    // A page of one status (the runs list's filter) without reading the other statuses' runs.
    index('runs_workflow_status_idx').on(
      table.workflowId,
      table.status,
      table.createdAt.desc(),
      table.id.desc(),
    ),
    // A page or a count of one trigger and status (the runs list's filters) without reading
    // the runs of other triggers.
    index('runs_workflow_trigger_status_idx').on(
      table.workflowId,
      table.triggerType,
      table.status,
      table.createdAt.desc(),
      table.id.desc(),
    ),
    // Only runs the scheduler may wake: ended runs leave it, so it holds the runs in flight,
    // not the whole history.
    index('runs_due_idx')
      .on(table.wakeAt)
      .where(sql`${table.wakeAt} is not null`),
    index('runs_event_idx').on(table.eventId),
    // A waiting for_each or call reads its runs; a run that ends wakes its parent.
    uniqueIndex('runs_parent_idx')
      .on(table.parentRunId, table.parentStepIndex, table.iteration)
      .where(sql`${table.parentRunId} is not null`),
    // A workflow's failed runs by when they ended: what a failure alert counts.
    index('runs_failed_finished_idx')
      .on(table.workflowId, table.finishedAt)
      .where(sql`${table.status} = 'failed'`),
    // The runs whose in-flight claim the claim refresh rewrites: few at any time, found without
    // reading the run history each pass.
    index('runs_holding_claims_idx')
      .on(table.id)
      .where(
        sql`${table.inflightKey} is not null and ${table.status} not in ('succeeded', 'failed', 'cancelled')`,
      ),
    check(
      'runs_status_check',
      sql`${table.status} in ('queued', 'running', 'waiting_approval', 'succeeded', 'failed', 'cancelled')`,
    ),
  ],
);

/** One row per step of a run, written as the run goes: the steps of the workflow as the run began. */
export const runSteps = workflowRunnerSchema.table(
  'run_steps',
  {
    runId: uuid('run_id').notNull(),
    stepIndex: integer('step_index').notNull(),
    name: text('name').notNull(),
    type: text('type').notNull(),
    /** The step's settings as they were when the run was created (templates unfilled). */
    settings: jsonb('settings').notNull(),
    status: text('status').notNull(),
    input: jsonb('input'),
    output: jsonb('output'),
    error: text('error'),
    creditsCharged: integer('credits_charged').notNull().default(0),
    /** A delay step's end, or when the next attempt of a step that is retried is due. */
    resumeAt: timestamptz('resume_at'),
    startedAt: timestamptz('started_at'),
    finishedAt: timestamptz('finished_at'),
    durationMs: integer('duration_ms'),
    /** The step's `retry`, `timeoutMs` and `onFailure` as they were when the run was created. */
    policy: jsonb('policy'),
    /** The attempt started last (1-based); 0 before the first. */
    attempt: integer('attempt').notNull().default(0),
    /** Every attempt that ended, oldest first (`StoredAttempt`). */
    attempts: jsonb('attempts').notNull().default([]),
    /** An attempt was cut off by a crash of the runner and made again. */
    resumed: boolean('resumed').notNull().default(false),
    /** The if or switch step whose branch holds this one; null at the top of the workflow. */
    parentIndex: integer('parent_index'),
    /** That branch: `then`, `else`, `case:<n>` or `default`. */
    branch: text('branch'),
  },
  (table) => [primaryKey({ columns: [table.runId, table.stepIndex] })],
);

/**
 * The approval a run's approval step waits for: one per step, shared by its reviewers; the first
 * decision wins (decision 72).
 */
export const approvals = workflowRunnerSchema.table(
  'approvals',
  {
    id: uuid('id').primaryKey(),
    runId: uuid('run_id').notNull(),
    stepIndex: integer('step_index').notNull(),
    workspaceId: uuid('workspace_id').notNull(),
    reviewerIds: jsonb('reviewer_ids').notNull(),
    message: text('message'),
    status: text('status').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    decidedBy: uuid('decided_by'),
    decidedAt: timestamptz('decided_at'),
    comment: text('comment'),
    /** When its reviewers' emails were queued (or found not wanted); null until then. */
    notifiedAt: timestamptz('notified_at'),
  },
  (table) => [
    uniqueIndex('approvals_run_step_idx').on(table.runId, table.stepIndex),
    index('approvals_pending_workspace_idx')
      .on(table.workspaceId, table.createdAt)
      .where(sql`${table.status} = 'pending'`),
    index('approvals_unnotified_idx')
      .on(table.createdAt)
      .where(sql`${table.notifiedAt} is null`),
  ],
);

/**
 * A workflow's schedule (spec endpoint 9; decisions 70 and 71). `next_fire_at` is the next fire
 * the scheduler owes, null while disabled; `queue_outside_window` and `stop_on_node_failure`
 * live on the workflow, one value with its settings.
 */
export const workflowSchedules = workflowRunnerSchema.table(
  'workflow_schedules',
  {
    workflowId: uuid('workflow_id').primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    isEnabled: boolean('is_enabled').notNull(),
    timezone: text('timezone').notNull(),
    scheduleType: text('schedule_type').notNull(),
    cronExpression: text('cron_expression'),
    intervalMinutes: integer('interval_minutes'),
    maxRunsPerDay: integer('max_runs_per_day'),
    /** Interval schedules fire at `anchor_at` plus whole intervals: when it was saved. */
    anchorAt: timestamptz('anchor_at').notNull(),
    nextFireAt: timestamptz('next_fire_at'),
    /** The local day (YYYY-MM-DD in `timezone`) that `runs_on_day` counts. */
    runsDay: text('runs_day'),
    runsOnDay: integer('runs_on_day').notNull().default(0),
    lastRunId: uuid('last_run_id'),
    /** Scheduled runs in a row that may fail before it pauses itself; null: never. */
    pauseAfterFailures: integer('pause_after_failures'),
    /** Failures in a row are counted among runs created from here: its last save. */
    failuresCountedFrom: timestamptz('failures_counted_from').notNull().defaultNow(),
    pausedAt: timestamptz('paused_at'),
    pausedReason: text('paused_reason'),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('workflow_schedules_due_idx')
      .on(table.nextFireAt)
      .where(sql`${table.isEnabled} and ${table.nextFireAt} is not null`),
    check('workflow_schedules_type_check', sql`${table.scheduleType} in ('cron', 'interval')`),
  ],
);

/** What became of each fire: one row per schedule and fire time, so a fire is decided once. */
export const scheduleFires = workflowRunnerSchema.table(
  'schedule_fires',
  {
    workflowId: uuid('workflow_id').notNull(),
    fireAt: timestamptz('fire_at').notNull(),
    outcome: text('outcome').notNull(),
    runId: uuid('run_id'),
    detail: text('detail'),
    missedBefore: integer('missed_before').notNull().default(0),
    recordedAt: timestamptz('recorded_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.workflowId, table.fireAt] })],
);

/**
 * The outbox of approval emails (decision 73): one row per approval and reviewer, written when
 * the approval's recipients are resolved, sent with retries until `sent` or `failed`.
 */
export const approvalEmails = workflowRunnerSchema.table(
  'approval_emails',
  {
    id: uuid('id').primaryKey(),
    approvalId: uuid('approval_id').notNull(),
    userId: uuid('user_id').notNull(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** When the sender may next try; a sender holding it moves it on first (its lease). */
    nextAttemptAt: timestamptz('next_attempt_at').notNull(),
    lastError: text('last_error'),
    createdAt: timestamptz('created_at').notNull(),
    sentAt: timestamptz('sent_at'),
  },
  (table) => [
    uniqueIndex('approval_emails_approval_user_idx').on(table.approvalId, table.userId),
    index('approval_emails_due_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    check('approval_emails_status_check', sql`${table.status} in ('pending', 'sent', 'failed')`),
  ],
);

/**
 * The outbox of failure alerts (decision 160): one row per workflow, alert and recipient, written
 * with the alert in one transaction, sent as approval emails are.
 */
export const failureAlertEmails = workflowRunnerSchema.table(
  'failure_alert_emails',
  {
    id: uuid('id').primaryKey(),
    workflowId: uuid('workflow_id').notNull(),
    /** The end of the failures the alert counts: one alert per workflow and end. */
    alertedThrough: timestamptz('alerted_through').notNull(),
    userId: uuid('user_id').notNull(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull(),
    lastError: text('last_error'),
    createdAt: timestamptz('created_at').notNull(),
    sentAt: timestamptz('sent_at'),
  },
  (table) => [
    uniqueIndex('failure_alert_emails_alert_user_idx').on(
      table.workflowId,
      table.alertedThrough,
      table.userId,
    ),
    index('failure_alert_emails_due_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    check(
      'failure_alert_emails_status_check',
      sql`${table.status} in ('pending', 'sent', 'failed')`,
    ),
  ],
);

/**
 * Provider accounts a workspace connected (decision 132): a verified delivery naming the account
 * goes to that workspace's workflows. An account belongs to one workspace at a time.
 */
export const providerAccounts = workflowRunnerSchema.table(
  'provider_accounts',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    provider: text('provider').notNull(),
    accountId: text('account_id').notNull(),
    label: text('label').notNull(),
    createdBy: uuid('created_by').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    /**
     * The webhook's signing secret at the provider, sealed with CREDENTIALS_ENCRYPTION_KEYS;
     * null on connections made before there were secrets: they receive nothing until one is set.
     */
    signingSecretSealed: text('signing_secret_sealed'),
    /** When a delivery first held with the connection's secret (decision 151). */
    provenAt: timestamptz('proven_at'),
  },
  (table) => [
    // Several workspaces may claim one account: only a proven claim keeps others out.
    uniqueIndex('provider_accounts_workspace_account_idx').on(
      table.workspaceId,
      table.provider,
      table.accountId,
    ),
    index('provider_accounts_account_idx').on(table.provider, table.accountId),
    index('provider_accounts_workspace_idx').on(table.workspaceId, table.createdAt),
  ],
);

/** Every attempt to connect a provider account, refused ones too: the per-workspace rate limit. */
export const providerConnectionAttempts = workflowRunnerSchema.table(
  'provider_connection_attempts',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    attemptedAt: timestamptz('attempted_at').notNull(),
  },
  (table) => [index('provider_connection_attempts_idx').on(table.workspaceId, table.attemptedAt)],
);

/** Each provider delivery as first received, once per delivery id: the deliveries view. */
export const providerDeliveries = workflowRunnerSchema.table(
  'provider_deliveries',
  {
    id: uuid('id').primaryKey(),
    provider: text('provider').notNull(),
    deliveryId: text('delivery_id').notNull(),
    event: text('event').notNull(),
    /** The connected account it named, or null when it named none. */
    accountId: text('account_id'),
    workspaceId: uuid('workspace_id'),
    receivedAt: timestamptz('received_at').notNull(),
  },
  (table) => [
    uniqueIndex('provider_deliveries_delivery_idx').on(table.provider, table.deliveryId),
    index('provider_deliveries_workspace_idx').on(
      table.workspaceId,
      table.receivedAt.desc(),
      table.id.desc(),
    ),
  ],
);

/**
 * The test events a delivery became, one per workflow it reached (a repeat too): written with
 * the test event, kept when the test event is pruned; the run it started has the same event id.
 */
export const providerDeliveryEvents = workflowRunnerSchema.table(
  'provider_delivery_events',
  {
    eventId: uuid('event_id').primaryKey(),
    provider: text('provider').notNull(),
    deliveryId: text('delivery_id').notNull(),
    workflowId: uuid('workflow_id').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [index('provider_delivery_events_delivery_idx').on(table.provider, table.deliveryId)],
);

/**
 * Workspace credentials (decision 152): named secrets for http_request steps, sealed with
 * CREDENTIALS_ENCRYPTION_KEYS for `workspace-credential/<workspace>/<id>`; never returned.
 */
export const workspaceCredentials = workflowRunnerSchema.table(
  'workspace_credentials',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    name: text('name').notNull(),
    /** `creator_only` or `workspace`: whose runs may use it. */
    access: text('access').notNull(),
    sealedValue: text('sealed_value').notNull(),
    createdBy: uuid('created_by').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    updatedBy: uuid('updated_by').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [uniqueIndex('workspace_credentials_name_idx').on(table.workspaceId, table.name)],
);

/**
 * Replays and bulk cancels (decision 159): the runs (or test events) a filter chose when the
 * batch was asked for, worked through by whichever runner holds its lease.
 */
export const runBatches = workflowRunnerSchema.table(
  'run_batches',
  {
    id: uuid('id').primaryKey(),
    workflowId: uuid('workflow_id').notNull(),
    workspaceId: uuid('workspace_id').notNull(),
    kind: text('kind').notNull(),
    source: text('source').notNull(),
    filter: jsonb('filter').notNull(),
    retryFrom: text('retry_from'),
    status: text('status').notNull(),
    error: text('error'),
    total: integer('total').notNull(),
    moreMatched: boolean('more_matched').notNull(),
    requestedBy: uuid('requested_by').notNull(),
    /** The caller's key: a request sent again with it answers this batch. */
    requestKey: text('request_key'),
    createdAt: timestamptz('created_at').notNull(),
    finishedAt: timestamptz('finished_at'),
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamptz('lease_until'),
  },
  (table) => [
    index('run_batches_workflow_idx').on(table.workflowId, table.createdAt.desc()),
    uniqueIndex('run_batches_request_key_idx')
      .on(table.workflowId, table.requestKey)
      .where(sql`${table.requestKey} is not null`),
    // The batches a runner may work on: few at any time.
    index('run_batches_running_idx')
      .on(table.createdAt)
      .where(sql`${table.status} = 'running'`),
    check('run_batches_kind_check', sql`${table.kind} in ('replay', 'cancel')`),
  ],
);

/** One run (or test event) of a batch, in the order the batch takes them. */
export const runBatchItems = workflowRunnerSchema.table(
  'run_batch_items',
  {
    batchId: uuid('batch_id').notNull(),
    position: integer('position').notNull(),
    sourceId: uuid('source_id').notNull(),
    status: text('status').notNull(),
    runId: uuid('run_id'),
    error: text('error'),
  },
  (table) => [
    primaryKey({ columns: [table.batchId, table.position] }),
    // A source is taken once per batch, whatever retries the request or its worker needed.
    uniqueIndex('run_batch_items_source_idx').on(table.batchId, table.sourceId),
  ],
);
