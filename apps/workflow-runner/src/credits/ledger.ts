import { and, eq, inArray, sql } from 'drizzle-orm';
import { AppError } from '@wap/contracts';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import { creditLedger } from '../db/schema';

export type CreditEntryKind = 'grant' | 'correction' | 'charge' | 'refund';

/** The credit ledger of every workspace: grants, corrections, charges and refunds, and their sum. */
/* eslint-disable-next-line max-lines-per-function --
  the ledger's short methods share one database handle and its locking order */
export function createCreditLedger(deps: { db: SqlDatabase; clock: Clock; ids: IdSource }) {
  const { db } = deps;

  async function balanceOf(workspaceId: string): Promise<number> {
    const [row] = await db
      .select({ balance: sql<string>`coalesce(sum(${creditLedger.amount}), 0)` })
      .from(creditLedger)
      .where(eq(creditLedger.workspaceId, workspaceId));
    return Number(row?.balance ?? 0);
  }

  /** The balances of several workspaces in one read; a workspace without entries has 0. */
  async function balancesOf(workspaceIds: readonly string[]): Promise<Map<string, number>> {
    const balances = new Map(workspaceIds.map((workspaceId) => [workspaceId, 0]));
    if (balances.size === 0) return balances;
    const rows = await db
      .select({
        workspaceId: creditLedger.workspaceId,
        balance: sql<string>`coalesce(sum(${creditLedger.amount}), 0)`,
      })
      .from(creditLedger)
      .where(inArray(creditLedger.workspaceId, [...balances.keys()]))
      .groupBy(creditLedger.workspaceId);
    for (const row of rows) balances.set(row.workspaceId, Number(row.balance));
    return balances;
  }

  /**
   * Adds a grant or correction and returns the new balance. A workspace's entries are written
   * under a transaction-scoped advisory lock on the workspace, so concurrent writers see each
   * other's rows and a correction can never take the balance below zero.
   */
  async function record(entry: {
    workspaceId: string;
    amount: number;
    kind: CreditEntryKind;
    reason: string;
    createdBy: string | null;
  }): Promise<number> {
    return db.transaction(async (tx) => {
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtext(${`credits:${entry.workspaceId}`}))`,
      );
      const [row] = await tx
        .select({ balance: sql<string>`coalesce(sum(${creditLedger.amount}), 0)` })
        .from(creditLedger)
        .where(eq(creditLedger.workspaceId, entry.workspaceId));
      const balance = Number(row?.balance ?? 0) + entry.amount;
      if (entry.amount < 0 && balance < 0) {
        throw new AppError('CONFLICT', 'The correction would take the balance below zero', {
          details: { balance: balance - entry.amount },
        });
      }
      await tx.insert(creditLedger).values({
        id: deps.ids.uuid(),
        workspaceId: entry.workspaceId,
        amount: entry.amount,
        kind: entry.kind,
        reason: entry.reason,
        createdBy: entry.createdBy,
        createdAt: deps.clock.now(),
      });
      return balance;
    });
  }

  /**
   * Charges one paid step of a run, once: a resumed run charging the same step again gets the
   * first charge back. Under the workspace's advisory lock the balance is read and the charge
   * written together, so runs racing for the last credits never take the balance below zero.
   */
  async function chargeStep(charge: {
    workspaceId: string;
    runId: string;
    stepIndex: number;
    amount: number;
    reason: string;
  }): Promise<{ charged: boolean; balance: number }> {
    return db.transaction(async (tx) => {
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtext(${`credits:${charge.workspaceId}`}))`,
      );
      const [row] = await tx
        .select({ balance: sql<string>`coalesce(sum(${creditLedger.amount}), 0)` })
        .from(creditLedger)
        .where(eq(creditLedger.workspaceId, charge.workspaceId));
      const balance = Number(row?.balance ?? 0);
      const [earlier] = await tx
        .select({ id: creditLedger.id })
        .from(creditLedger)
        .where(
          and(
            eq(creditLedger.runId, charge.runId),
            eq(creditLedger.stepIndex, charge.stepIndex),
            eq(creditLedger.kind, 'charge'),
          ),
        );
      if (earlier) return { charged: true, balance };
      if (balance < charge.amount) return { charged: false, balance };
      await tx.insert(creditLedger).values({
        id: deps.ids.uuid(),
        workspaceId: charge.workspaceId,
        amount: -charge.amount,
        kind: 'charge',
        reason: charge.reason,
        createdBy: null,
        createdAt: deps.clock.now(),
        runId: charge.runId,
        stepIndex: charge.stepIndex,
      });
      return { charged: true, balance: balance - charge.amount };
    });
  }

  /** Every workspace that has ledger entries, for republishing the balances at start. */
  async function workspaceIds(): Promise<string[]> {
    const rows = await db
      .selectDistinct({ workspaceId: creditLedger.workspaceId })
      .from(creditLedger);
    return rows.map((row) => row.workspaceId);
  }

  return { balanceOf, balancesOf, record, chargeStep, workspaceIds };
}

export type CreditLedger = ReturnType<typeof createCreditLedger>;
