import { and, count, desc, eq, gte, isNotNull, isNull, lt, ne, or, sql } from 'drizzle-orm';
import {
  connectionDeliveryPath,
  type Provider,
  type ProviderAccount,
  type ProviderDelivery,
} from '@wap/contracts';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import type { KeysetPosition } from '@wap/bus-protocol';
import type { SqlExecutor } from '../db/sql-executor';
import { isUniqueViolation } from '../db/unique-violation';
import {
  providerAccounts,
  providerConnectionAttempts,
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
    delivery_path: connectionDeliveryPath(row.provider as Provider, row.id),
    has_signing_secret: row.signingSecretSealed !== null,
    proven_at: row.provenAt?.toISOString() ?? null,
  };
}

/** What a connection's deliveries are checked against and where they go. */
export interface ProviderConnection {
  id: string;
  workspaceId: string;
  provider: Provider;
  accountId: string;
  signingSecretSealed: string | null;
  provenAt: Date | null;
}

/**
 * Whether two account ids of one provider name overlapping accounts: the same id, or (GitHub) an
 * owner and one of its repositories (`example-org` and `example-org/secret-repo`).
 */
function overlapping(provider: Provider, accountId: string) {
  const same = eq(providerAccounts.accountId, accountId);
  if (provider !== 'github') return same;
  return or(
    same,
    sql`starts_with(${providerAccounts.accountId}, ${`${accountId}/`})`,
    sql`starts_with(${accountId}, ${providerAccounts.accountId} || '/')`,
  );
}

/** The account is connected in the workspace already, or proven by another that overlaps it. */
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

    /**
     * Throws AccountTakenError when the workspace has the account already, or another workspace
     * has a proven connection overlapping it (which one is not said).
     */
    async connect(input: {
      id: string;
      workspaceId: string;
      provider: Provider;
      accountId: string;
      label: string;
      createdBy: string;
      signingSecretSealed: string;
    }): Promise<ProviderAccount> {
      const [proven] = await db
        .select({ id: providerAccounts.id })
        .from(providerAccounts)
        .where(
          and(
            eq(providerAccounts.provider, input.provider),
            ne(providerAccounts.workspaceId, input.workspaceId),
            isNotNull(providerAccounts.provenAt),
            overlapping(input.provider, input.accountId),
          ),
        )
        .limit(1);
      if (proven) throw new AccountTakenError();
      try {
        const [row] = await db
          .insert(providerAccounts)
          .values({ ...input, createdAt: clock.now() })
          .returning();
        if (!row) throw new Error('insert returned no provider account');
        return accountBody(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new AccountTakenError();
        throw error;
      }
    },

    /**
     * Counts this attempt; returns how many the workspace made since `since` (it included) and
     * when the oldest of them was.
     */
    async countAttempt(
      workspaceId: string,
      since: Date,
    ): Promise<{ count: number; oldest: Date | undefined }> {
      await db
        .insert(providerConnectionAttempts)
        .values({ id: ids.uuid(), workspaceId, attemptedAt: clock.now() });
      // Older attempts count for nothing any more: they go as new ones come.
      await db
        .delete(providerConnectionAttempts)
        .where(
          and(
            eq(providerConnectionAttempts.workspaceId, workspaceId),
            lt(providerConnectionAttempts.attemptedAt, since),
          ),
        );
      const [row] = await db
        .select({
          attempts: count(),
          oldest: sql<string | null>`min(${providerConnectionAttempts.attemptedAt})`,
        })
        .from(providerConnectionAttempts)
        .where(
          and(
            eq(providerConnectionAttempts.workspaceId, workspaceId),
            gte(providerConnectionAttempts.attemptedAt, since),
          ),
        );
      return {
        count: row?.attempts ?? 0,
        oldest: row?.oldest ? new Date(row.oldest) : undefined,
      };
    },

    /** The workspace's connection with this id. */
    async connectionIn(
      workspaceId: string,
      connectionId: string,
    ): Promise<ProviderConnection | undefined> {
      const [row] = await db
        .select()
        .from(providerAccounts)
        .where(
          and(eq(providerAccounts.id, connectionId), eq(providerAccounts.workspaceId, workspaceId)),
        );
      return row ? { ...row, provider: row.provider as Provider } : undefined;
    },

    /** The connection with its new sealed secret; undefined when it is gone meanwhile. */
    async replaceSigningSecret(
      connection: ProviderConnection,
      sealed: string,
    ): Promise<ProviderAccount | undefined> {
      const [row] = await db
        .update(providerAccounts)
        .set({ signingSecretSealed: sealed })
        .where(
          and(
            eq(providerAccounts.id, connection.id),
            eq(providerAccounts.workspaceId, connection.workspaceId),
          ),
        )
        .returning();
      return row ? accountBody(row) : undefined;
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

    /** The connection of `provider` with this id, wherever it is. */
    async connection(
      provider: Provider,
      connectionId: string,
    ): Promise<ProviderConnection | undefined> {
      const [row] = await db
        .select()
        .from(providerAccounts)
        .where(and(eq(providerAccounts.id, connectionId), eq(providerAccounts.provider, provider)));
      return row ? { ...row, provider: row.provider as Provider } : undefined;
    },

    /** Every sealed signing secret, for the key rotation. */
    async listSealedSecrets(): Promise<ProviderConnection[]> {
      const rows = await db
        .select()
        .from(providerAccounts)
        .where(isNotNull(providerAccounts.signingSecretSealed));
      return rows.map((row) => ({ ...row, provider: row.provider as Provider }));
    },

    async replaceSealedSecret(connectionId: string, sealed: string): Promise<void> {
      await db
        .update(providerAccounts)
        .set({ signingSecretSealed: sealed })
        .where(eq(providerAccounts.id, connectionId));
    },

    /** Marks the connection proven by its first delivery that held with its secret. */
    async markProven(connectionId: string): Promise<void> {
      await db
        .update(providerAccounts)
        .set({ provenAt: clock.now() })
        .where(and(eq(providerAccounts.id, connectionId), isNull(providerAccounts.provenAt)));
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
