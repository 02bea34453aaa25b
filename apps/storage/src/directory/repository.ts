import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import type { ApiKeySummary, DirectoryWorkspace, WorkspaceRole } from '@wap/contracts';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import { apiKeys, members, users, workspaces } from '../db/schema';

/** What a change of membership did. */
export type MembershipChange =
  | { outcome: 'changed'; joinedAt: Date }
  | { outcome: 'removed' }
  | { outcome: 'not_member' }
  | { outcome: 'last_owner' };

/** A member of a workspace as the members list shows it. */
export interface MemberRecord {
  userId: string;
  email: string;
  name: string;
  role: WorkspaceRole;
  joinedAt: Date;
}
import {
  normalizeEmail,
  placeholderName,
  placeholderSubject,
  type WorkspaceStanding,
} from './access';

export interface UserRecord {
  id: string;
  email: string;
  name: string;
  approvalTasksEmail: boolean;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
  createdAt: Date;
  deletedAt: Date | null;
  emailOnApproval: boolean;
}

export interface MembershipRecord {
  workspaceId: string;
  workspaceName: string;
  role: WorkspaceRole;
  joinedAt: Date;
}

export interface ApiKeyMatch {
  keyId: string;
  workspaceId: string;
  revoked: boolean;
  workspaceDeleted: boolean;
}

export interface NewApiKey {
  workspaceId: string;
  name: string;
  keyHash: string;
  prefix: string;
  createdBy: string;
}

export interface DirectoryRepositoryDeps {
  db: SqlDatabase;
  clock: Clock;
  ids: IdSource;
}

export type DirectoryRepository = ReturnType<typeof createDirectoryRepository>;

