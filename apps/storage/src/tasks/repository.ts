import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Attachment } from '@wap/contracts';
import { type Clock, type IdSource, type SqlDatabase } from '@wap/platform';
import { type KeysetPosition } from '@wap/bus-protocol';
import { isForeignKeyViolation } from '../db/errors';
import { newestFirst } from '../db/newest-first';
import { taskAttachments, taskComments, tasks } from '../db/schema';

export interface TaskRecord {
  id: string;
  workspaceId: string;
  title: string;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface AttachmentRecord {
  id: string;
  workspaceId: string;
  taskId: string;
  name: string;
  fileName: string;
  type: string;
  size: number;
  objectName: string;
  createdBy: string;
  createdAt: Date;
}

export interface CommentRecord {
  id: string;
  workspaceId: string;
  taskId: string;
  body: string;
  attachments: Attachment[];
  createdBy: string;
  createdAt: Date;
  editedAt: Date | null;
}

/** The generated file name at the end of an attachment's address. */
export function nameInUrl(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

export type TasksRepository = ReturnType<typeof createTasksRepository>;

/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createTasksRepository(deps: { db: SqlDatabase; clock: Clock; ids: IdSource }) {
  const { db, clock, ids } = deps;

  return {
    async createTask(input: {
      workspaceId: string;
      title: string;
      createdBy: string;
    }): Promise<TaskRecord> {
      const now = clock.now();
      const task: TaskRecord = { id: ids.uuid(), ...input, createdAt: now, updatedAt: now };
      await db.insert(tasks).values(task);
      return task;
    },

    /** Up to `limit` tasks of the workspace after `after`, newest first. */
    async listTasks(
      workspaceId: string,
      after: KeysetPosition | undefined,
      limit: number,
    ): Promise<TaskRecord[]> {
      const order = newestFirst(tasks);
      return db
        .select()
        .from(tasks)
        .where(and(eq(tasks.workspaceId, workspaceId), order.after(after)))
        .orderBy(...order.orderBy)
        .limit(limit);
    },

    async findTask(taskId: string): Promise<TaskRecord | null> {
      const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
      return task ?? null;
    },

    async renameTask(taskId: string, title: string): Promise<TaskRecord | null> {
      const [task] = await db
        .update(tasks)
        .set({ title, updatedAt: clock.now() })
        .where(eq(tasks.id, taskId))
        .returning();
      return task ?? null;
    },

    /**
     * Deletes the task, its comments and its attachments at once; returns the object names of
     * the attachments' files, for the caller to delete once the rows are gone.
     */
    async deleteTask(taskId: string): Promise<string[]> {
      return db.transaction(async (tx) => {
        await tx.execute(sql`select id from ${tasks} where id = ${taskId} for update`);
        await tx.delete(taskComments).where(eq(taskComments.taskId, taskId));
        const files = await tx
          .delete(taskAttachments)
          .where(eq(taskAttachments.taskId, taskId))
          .returning({ objectName: taskAttachments.objectName });
        await tx.delete(tasks).where(eq(tasks.id, taskId));
        return files.map((file) => file.objectName);
      });
    },

    /** Null when the task was deleted meanwhile. */
    async addAttachment(
      input: Omit<AttachmentRecord, 'createdAt' | 'id'> & { id: string },
    ): Promise<AttachmentRecord | null> {
      const attachment: AttachmentRecord = { ...input, createdAt: clock.now() };
      try {
        await db.insert(taskAttachments).values(attachment);
        return attachment;
      } catch (error) {
        if (isForeignKeyViolation(error)) return null;
        throw error;
      }
    },

    async findAttachment(
      workspaceId: string,
      taskId: string,
      name: string,
    ): Promise<AttachmentRecord | null> {
      const [attachment] = await db
        .select()
        .from(taskAttachments)
        .where(
          and(
            eq(taskAttachments.workspaceId, workspaceId),
            eq(taskAttachments.taskId, taskId),
            eq(taskAttachments.name, name),
          ),
        );
      return attachment ?? null;
    },

    async attachmentsNamed(taskId: string, names: string[]): Promise<AttachmentRecord[]> {
      if (names.length === 0) return [];
      return db
        .select()
        .from(taskAttachments)
        .where(and(eq(taskAttachments.taskId, taskId), inArray(taskAttachments.name, names)));
    },

    /** Null when the task was deleted meanwhile. */
    async addComment(
      input: Omit<CommentRecord, 'id' | 'createdAt' | 'editedAt'>,
    ): Promise<CommentRecord | null> {
      const comment: CommentRecord = {
        id: ids.uuid(),
        ...input,
        createdAt: clock.now(),
        editedAt: null,
      };
      try {
        await db.insert(taskComments).values(comment);
        return comment;
      } catch (error) {
        if (isForeignKeyViolation(error)) return null;
        throw error;
      }
    },

    async findComment(taskId: string, commentId: string): Promise<CommentRecord | null> {
      const [row] = await db
        .select()
        .from(taskComments)
        .where(and(eq(taskComments.id, commentId), eq(taskComments.taskId, taskId)));
      if (!row) return null;
      const { seq: _seq, ...comment } = row;
      return comment;
    },

    async editComment(commentId: string, body: string): Promise<CommentRecord | null> {
      const [row] = await db
        .update(taskComments)
        .set({ body, editedAt: clock.now() })
        .where(eq(taskComments.id, commentId))
        .returning();
      if (!row) return null;
      const { seq: _seq, ...comment } = row;
      return comment;
    },

    /**
     * Deletes the comment and the attachments named in `names` that no other comment of the
     * task holds; returns the object names of the files to delete once the rows are gone.
     * The task's row is locked so that two comments sharing a file, deleted together, do not
     * each leave it to the other.
     */
    async deleteComment(taskId: string, commentId: string, names: string[]): Promise<string[]> {
      return db.transaction(async (tx) => {
        await tx.execute(sql`select id from ${tasks} where id = ${taskId} for update`);
        await tx.delete(taskComments).where(eq(taskComments.id, commentId));
        if (names.length === 0) return [];
        const others = await tx
          .select({ attachments: taskComments.attachments })
          .from(taskComments)
          .where(and(eq(taskComments.taskId, taskId), ne(taskComments.id, commentId)));
        const held = new Set(
          others.flatMap((other) =>
            other.attachments.map((attachment) => nameInUrl(attachment.url)),
          ),
        );
        const orphans = names.filter((name) => !held.has(name));
        if (orphans.length === 0) return [];
        const files = await tx
          .delete(taskAttachments)
          .where(and(eq(taskAttachments.taskId, taskId), inArray(taskAttachments.name, orphans)))
          .returning({ objectName: taskAttachments.objectName });
        return files.map((file) => file.objectName);
      });
    },

    async commentsOf(taskId: string): Promise<CommentRecord[]> {
      const rows = await db
        .select()
        .from(taskComments)
        .where(eq(taskComments.taskId, taskId))
        .orderBy(asc(taskComments.seq));
      return rows.map(({ seq: _seq, ...comment }) => comment);
    },
  };
}
