import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Attachment } from '@wap/contracts';
import { type KeysetPosition, type Clock, type IdSource, type SqlDatabase } from '@wap/platform';
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
}

export type TasksRepository = ReturnType<typeof createTasksRepository>;

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

    async addAttachment(
      input: Omit<AttachmentRecord, 'createdAt' | 'id'> & { id: string },
    ): Promise<AttachmentRecord> {
      const attachment: AttachmentRecord = { ...input, createdAt: clock.now() };
      await db.insert(taskAttachments).values(attachment);
      return attachment;
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

    async addComment(input: Omit<CommentRecord, 'id' | 'createdAt'>): Promise<CommentRecord> {
      const comment: CommentRecord = { id: ids.uuid(), ...input, createdAt: clock.now() };
      await db.insert(taskComments).values(comment);
      return comment;
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
