import { and, eq, sql } from 'drizzle-orm';
import { approvals, creditLedger, runs, runSteps } from '../db/schema';
import { type RunStore, type RunRow, type RunStepRow } from './run-rows';
import type { StoredAttempt } from './step-policy';

/**
 * A step starts, or (`attempt`) one attempt of a step that calls out starts: its number is on
 * record before anything is sent, so that a runner that dies during it is seen to have been cut
 * off (`resumed`) by the one that resumes the run.
 */
export async function startRunStep(
  { db }: RunStore,
  runId: string,
  stepIndex: number,
  values: { input: unknown; startedAt: Date; attempt?: { number: number; resumed: boolean } },
): Promise<void> {
  const { attempt } = values;
  await db
    .update(runSteps)
    .set({
      status: 'running',
      input: values.input,
      startedAt: values.startedAt,
      ...(attempt ? { attempt: attempt.number, resumeAt: null } : {}),
      ...(attempt?.resumed ? { resumed: true } : {}),
    })
    .where(and(eq(runSteps.runId, runId), eq(runSteps.stepIndex, stepIndex)));
}

/**
 * An attempt failed and is to be made again at `resumeAt`: the attempts so far, the time of the
 * next and the run's release until then are one transaction, so that a crash during the wait
 * neither loses nor repeats an attempt, and no claim comes before the wait is over.
 */
export async function scheduleRunStepRetry(
  { db }: RunStore,
  run: { id: string; owner: string },
  stepIndex: number,
  attempts: readonly StoredAttempt[],
  resumeAt: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .update(runSteps)
      .set({ attempts: [...attempts], resumeAt })
      .where(and(eq(runSteps.runId, run.id), eq(runSteps.stepIndex, stepIndex)));
    await tx
      .update(runs)
      .set({ leaseOwner: null, leaseUntil: null, wakeAt: resumeAt })
      .where(and(eq(runs.id, run.id), eq(runs.leaseOwner, run.owner)));
  });
}

export async function setRunStepCharge(
  { db }: RunStore,
  runId: string,
  stepIndex: number,
  credits: number,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .update(runSteps)
      .set({ creditsCharged: credits })
      .where(and(eq(runSteps.runId, runId), eq(runSteps.stepIndex, stepIndex)));
    await tx
      .update(runs)
      .set({
        creditsCharged: sql`(select coalesce(sum(${runSteps.creditsCharged}), 0) from ${runSteps} where ${runSteps.runId} = ${runId})`,
      })
      .where(eq(runs.id, runId));
  });
}

export async function endRunStep(
  { db, clock }: RunStore,
  runId: string,
  step: RunStepRow,
  values: {
    status: 'succeeded' | 'failed';
    output: unknown;
    error: string | null;
    attempts?: readonly StoredAttempt[];
  },
): Promise<void> {
  const now = clock.now();
  const startedAt = step.startedAt ?? now;
  await db
    .update(runSteps)
    .set({
      status: values.status,
      output: values.output ?? null,
      error: values.error,
      ...(values.attempts ? { attempts: [...values.attempts], resumeAt: null } : {}),
      finishedAt: now,
      durationMs: Math.max(0, now.getTime() - startedAt.getTime()),
    })
    .where(and(eq(runSteps.runId, runId), eq(runSteps.stepIndex, step.stepIndex)));
}

/**
 * Ends a paid step that failed before anything left the platform and gives its charge back,
 * in one transaction (decision 127): the step's and the run's credits_charged drop by the
 * charge, and the ledger gets a refund entry with the reason. A second call (a resumed run)
 * refunds nothing more.
 */
export async function failRunStepWithRefund(
  { db, clock }: RunStore,
  run: { id: string; workspaceId: string },
  step: RunStepRow,
  values: { output: unknown; error: string; attempts: readonly StoredAttempt[] },
  refund: { entryId: string; amount: number; reason: string },
): Promise<void> {
  const now = clock.now();
  const startedAt = step.startedAt ?? now;
  await db.transaction(async (tx) => {
    await tx
      .update(runSteps)
      .set({
        status: 'failed',
        output: values.output ?? null,
        error: values.error,
        attempts: [...values.attempts],
        resumeAt: null,
        finishedAt: now,
        durationMs: Math.max(0, now.getTime() - startedAt.getTime()),
        creditsCharged: 0,
      })
      .where(and(eq(runSteps.runId, run.id), eq(runSteps.stepIndex, step.stepIndex)));
    await tx
      .update(runs)
      .set({
        creditsCharged: sql`(select coalesce(sum(${runSteps.creditsCharged}), 0) from ${runSteps} where ${runSteps.runId} = ${run.id})`,
      })
      .where(eq(runs.id, run.id));
    await tx
      .insert(creditLedger)
      .values({
        id: refund.entryId,
        workspaceId: run.workspaceId,
        amount: refund.amount,
        kind: 'refund',
        reason: refund.reason,
        createdBy: null,
        createdAt: now,
        runId: run.id,
        stepIndex: step.stepIndex,
      })
      .onConflictDoNothing();
  });
}

export async function setRunStepResumeAt(
  { db }: RunStore,
  runId: string,
  stepIndex: number,
  resumeAt: Date,
): Promise<void> {
  await db
    .update(runSteps)
    .set({ resumeAt })
    .where(and(eq(runSteps.runId, runId), eq(runSteps.stepIndex, stepIndex)));
}

/** Pauses at an approval step: the approval is recorded once and the step waits for it. */
export async function awaitRunApproval(
  { db, clock }: RunStore,
  run: RunRow,
  stepIndex: number,
  approval: { id: string; reviewerIds: string[]; message: string | null },
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .insert(approvals)
      .values({
        id: approval.id,
        runId: run.id,
        stepIndex,
        workspaceId: run.workspaceId,
        reviewerIds: approval.reviewerIds,
        message: approval.message,
        status: 'pending',
        createdAt: clock.now(),
      })
      .onConflictDoNothing();
    await tx
      .update(runSteps)
      .set({ status: 'waiting' })
      .where(and(eq(runSteps.runId, run.id), eq(runSteps.stepIndex, stepIndex)));
    await tx.update(runs).set({ status: 'waiting_approval' }).where(eq(runs.id, run.id));
  });
}
