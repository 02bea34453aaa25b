import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { BUS_APIS, FailureAlerts } from '@wap/contracts';
import { callApi } from '@wap/bus-protocol';
import type { Bus, IdSource } from '@wap/platform';
import { failureAlertEmails, runs, workflowSchedules, workflows } from '../db/schema';
import { startPeriodicPasses } from '../runs/periodic-passes';
import { sendDueEmails, type EmailSendDeps } from './email-outbox';

/** Workflows alerted, and schedules paused, per pass. */
const BATCH = 50;
/**
 * Failed runs that ended this recently wait for the next alert: a run's end is stamped before
 * its transaction commits, so one still committing is not skipped by a window that closed.
 */
const SETTLE_MS = 10_000;

export interface FailureAlertDeps extends EmailSendDeps {
  bus: Bus;
  ids: IdSource;
  intervalMs: number;
  busTimeoutMs: number;
  /** Origin of the web app, where the email's links point. */
  appBaseUrl: string;
}

const PausedSchedules = z.object({
  rows: z.array(z.object({ workflow_id: z.string(), paused_reason: z.string() })),
});

/**
 * Pauses each enabled schedule whose last `pause_after_failures` ended scheduled runs since its
 * last save all failed (decision 160), saying why. The schedule's save resets the count; a save
 * racing the pause wins (the update checks the count's start is unchanged).
 */
export async function pauseFailingSchedules(deps: FailureAlertDeps): Promise<void> {
  const now = deps.clock.now().toISOString();
  const { rows } = PausedSchedules.parse(
    await deps.db.execute(sql`
      update ${workflowSchedules} as s
      set is_enabled = false, next_fire_at = null, paused_at = ${now}::timestamptz,
        paused_reason = 'Paused after ' || c.pause_after_failures
          || ' scheduled runs in a row failed. The newest error: '
          || coalesce(c.newest_error, 'none recorded')
      from (
        select sc.workflow_id, sc.pause_after_failures, sc.failures_counted_from, recent.failed,
          recent.newest_error
        from ${workflowSchedules} as sc
        join ${runs} as last_run on last_run.id = sc.last_run_id and last_run.status = 'failed'
        cross join lateral (
          select count(*) filter (where r.status = 'failed') as failed,
            (array_agg(r.error order by r.created_at desc))[1] as newest_error
          from (
            select status, error, created_at from ${runs} as r
            where r.workflow_id = sc.workflow_id and r.trigger_type = 'schedule'
              and r.created_at >= sc.failures_counted_from
              and r.status in ('succeeded', 'failed', 'cancelled')
            order by r.created_at desc limit sc.pause_after_failures
          ) as r
        ) as recent
        where sc.is_enabled and sc.pause_after_failures is not null
          and recent.failed = sc.pause_after_failures
        limit ${BATCH}
      ) as c
      where s.workflow_id = c.workflow_id and s.is_enabled
        and s.failures_counted_from = c.failures_counted_from
      returning s.workflow_id, s.paused_reason`),
  );
  for (const row of rows) {
    deps.logger.warn(
      { workflowId: row.workflow_id, reason: row.paused_reason },
      'schedule paused after failed runs',
    );
  }
}

const AlertCandidates = z.object({
  rows: z.array(
    z.object({
      id: z.string(),
      workspace_id: z.string(),
      name: z.string(),
      owner_id: z.string(),
      failure_alerts: z.unknown(),
      last_alert_at: z.coerce.date().nullable(),
    }),
  ),
});

/**
 * Workflows with something to tell: alerts on, and failed runs not yet told of once the interval
 * since the last alert has passed, or a schedule that paused itself since then.
 */
