import { eq, sql } from 'drizzle-orm';
import { AppError } from '@wap/contracts';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import { creditLedger } from '../db/schema';

export type CreditEntryKind = 'grant' | 'correction' | 'charge';

/** The credit ledger of every workspace: grants, corrections and charges, and their sum. */
export function createCreditLedger(deps: { db: SqlDatabase; clock: Clock; ids: IdSource }) {
  const { db } = deps;

  async function balanceOf(workspaceId: string): Promise<number> {
    const [row] = await db
      .select({ balance: sql<string>`coalesce(sum(${creditLedger.amount}), 0)` })
      .from(creditLedger)
      .where(eq(creditLedger.workspaceId, workspaceId));
    return Number(row?.balance ?? 0);
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

  return { balanceOf, record };
}

export type CreditLedger = ReturnType<typeof createCreditLedger>;
