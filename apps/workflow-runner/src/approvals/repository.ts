import { settleRelatives } from '../runs/run-relatives';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Approval } from '@wap/contracts';
import { metrics } from '@wap/observability';
import type { Clock, SqlDatabase } from '@wap/platform';
import { approvals, runs, runSteps, workflows } from '../db/schema';

export interface ApprovalView extends Approval {
  /** The in-flight key the run holds (released when a rejection ends the run). */
  inflightKey: string | null;
}

export type Decision = 'approved' | 'rejected';

export type ApprovalRepository = ReturnType<typeof createApprovalRepository>;

/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createApprovalRepository(deps: { db: SqlDatabase; clock: Clock }) {
  const { db, clock } = deps;

  const view = {
    id: approvals.id,
    workspaceId: approvals.workspaceId,
    workflowId: runs.workflowId,
    workflowName: workflows.name,
    runId: approvals.runId,
    stepIndex: approvals.stepIndex,
    stepName: runSteps.name,
    message: approvals.message,
    reviewerIds: approvals.reviewerIds,
    status: approvals.status,
    decidedBy: approvals.decidedBy,
    decidedAt: approvals.decidedAt,
    comment: approvals.comment,
    createdAt: approvals.createdAt,
    inflightKey: runs.inflightKey,
  };

  function toView(row: Awaited<ReturnType<typeof select>>[number]): ApprovalView {
    return {
      id: row.id,
      workspace_id: row.workspaceId,
      workflow_id: row.workflowId,
      workflow_name: row.workflowName,
      run_id: row.runId,
      step_index: row.stepIndex,
      step_name: row.stepName,
      message: row.message,
      reviewer_ids: Array.isArray(row.reviewerIds) ? row.reviewerIds.map(String) : [],
      status: row.status as Approval['status'],
      decided_by: row.decidedBy,
      decided_at: row.decidedAt?.toISOString() ?? null,
      comment: row.comment,
      created_at: row.createdAt.toISOString(),
      inflightKey: row.inflightKey,
    };
  }

  function select() {
    return db
      .select(view)
      .from(approvals)
      .innerJoin(runs, eq(runs.id, approvals.runId))
      .innerJoin(workflows, eq(workflows.id, runs.workflowId))
      .innerJoin(
        runSteps,
        and(eq(runSteps.runId, approvals.runId), eq(runSteps.stepIndex, approvals.stepIndex)),
      );
  }

  return {
    async find(approvalId: string): Promise<ApprovalView | undefined> {
      const [row] = await select().where(eq(approvals.id, approvalId));
      return row ? toView(row) : undefined;
    },

    /** The pending approvals of a workspace that name `userId` among their reviewers. */
    async pendingFor(workspaceId: string, userId: string): Promise<ApprovalView[]> {
      const rows = await select()
        .where(
          and(
            eq(approvals.workspaceId, workspaceId),
            eq(approvals.status, 'pending'),
            sql`${approvals.reviewerIds} @> ${JSON.stringify([userId])}::jsonb`,
          ),
        )
        .orderBy(asc(approvals.createdAt));
      return rows.map(toView);
    },

    /**
     * Decides a pending approval and moves its run on, in one transaction: approved, the step
     * succeeds and the run is due again; rejected, the step fails, the steps after it are
     * skipped and the run fails. False when the approval was no longer pending (the first
     * decision won).
     */
    async decide(
      approvalId: string,
      decision: Decision,
      decidedBy: string,
      comment: string | null,
    ): Promise<boolean> {
      const now = clock.now();
      const at = now.toISOString();
      let rejectedRun: { startedAt: Date | null; createdAt: Date } | undefined;
      const done = await db.transaction(async (tx) => {
        const [decided] = await tx
          .update(approvals)
          .set({ status: decision, decidedBy, decidedAt: now, comment })
          .where(and(eq(approvals.id, approvalId), eq(approvals.status, 'pending')))
          .returning({ runId: approvals.runId, stepIndex: approvals.stepIndex });
        if (!decided) return false;
        const [step] = await tx
          .select({ name: runSteps.name })
          .from(runSteps)
          .where(and(eq(runSteps.runId, decided.runId), eq(runSteps.stepIndex, decided.stepIndex)));
        const duration = sql`greatest(0, extract(epoch from (${at}::timestamptz - coalesce(${runSteps.startedAt}, ${at}::timestamptz))) * 1000)::int`;
        const thisStep = and(
          eq(runSteps.runId, decided.runId),
          eq(runSteps.stepIndex, decided.stepIndex),
        );
        if (decision === 'approved') {
          await tx
            .update(runSteps)
            .set({
              status: 'succeeded',
              output: { approved_by: decidedBy, comment },
              finishedAt: now,
              durationMs: duration,
            })
            .where(thisStep);
          await tx
            .update(runs)
            .set({ status: 'running', wakeAt: now })
            .where(and(eq(runs.id, decided.runId), eq(runs.status, 'waiting_approval')));
          return true;
        }
        const error = comment ? `Rejected by a reviewer: ${comment}` : 'Rejected by a reviewer';
        await tx
          .update(runSteps)
          .set({ status: 'failed', output: null, error, finishedAt: now, durationMs: duration })
          .where(thisStep);
        await tx
          .update(runSteps)
          .set({ status: 'skipped' })
          .where(
            and(
              eq(runSteps.runId, decided.runId),
              sql`${runSteps.stepIndex} > ${decided.stepIndex}`,
            ),
          );
        [rejectedRun] = await tx
          .update(runs)
          .set({
            status: 'failed',
            error: `Step "${step?.name ?? decided.stepIndex}" was rejected`,
            finishedAt: now,
            wakeAt: null,
          })
          .where(and(eq(runs.id, decided.runId), eq(runs.status, 'waiting_approval')))
          .returning({ startedAt: runs.startedAt, createdAt: runs.createdAt });
        if (rejectedRun) await settleRelatives(tx, [decided.runId], now.toISOString());
        return true;
      });
      // A rejection ends the run here, not in the executor: counted once it is committed.
      if (rejectedRun) {
        const from = rejectedRun.startedAt ?? rejectedRun.createdAt;
        metrics.runDuration.observe(
          { status: 'failed' },
          Math.max(0, now.getTime() - from.getTime()) / 1000,
        );
      }
      return done;
    },
  };
}