async function alertCandidates(deps: FailureAlertDeps, now: Date, windowEnd: Date) {
  const { rows } = AlertCandidates.parse(
    await deps.db.execute(sql`
      select w.id, w.workspace_id, w.name, w.owner_id, w.failure_alerts, w.last_alert_at
      from ${workflows} as w
      left join ${workflowSchedules} as s on s.workflow_id = w.id
      where w.failure_alerts is not null and w.deleted_at is null
        and (w.failure_alerts ->> 'enabled')::boolean
        and ((
          (w.last_alert_at is null or w.last_alert_at
            + make_interval(mins => (w.failure_alerts ->> 'intervalMinutes')::int)
            <= ${now.toISOString()}::timestamptz)
          and exists (select 1 from ${runs} as r where r.workflow_id = w.id
            and r.status = 'failed' and r.trigger_type <> 'for_each'
            and r.finished_at > coalesce(w.alerted_through, '-infinity'::timestamptz)
            and r.finished_at <= ${windowEnd.toISOString()}::timestamptz)
        ) or s.paused_at > coalesce(w.last_alert_at, '-infinity'::timestamptz))
      order by w.last_alert_at nulls first
      limit ${BATCH}`),
  );
  return rows;
}

type Candidate = Awaited<ReturnType<typeof alertCandidates>>[number];
type Transaction = Parameters<Parameters<FailureAlertDeps['db']['transaction']>[0]>[0];

const FailureStats = z.object({
  rows: z.array(
    z.object({
      failed: z.number(),
      newest_error: z.string().nullable(),
      newest_run_id: z.string().nullable(),
      newest_at: z.coerce.date().nullable(),
    }),
  ),
});

async function failuresBetween(tx: Transaction, workflowId: string, from: Date | null, to: Date) {
  const { rows } = FailureStats.parse(
    await tx.execute(sql`
      select count(*)::int as failed,
        (array_agg(error order by finished_at desc))[1] as newest_error,
        (array_agg(id order by finished_at desc))[1]::text as newest_run_id,
        max(finished_at) as newest_at
      from ${runs}
      where workflow_id = ${workflowId} and status = 'failed'
        -- A failed iteration fails its loop's run: that run is the one counted.
        and trigger_type <> 'for_each'
        and finished_at > ${from?.toISOString() ?? '-infinity'}::timestamptz
        and finished_at <= ${to.toISOString()}::timestamptz`),
  );
  return rows[0] ?? { failed: 0, newest_error: null, newest_run_id: null, newest_at: null };
}

interface AlertContent {
  workflow: Candidate;
  failures: Awaited<ReturnType<typeof failuresBetween>>;
  since: Date | null;
  pauseReason: string | null;
  intervalMinutes: number;
}

function alertText(deps: FailureAlertDeps, content: AlertContent, recipientName: string): string {
  const base = deps.appBaseUrl.replace(/\/+$/u, '');
  const { workflow, failures } = content;
  const workflowPage = `${base}/app/w/${workflow.workspace_id}/workflows/${workflow.id}`;
  const runs = failures.failed === 1 ? '1 run' : `${failures.failed} runs`;
  return [
    `Hello ${recipientName},`,
    '',
    failures.failed > 0
      ? `${runs} of the workflow "${workflow.name}" failed ${
          content.since ? `since ${content.since.toISOString()}` : 'since the alerts were turned on'
        }.`
      : `No more runs of the workflow "${workflow.name}" failed since the last alert.`,
    ...(failures.newest_run_id && failures.newest_at
      ? [
          '',
          `The newest failed at ${failures.newest_at.toISOString()}: ${failures.newest_error ?? 'no error recorded'}`,
          `See the run: ${workflowPage}/runs/${failures.newest_run_id}`,
        ]
      : []),
    ...(content.pauseReason
      ? [
          '',
          `Its schedule stopped firing. ${content.pauseReason}`,
          `Save the schedule again to resume it: ${workflowPage}/schedule`,
        ]
      : []),
    '',
    `You get this email because failure alerts are on for this workflow, at most one every ${content.intervalMinutes} minutes: ${workflowPage}`,
    '',
  ].join('\n');
}