/** All SQL of the directory: users, workspaces, memberships and API keys. */
/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createDirectoryRepository({ db, clock, ids }: DirectoryRepositoryDeps) {
  const userColumns = {
    id: users.id,
    email: users.email,
    name: users.name,
    approvalTasksEmail: users.approvalTasksEmail,
  };

  async function findWorkspace(workspaceId: string): Promise<WorkspaceRecord | null> {
    const [row] = await db.select().from(workspaces).where(eq(workspaces.id, workspaceId));
    return row ?? null;
  }

  /** Workspaces the user belongs to, deleted ones left out, first joined first. */
  async function listMemberships(userId: string): Promise<MembershipRecord[]> {
    return db
      .select({
        workspaceId: workspaces.id,
        workspaceName: workspaces.name,
        role: members.role,
        joinedAt: members.joinedAt,
      })
      .from(members)
      .innerJoin(workspaces, eq(workspaces.id, members.workspaceId))
      .where(and(eq(members.userId, userId), isNull(workspaces.deletedAt)))
      .orderBy(asc(members.joinedAt), asc(workspaces.createdAt), asc(workspaces.id));
  }

  return {
    /**
     * The user of a session subject: found by subject, else a user pre-created by email (the
     * placeholder row is claimed), else created. Concurrent first requests of one subject meet
     * on the unique subject and all get the same id.
     */
    async ensureUser(input: { subject: string; email: string; name: string }): Promise<string> {
      const email = normalizeEmail(input.email);
      const [known] = await db
        .select(userColumns)
        .from(users)
        .where(eq(users.subject, input.subject));
      if (known) {
        if (known.email !== email || known.name !== input.name) {
          await db.update(users).set({ email, name: input.name }).where(eq(users.id, known.id));
        }
        return known.id;
      }
      if (email !== '') {
        const [claimed] = await db
          .update(users)
          .set({ subject: input.subject, email, name: input.name })
          .where(eq(users.subject, placeholderSubject(email)))
          .returning({ id: users.id });
        if (claimed) return claimed.id;
      }
      const [row] = await db
        .insert(users)
        .values({
          id: ids.uuid(),
          subject: input.subject,
          email,
          name: input.name,
          createdAt: clock.now(),
        })
        .onConflictDoUpdate({ target: users.subject, set: { email, name: input.name } })
        .returning({ id: users.id });
      if (!row) throw new Error('upsert of a user returned no row');
      return row.id;
    },

    async findUser(userId: string): Promise<UserRecord | null> {
      const [row] = await db.select(userColumns).from(users).where(eq(users.id, userId));
      return row ?? null;
    },

    /** The oldest user with this email, or a placeholder user created for it. */
    async findOrCreateUserByEmail(rawEmail: string): Promise<UserRecord> {
      const email = normalizeEmail(rawEmail);
      const [known] = await db
        .select(userColumns)
        .from(users)
        .where(eq(users.email, email))
        .orderBy(asc(users.createdAt), asc(users.id))
        .limit(1);
      if (known) return known;
      // Two owners adding the same unknown email at once meet on the placeholder's unique subject.
      const [row] = await db
        .insert(users)
        .values({
          id: ids.uuid(),
          subject: placeholderSubject(email),
          email,
          name: placeholderName(email),
          createdAt: clock.now(),
        })
        .onConflictDoUpdate({ target: users.subject, set: { email } })
        .returning(userColumns);
      if (!row) throw new Error('upsert of a placeholder user returned no row');
      return row;
    },

    async setApprovalTasksEmail(userId: string, enabled: boolean): Promise<boolean | null> {
      const [row] = await db
        .update(users)
        .set({ approvalTasksEmail: enabled })
        .where(eq(users.id, userId))
        .returning({ approvalTasksEmail: users.approvalTasksEmail });
      return row ? row.approvalTasksEmail : null;
    },

    listMemberships,

    async firstWorkspaceOf(userId: string): Promise<string | null> {
      const [first] = await listMemberships(userId);
      return first ? first.workspaceId : null;
    },

    async createWorkspace(ownerId: string, name: string): Promise<WorkspaceRecord> {
      const now = clock.now();
      const workspace: WorkspaceRecord = {
        id: ids.uuid(),
        name,
        createdAt: now,
        deletedAt: null,
        emailOnApproval: false,
      };
      await db.transaction(async (tx) => {
        await tx.insert(workspaces).values(workspace);
        await tx
          .insert(members)
          .values({ workspaceId: workspace.id, userId: ownerId, role: 'owner', joinedAt: now });
      });
      return workspace;
    },

    findWorkspace,

    /** Whether the workspace is live and the caller's role in it. */
    async standingOf(workspaceId: string, userId: string): Promise<WorkspaceStanding> {
      const [row] = await db
        .select({ deletedAt: workspaces.deletedAt, role: members.role })
        .from(workspaces)
        .leftJoin(members, and(eq(members.workspaceId, workspaces.id), eq(members.userId, userId)))
        .where(eq(workspaces.id, workspaceId));
      if (!row || row.deletedAt !== null) return { exists: false, role: null };
      return { exists: true, role: row.role };
    },

    /** The workspace's members with their names, owners first, then by name. */
    async membersOf(workspaceId: string): Promise<MemberRecord[]> {
      const rows = await db
        .select({
          userId: members.userId,
          email: users.email,
          name: users.name,
          role: members.role,
          joinedAt: members.joinedAt,
        })
        .from(members)
        .innerJoin(users, eq(users.id, members.userId))
        .where(eq(members.workspaceId, workspaceId))
        // 'owner' sorts after 'member': descending puts owners first.
        .orderBy(desc(members.role), asc(users.name), asc(users.id));
      return rows.map((row) => ({ ...row, role: row.role as WorkspaceRole }));
    },

    /** Adds a member; null when the user already belongs to the workspace. */
    async addMember(
      workspaceId: string,
      userId: string,
      role: WorkspaceRole,
    ): Promise<{ joinedAt: Date } | null> {
      const [row] = await db
        .insert(members)
        .values({ workspaceId, userId, role, joinedAt: clock.now() })
        .onConflictDoNothing()
        .returning({ joinedAt: members.joinedAt });
      return row ?? null;
    },

    /**
     * Changes a member's role, or removes them (`role` null). The workspace row is locked first,
     * so two owners demoting each other at once cannot both succeed and leave none.
     */
    async changeMembership(
      workspaceId: string,
      userId: string,
      role: WorkspaceRole | null,
    ): Promise<MembershipChange> {
      return db.transaction(async (tx) => {
        await tx
          .select({ id: workspaces.id })
          .from(workspaces)
          .where(eq(workspaces.id, workspaceId))
          .for('update');
        const memberOf = and(eq(members.workspaceId, workspaceId), eq(members.userId, userId));
        const [current] = await tx.select({ role: members.role }).from(members).where(memberOf);
        if (!current) return { outcome: 'not_member' };
        if (current.role === 'owner' && role !== 'owner') {
          const owners = await tx
            .select({ userId: members.userId })
            .from(members)
            .where(and(eq(members.workspaceId, workspaceId), eq(members.role, 'owner')));
          if (owners.length <= 1) return { outcome: 'last_owner' };
        }
        if (role === null) {
          await tx.delete(members).where(memberOf);
          return { outcome: 'removed' };
        }
        const [changed] = await tx
          .update(members)
          .set({ role })
          .where(memberOf)
          .returning({ joinedAt: members.joinedAt });
        return { outcome: 'changed', joinedAt: changed?.joinedAt ?? clock.now() };
      });
    },

    async softDeleteWorkspace(workspaceId: string): Promise<void> {
      await db
        .update(workspaces)
        .set({ deletedAt: clock.now() })
        .where(and(eq(workspaces.id, workspaceId), isNull(workspaces.deletedAt)));
    },

    async setEmailOnApproval(workspaceId: string, enabled: boolean): Promise<void> {
      await db
        .update(workspaces)
        .set({ emailOnApproval: enabled })
        .where(eq(workspaces.id, workspaceId));
    },

    async createApiKey(key: NewApiKey): Promise<string> {
      const id = ids.uuid();
      await db.insert(apiKeys).values({ id, ...key, createdAt: clock.now() });
      return id;
    },

    /** The workspace's keys that are not revoked, newest first, with their creator's name. */
    async listApiKeys(workspaceId: string): Promise<ApiKeySummary[]> {
      const rows = await db
        .select({
          id: apiKeys.id,
          name: apiKeys.name,
          prefix: apiKeys.prefix,
          createdBy: apiKeys.createdBy,
          createdByName: users.name,
          createdAt: apiKeys.createdAt,
        })
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.createdBy))
        .where(and(eq(apiKeys.workspaceId, workspaceId), isNull(apiKeys.revokedAt)))
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        prefix: row.prefix,
        created_by: row.createdBy,
        created_by_name: row.createdByName,
        created_at: row.createdAt.toISOString(),
      }));
    },

    /** Revokes a key of the workspace; false when the workspace has no such key (or had it revoked). */
    async revokeApiKey(workspaceId: string, keyId: string): Promise<boolean> {
      const revoked = await db
        .update(apiKeys)
        .set({ revokedAt: clock.now() })
        .where(
          and(
            eq(apiKeys.id, keyId),
            eq(apiKeys.workspaceId, workspaceId),
            isNull(apiKeys.revokedAt),
          ),
        )
        .returning({ id: apiKeys.id });
      return revoked.length > 0;
    },

    async findApiKeyByHash(keyHash: string): Promise<ApiKeyMatch | null> {
      const [row] = await db
        .select({
          keyId: apiKeys.id,
          workspaceId: apiKeys.workspaceId,
          revokedAt: apiKeys.revokedAt,
          workspaceDeletedAt: workspaces.deletedAt,
        })
        .from(apiKeys)
        .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
        .where(eq(apiKeys.keyHash, keyHash));
      if (!row) return null;
      return {
        keyId: row.keyId,
        workspaceId: row.workspaceId,
        revoked: row.revokedAt !== null,
        workspaceDeleted: row.workspaceDeletedAt !== null,
      };
    },

    /** The workspace as other services see it through the `directory` KV bucket. */
    async directoryEntry(workspaceId: string): Promise<DirectoryWorkspace | null> {
      const workspace = await findWorkspace(workspaceId);
      if (!workspace) return null;
      const rows = await db
        .select({ userId: members.userId, role: members.role })
        .from(members)
        .where(eq(members.workspaceId, workspaceId));
      return {
        id: workspace.id,
        name: workspace.name,
        deleted: workspace.deletedAt !== null,
        members: Object.fromEntries(rows.map((row) => [row.userId, row.role])),
      };
    },

    async listWorkspaceIds(): Promise<string[]> {
      const rows = await db
        .select({ id: workspaces.id })
        .from(workspaces)
        .orderBy(asc(workspaces.createdAt));
      return rows.map((row) => row.id);
    },
  };
}
