import { and, asc, eq, inArray } from 'drizzle-orm';
import type { CredentialAccess, WorkspaceCredential } from '@wap/contracts';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import { workspaceCredentials } from '../db/schema';
import { isUniqueViolation } from '../db/unique-violation';

export type CredentialRow = typeof workspaceCredentials.$inferSelect;

export function credentialBody(row: CredentialRow): WorkspaceCredential {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    access: row.access as CredentialAccess,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    updated_by: row.updatedBy,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** What a credential's value is sealed for: it opens for this credential alone. */
export function credentialContext(row: { workspaceId: string; id: string }): string {
  return `workspace-credential/${row.workspaceId}/${row.id}`;
}

/** The workspace has a credential of that name already. */
export class CredentialNameTakenError extends Error {}

/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createCredentialRepository(deps: { db: SqlDatabase; clock: Clock; ids: IdSource }) {
  const { db, clock, ids } = deps;
  return {
    async list(workspaceId: string): Promise<CredentialRow[]> {
      return db
        .select()
        .from(workspaceCredentials)
        .where(eq(workspaceCredentials.workspaceId, workspaceId))
        .orderBy(asc(workspaceCredentials.name));
    },

    async find(workspaceId: string, id: string): Promise<CredentialRow | undefined> {
      const [row] = await db
        .select()
        .from(workspaceCredentials)
        .where(
          and(eq(workspaceCredentials.id, id), eq(workspaceCredentials.workspaceId, workspaceId)),
        );
      return row;
    },

    async named(workspaceId: string, names: readonly string[]): Promise<CredentialRow[]> {
      if (names.length === 0) return [];
      return db
        .select()
        .from(workspaceCredentials)
        .where(
          and(
            eq(workspaceCredentials.workspaceId, workspaceId),
            inArray(workspaceCredentials.name, [...names]),
          ),
        );
    },

    /** Throws CredentialNameTakenError when the name is the workspace's already. */
    async create(input: {
      workspaceId: string;
      name: string;
      access: CredentialAccess;
      createdBy: string;
      seal: (row: { workspaceId: string; id: string }) => string;
    }): Promise<CredentialRow> {
      const id = ids.uuid();
      const now = clock.now();
      try {
        const [row] = await db
          .insert(workspaceCredentials)
          .values({
            id,
            workspaceId: input.workspaceId,
            name: input.name,
            access: input.access,
            sealedValue: input.seal({ workspaceId: input.workspaceId, id }),
            createdBy: input.createdBy,
            createdAt: now,
            updatedBy: input.createdBy,
            updatedAt: now,
          })
          .returning();
        if (!row) throw new Error('insert returned no credential');
        return row;
      } catch (error) {
        if (isUniqueViolation(error)) throw new CredentialNameTakenError();
        throw error;
      }
    },

    async update(
      row: CredentialRow,
      change: { sealedValue?: string; access?: CredentialAccess; updatedBy: string },
    ): Promise<CredentialRow | undefined> {
      const [updated] = await db
        .update(workspaceCredentials)
        .set({ ...change, updatedAt: clock.now() })
        .where(
          and(
            eq(workspaceCredentials.id, row.id),
            eq(workspaceCredentials.workspaceId, row.workspaceId),
          ),
        )
        .returning();
      return updated;
    },

    async delete(row: CredentialRow): Promise<boolean> {
      const removed = await db
        .delete(workspaceCredentials)
        .where(
          and(
            eq(workspaceCredentials.id, row.id),
            eq(workspaceCredentials.workspaceId, row.workspaceId),
          ),
        )
        .returning({ id: workspaceCredentials.id });
      return removed.length > 0;
    },

    /** Every credential, for the key rotation. */
    async listAll(): Promise<CredentialRow[]> {
      return db.select().from(workspaceCredentials);
    },

    async replaceSealed(id: string, sealedValue: string): Promise<void> {
      await db
        .update(workspaceCredentials)
        .set({ sealedValue })
        .where(eq(workspaceCredentials.id, id));
    },
  };
}

export type CredentialRepository = ReturnType<typeof createCredentialRepository>;