/** The alert's recipients: the owner and the chosen members who are members still. */
async function recipientsOf(deps: FailureAlertDeps, workflow: Candidate, alerts: FailureAlerts) {
  const reply = await callApi(
    deps.bus,
    BUS_APIS.approvalRecipients,
    {
      workspaceId: workflow.workspace_id,
      userIds: [...new Set([workflow.owner_id, ...alerts.memberIds])],
    },
    { timeoutMs: deps.busTimeoutMs },
  );
  return reply.reviewers;
}

/**
 * Queues one workflow's alert in one transaction with the watermark it moves: a crash leaves
 * either the emails and the new watermark or neither, and a replica that alerted first wins.
 */
async function queueAlert(
  deps: FailureAlertDeps,
  workflow: Candidate,
  now: Date,
  windowEnd: Date,
): Promise<number> {
  const alerts = FailureAlerts.parse(workflow.failure_alerts);
  const recipients = await recipientsOf(deps, workflow, alerts);
  return deps.db.transaction(async (tx) => {
    const [current] = await tx
      .select({ lastAlertAt: workflows.lastAlertAt, alertedThrough: workflows.alertedThrough })
      .from(workflows)
      .where(eq(workflows.id, workflow.id))
      .for('update');
    if (!current || current.lastAlertAt?.getTime() !== workflow.last_alert_at?.getTime()) return 0;
    const through =
      current.alertedThrough && current.alertedThrough > windowEnd
        ? current.alertedThrough
        : windowEnd;
    const failures = await failuresBetween(tx, workflow.id, current.alertedThrough, through);
    const [schedule] = await tx
      .select({ pausedAt: workflowSchedules.pausedAt, reason: workflowSchedules.pausedReason })
      .from(workflowSchedules)
      .where(eq(workflowSchedules.workflowId, workflow.id));
    const newPause =
      schedule?.pausedAt && (!current.lastAlertAt || schedule.pausedAt > current.lastAlertAt);
    const content: AlertContent = {
      workflow,
      failures,
      since: current.lastAlertAt,
      pauseReason: newPause ? (schedule.reason ?? null) : null,
      intervalMinutes: alerts.intervalMinutes,
    };
    if (recipients.length > 0 && (failures.failed > 0 || content.pauseReason)) {
      const subject = content.pauseReason
        ? `Schedule paused: ${workflow.name}`
        : `Runs failed: ${workflow.name}`;
      await tx
        .insert(failureAlertEmails)
        .values(
          recipients.map((recipient) => ({
            id: deps.ids.uuid(),
            workflowId: workflow.id,
            alertedThrough: through,
            userId: recipient.userId,
            toAddress: recipient.email,
            subject,
            body: alertText(deps, content, recipient.name),
            status: 'pending',
            nextAttemptAt: now,
            createdAt: now,
          })),
        )
        .onConflictDoNothing();
    }
    await tx
      .update(workflows)
      .set({ alertedThrough: through, lastAlertAt: now })
      .where(and(eq(workflows.id, workflow.id)));
    deps.logger.info(
      { workflowId: workflow.id, failed: failures.failed, emails: recipients.length },
      'failure alert queued',
    );
    return recipients.length;
  });
}

/** Queues the alerts that are due (see `alertCandidates`). */
export async function queueFailureAlerts(deps: FailureAlertDeps): Promise<void> {
  const now = deps.clock.now();
  const windowEnd = new Date(now.getTime() - SETTLE_MS);
  for (const workflow of await alertCandidates(deps, now, windowEnd)) {
    await queueAlert(deps, workflow, now, windowEnd);
  }
}

/**
 * The failure alerts (issue 42 item 5): each pass pauses the schedules that failed too often in
 * a row, queues the alerts due, and sends them by the approval emails' outbox rules.
 */
export function startFailureAlerts(deps: FailureAlertDeps): { stop(): Promise<void> } {
  return startPeriodicPasses({
    intervalMs: deps.intervalMs,
    logger: deps.logger,
    failureMessage: 'failure alerts pass failed; the next one tries again',
    pass: async () => {
      await pauseFailingSchedules(deps);
      await queueFailureAlerts(deps);
      await sendDueEmails(deps, failureAlertEmails, 'failure alert');
    },
  });
}
