import { and, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { Provider, ProviderAccount, ProviderDelivery } from '@wap/contracts';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import type { KeysetPosition } from '@wap/bus-protocol';
import type { SqlExecutor } from '../db/sql-executor';
import {
  providerAccounts,
  providerDeliveries,
  providerDeliveryEvents,
  runs,
  workflows,
} from '../db/schema';

type AccountRow = typeof providerAccounts.$inferSelect;

function accountBody(row: AccountRow): ProviderAccount {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    provider: row.provider as Provider,
    account_id: row.accountId,
    label: row.label,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
  };
}

/** PostgreSQL's unique_violation, as both drivers report it. */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | null) ?? {};
  return code.code === '23505' || code.cause?.code === '23505';
}

export class AccountTakenError extends Error {}

/** One delivery's record and the test events it became, for `ProviderEventTargets`. */
export interface RecordedDelivery {
  provider: Provider;
  deliveryId: string;
  event: string;
  accountId: string | null;
  workspaceId: string | null;
  receivedAt: Date;
}

type DeliveryRow = typeof providerDeliveries.$inferSelect;

/** The deliveries as the API shows them, each with the workflows it reached and their runs. */
async function withTargets(db: SqlDatabase, shown: DeliveryRow[]): Promise<ProviderDelivery[]> {
  if (shown.length === 0) return [];
  const targets = await db
    .select({
      provider: providerDeliveryEvents.provider,
      deliveryId: providerDeliveryEvents.deliveryId,
      eventId: providerDeliveryEvents.eventId,
      workflowId: providerDeliveryEvents.workflowId,
      workflowName: workflows.name,
      runId: runs.id,
      runStatus: runs.status,
      createdAt: providerDeliveryEvents.createdAt,
    })
    .from(providerDeliveryEvents)
    .innerJoin(workflows, eq(workflows.id, providerDeliveryEvents.workflowId))
    .leftJoin(runs, eq(runs.eventId, providerDeliveryEvents.eventId))
    .where(
      or(
        ...shown.map((delivery) =>
          and(
            eq(providerDeliveryEvents.provider, delivery.provider),
            eq(providerDeliveryEvents.deliveryId, delivery.deliveryId),
          ),
        ),
      ),
    )
    .orderBy(providerDeliveryEvents.createdAt);
  return shown.map((delivery) => ({
    id: delivery.id,
    provider: delivery.provider as Provider,
    delivery_id: delivery.deliveryId,
    event: delivery.event,
    account_id: delivery.accountId,
    received_at: delivery.receivedAt.toISOString(),
    targets: targets
      .filter(
        (target) =>
          target.provider === delivery.provider && target.deliveryId === delivery.deliveryId,
      )
      .map((target) => ({
        workflow_id: target.workflowId,
        workflow_name: target.workflowName,
        event_id: target.eventId,
        run_id: target.runId,
        run_status: target.runStatus,
      })),
  }));
}

/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createProviderEventsRepository(deps: {
  db: SqlDatabase;
  clock: Clock;
  ids: IdSource;
}) {
  const { db, clock, ids } = deps;

  return {
    async listAccounts(workspaceId: string): Promise<ProviderAccount[]> {
      const rows = await db
        .select()
        .from(providerAccounts)
        .where(eq(providerAccounts.workspaceId, workspaceId))
        .orderBy(desc(providerAccounts.createdAt), desc(providerAccounts.id));
      return rows.map(accountBody);
    },

    /** Throws AccountTakenError when the account is connected (here or elsewhere) already. */
    async connect(input: {
      workspaceId: string;
      provider: Provider;
      accountId: string;
      label: string;
      createdBy: string;
    }): Promise<ProviderAccount> {
      try {
        const [row] = await db
          .insert(providerAccounts)
          .values({ id: ids.uuid(), ...input, createdAt: clock.now() })
          .returning();
        if (!row) throw new Error('insert returned no provider account');
        return accountBody(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new AccountTakenError();
        throw error;
      }
    },

    /** True when the connection existed in the workspace. */
    async disconnect(workspaceId: string, connectionId: string): Promise<boolean> {
      const removed = await db
        .delete(providerAccounts)
        .where(
          and(eq(providerAccounts.id, connectionId), eq(providerAccounts.workspaceId, workspaceId)),
        )
        .returning({ id: providerAccounts.id });
      return removed.length > 0;
    },

    /** The first connected account among `accountIds` (most specific first). */
    async connectedAccount(
      provider: Provider,
      accountIds: readonly string[],
    ): Promise<{ accountId: string; workspaceId: string } | undefined> {
      if (accountIds.length === 0) return undefined;
      const rows = await db
        .select({
          accountId: providerAccounts.accountId,
          workspaceId: providerAccounts.workspaceId,
        })
        .from(providerAccounts)
        .where(
          and(
            eq(providerAccounts.provider, provider),
            inArray(providerAccounts.accountId, [...accountIds]),
          ),
        );
      for (const accountId of accountIds) {
        const row = rows.find((candidate) => candidate.accountId === accountId);
        if (row) return row;
      }
      return undefined;
    },

    /** Records the delivery the first time its id is seen; a repeat keeps the first record. */
    async recordDelivery(delivery: RecordedDelivery): Promise<void> {
      await db
        .insert(providerDeliveries)
        .values({ id: ids.uuid(), ...delivery })
        .onConflictDoNothing({
          target: [providerDeliveries.provider, providerDeliveries.deliveryId],
        });
    },

    /** Links test events to the deliveries they came from, in the caller's transaction. */
    async linkEvents(
      links: { eventId: string; provider: Provider; deliveryId: string; workflowId: string }[],
      tx: SqlExecutor,
    ): Promise<void> {
      if (links.length === 0) return;
      const createdAt = clock.now().toISOString();
      const rows = links.map((link) => ({
        event_id: link.eventId,
        provider: link.provider,
        delivery_id: link.deliveryId,
        workflow_id: link.workflowId,
        created_at: createdAt,
      }));
      await tx.execute(sql`
        insert into workflow_runner.provider_delivery_events (event_id, provider, delivery_id,
          workflow_id, created_at)
        select event_id, provider, delivery_id, workflow_id, created_at
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(event_id uuid, provider text,
          delivery_id text, workflow_id uuid, created_at timestamptz)
        on conflict (event_id) do nothing`);
    },

    /** A page of the workspace's deliveries, newest first, each with what it started. */
    async deliveriesPage(
      workspaceId: string,
      limit: number,
      after: KeysetPosition | undefined,
    ): Promise<{
      deliveries: ProviderDelivery[];
      last: KeysetPosition | undefined;
      more: boolean;
    }> {
      const page = await db
        .select()
        .from(providerDeliveries)
        .where(
          and(
            eq(providerDeliveries.workspaceId, workspaceId),
            after
              ? or(
                  lt(providerDeliveries.receivedAt, after.at),
                  and(
                    eq(providerDeliveries.receivedAt, after.at),
                    lt(providerDeliveries.id, after.id),
                  ),
                )
              : undefined,
          ),
        )
        .orderBy(desc(providerDeliveries.receivedAt), desc(providerDeliveries.id))
        .limit(limit + 1);
      const shown = page.slice(0, limit);
      const deliveries = await withTargets(db, shown);
      const lastShown = shown.at(-1);
      return {
        deliveries,
        last: lastShown ? { at: lastShown.receivedAt, id: lastShown.id } : undefined,
        more: page.length > limit,
      };
    },
  };
}

export type ProviderEventsRepository = ReturnType<typeof createProviderEventsRepository>;
