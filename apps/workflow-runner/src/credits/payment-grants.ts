import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { eq, sql } from 'drizzle-orm';
import { AppError, type GrantCreditsFromPaymentReply, BUS_APIS } from '@wap/contracts';
import { type Bus, type Clock, type SqlDatabase, type Subscription } from '@wap/platform';
import { serveApi } from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import { creditLedger } from '../db/schema';
import type { CreditSnapshots } from './snapshots';

/**
 * The ledger id of a payment's grant, derived from what was bought (else the provider's event
 * id): a redelivered event, or another event of the same purchase, finds its row already there,
 * so a purchase grants its credits exactly once without a table of its own.
 */
export function paymentEntryId(provider: string, paymentKey: string): string {
  const hex = createHash('sha256').update(`${provider}:${paymentKey}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Serves `workflow.api.grant_credits_from_payment.v1` for webhook-ingest's payment webhooks. */
export function servePaymentGrants(deps: {
  bus: Bus;
  db: SqlDatabase;
  clock: Clock;
  directory: DirectoryClient;
  snapshots: CreditSnapshots;
  logger: Logger;
}): Subscription {
  return serveApi(
    deps.bus,
    BUS_APIS.grantCreditsFromPayment,
    async (grant): Promise<GrantCreditsFromPaymentReply> => {
      if (!(await deps.directory.confirmedWorkspace(grant.workspaceId))) {
        throw new AppError('NOT_FOUND', 'Workspace not found');
      }
      const reply = await deps.db.transaction(async (tx) => {
        await tx.execute(
          sql`select pg_advisory_xact_lock(hashtext(${`credits:${grant.workspaceId}`}))`,
        );
        const inserted = await tx
          .insert(creditLedger)
          .values({
            id: paymentEntryId(
              grant.provider,
              grant.purchaseId ? `purchase:${grant.purchaseId}` : grant.paymentEventId,
            ),
            workspaceId: grant.workspaceId,
            amount: grant.credits,
            kind: 'grant',
            reason: `${grant.reason} (${grant.provider} event ${grant.paymentEventId})`,
            createdBy: null,
            createdAt: deps.clock.now(),
          })
          .onConflictDoNothing({ target: creditLedger.id })
          .returning({ id: creditLedger.id });
        const [row] = await tx
          .select({ balance: sql<string>`coalesce(sum(${creditLedger.amount}), 0)` })
          .from(creditLedger)
          .where(eq(creditLedger.workspaceId, grant.workspaceId));
        return { granted: inserted.length === 1, balance: Number(row?.balance ?? 0) };
      });
      if (reply.granted) await deps.snapshots.publish(grant.workspaceId);
      return reply;
    },
    { queue: 'workflow-runner', logger: deps.logger },
  );
}
