import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Logger } from 'pino';
import { BUS_APIS } from '@wap/contracts';
import { type Bus, type Clock, type IdSource, type SqlDatabase } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';
import { approvalEmails, approvals, runs, runSteps, workflows } from '../db/schema';
import { startPeriodicPasses } from '../runs/periodic-passes';
import { sendDueEmails } from './email-outbox';
import type { Mailer } from './mailer';

/** Approvals whose recipients are resolved per pass. */
const BATCH = 50;

/**
 * The approval emails (decision 73): one pass queues an email for each reviewer who wants one
 * (the workspace's `email_on_approval` and the reviewer's `approval_tasks_email` both on), the
 * next sends what is due, retrying with a doubling delay and recording a failure after
 * `maxAttempts`. A mail server that is down never touches the run or the approval.
 */
/* eslint-disable-next-line max-lines-per-function --
  the mail loop's short steps share its timer, in-flight pass and stop signal */
export function startApprovalEmails(deps: {
  db: SqlDatabase;
  bus: Bus;
  clock: Clock;
  ids: IdSource;
  mailer: Mailer;
  logger: Logger;
  intervalMs: number;
  retryBaseMs: number;
  maxAttempts: number;
  busTimeoutMs: number;
  /** Origin of the web app, where the approve and reject links point. */
  appBaseUrl: string;
}): { stop(): Promise<void> } {
  const { db, clock, logger } = deps;
  const baseUrl = deps.appBaseUrl.replace(/\/+$/u, '');

  async function queueEmails(): Promise<void> {
    const pending = await db
      .select({
        id: approvals.id,
        workspaceId: approvals.workspaceId,
        reviewerIds: approvals.reviewerIds,
        message: approvals.message,
        workflowName: workflows.name,
        stepName: runSteps.name,
      })
      .from(approvals)
      .innerJoin(runs, eq(runs.id, approvals.runId))
      .innerJoin(workflows, eq(workflows.id, runs.workflowId))
      .innerJoin(
        runSteps,
        and(eq(runSteps.runId, approvals.runId), eq(runSteps.stepIndex, approvals.stepIndex)),
      )
      .where(isNull(approvals.notifiedAt))
      .orderBy(asc(approvals.createdAt))
      .limit(BATCH);
    for (const approval of pending) {
      const reviewerIds = Array.isArray(approval.reviewerIds)
        ? approval.reviewerIds.map(String)
        : [];
      const recipients = await callApi(
        deps.bus,
        BUS_APIS.approvalRecipients,
        { workspaceId: approval.workspaceId, userIds: reviewerIds },
        { timeoutMs: deps.busTimeoutMs },
      );
      const wanted = recipients.emailOnApproval
        ? recipients.reviewers.filter((reviewer) => reviewer.approvalTasksEmail)
        : [];
      const now = clock.now();
      const subject = `Approval needed: ${approval.workflowName} — ${approval.stepName}`;
      // The web app's page of the approval (decision 129): opening a link decides nothing.
      const link = (decision: string) =>
        `${baseUrl}/app/w/${approval.workspaceId}/approvals/${approval.id}?decision=${decision}`;
      await db.transaction(async (tx) => {
        if (wanted.length > 0) {
          await tx
            .insert(approvalEmails)
            .values(
              wanted.map((reviewer) => ({
                id: deps.ids.uuid(),
                approvalId: approval.id,
                userId: reviewer.userId,
                toAddress: reviewer.email,
                subject,
                body: [
                  `Hello ${reviewer.name},`,
                  '',
                  `The workflow "${approval.workflowName}" is waiting for your approval at the step "${approval.stepName}".`,
                  ...(approval.message ? ['', approval.message] : []),
                  '',
                  `Approve: ${link('approve')}`,
                  `Reject: ${link('reject')}`,
                  '',
                ].join('\n'),
                status: 'pending',
                nextAttemptAt: now,
                createdAt: now,
              })),
            )
            .onConflictDoNothing();
        }
        await tx.update(approvals).set({ notifiedAt: now }).where(eq(approvals.id, approval.id));
      });
      logger.info(
        { approvalId: approval.id, emails: wanted.length, reviewers: reviewerIds.length },
        'approval emails queued',
      );
    }
  }

  return startPeriodicPasses({
    intervalMs: deps.intervalMs,
    logger,
    failureMessage: 'approval emails pass failed; the next one tries again',
    pass: async () => {
      await queueEmails();
      await sendDueEmails(deps, approvalEmails, 'approval');
    },
  });
}
