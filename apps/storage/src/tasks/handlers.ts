import {
  AppError,
  CommentParams,
  CreateCommentBody,
  CreateTaskBody,
  IdParams,
  StoredUpload,
  TASK_FILES_BUCKET,
  TaskFileParams,
  TaskIdParams,
  UpdateCommentBody,
  UpdateTaskBody,
  type Actor,
  type Attachment,
  type AttachmentType,
  type PrepareUploadRequest,
  type StoredFile,
  type Task,
  type TaskComment,
  type UploadTarget,
} from '@wap/contracts';
import type { Logger } from 'pino';
import { createActorRateLimit, type ActorRateLimits } from '@wap/http';
import { type BusCaller, type Clock, type IdSource, type ObjectStore } from '@wap/platform';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import { requireMember, requireVisible, type WorkspaceStanding } from '../directory/access';
import { workspaceListHandler } from '../http/pages';
import {
  nameInUrl,
  type AttachmentRecord,
  type CommentRecord,
  type TaskRecord,
  type TasksRepository,
} from './repository';

const TASKS_LIST = 'tasks';

export type TaskOperation =
  | 'list_tasks'
  | 'create_task'
  | 'get_task'
  | 'update_task'
  | 'delete_task'
  | 'create_task_comment'
  | 'list_task_comments'
  | 'update_task_comment'
  | 'delete_task_comment'
  | 'upload_task_comment_attachment'
  | 'download_task_file';

export interface TasksHandlersDeps {
  repository: TasksRepository;
  ids: IdSource;
  standingOf(workspaceId: string, userId: string): Promise<WorkspaceStanding>;
  /** Uploads a minute per person and per workspace (decision 124). */
  uploadLimits: ActorRateLimits;
  clock: Clock;
  /** Where attachments' files are: deleted with their task or their comment. */
  objects: ObjectStore;
  logger: Logger;
}

const TASK_NOT_FOUND = 'Task not found';
const FILE_NOT_FOUND = 'File not found';
const COMMENT_NOT_FOUND = 'Comment not found';

/** The extension of each kind in the generated file name. */
const EXTENSIONS: Record<AttachmentType, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/plain': 'txt',
  'text/csv': 'csv',
};

/** Extensions a file name of each kind may keep besides its own (EXTENSIONS). */
const OTHER_EXTENSIONS: Partial<Record<AttachmentType, readonly string[]>> = {
  'image/jpeg': ['jpeg', 'jpe'],
  'text/plain': ['text', 'md', 'log'],
};

/**
 * The uploaded name with the extension of the kind its bytes were found to be: `x.html` stored as
 * a PNG is `x.png`, so no download is opened as something it is not (decision 122). A name
 * without an extension gets one.
 */
function nameOfKind(fileName: string, type: AttachmentType): string {
  const own = EXTENSIONS[type];
  const dot = fileName.lastIndexOf('.');
  const extension = dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
  if (extension === own || OTHER_EXTENSIONS[type]?.includes(extension)) return fileName;
  const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
  return `${stem.slice(0, 255 - own.length - 1)}.${own}`;
}

/** Where the files of a task's comments live: `task-comments/{workspaceId}/{taskId}/`. */
function folderOf(workspaceId: string, taskId: string): string {
  return `task-comments/${workspaceId}/${taskId}/`;
}

function taskBody(task: TaskRecord): Task {
  return {
    id: task.id,
    workspace_id: task.workspaceId,
    title: task.title,
    created_by: task.createdBy,
    created_at: task.createdAt.toISOString(),
    updated_at: task.updatedAt.toISOString(),
  };
}

function attachmentBody(attachment: AttachmentRecord): Attachment {
  return {
    url: `/files/${folderOf(attachment.workspaceId, attachment.taskId)}${attachment.name}`,
    name: attachment.fileName,
    type: attachment.type,
    size: attachment.size,
  };
}

function commentBody(comment: CommentRecord): TaskComment {
  return {
    id: comment.id,
    task_id: comment.taskId,
    workspace_id: comment.workspaceId,
    body: comment.body,
    attachments: comment.attachments,
    created_by: comment.createdBy,
    created_at: comment.createdAt.toISOString(),
    edited_at: comment.editedAt?.toISOString() ?? null,
  };
}

/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function createTasksHandlers(deps: TasksHandlersDeps) {
  const uploadLimit = createActorRateLimit(deps.uploadLimits, 'uploads', () =>
    deps.clock.now().getTime(),
  );
  const { repository, standingOf } = deps;

  async function visibleTask(taskId: string, userId: string): Promise<TaskRecord> {
    return (await visibleTaskWithRole(taskId, userId)).task;
  }

  async function visibleTaskWithRole(
    taskId: string,
    userId: string,
  ): Promise<{ task: TaskRecord; role: WorkspaceStanding['role'] }> {
    const found = await repository.findTask(taskId);
    const standing = found ? await standingOf(found.workspaceId, userId) : null;
    const task = requireVisible(found, standing, TASK_NOT_FOUND);
    return { task, role: standing?.role ?? null };
  }

  /** The comment, when the caller may change it: its author, or for `delete` an owner too. */
  async function changeableComment(
    params: unknown,
    actor: Actor,
    change: 'edit' | 'delete',
  ): Promise<CommentRecord> {
    const { taskId, commentId } = parseRequestPart(CommentParams, params);
    const { task, role } = await visibleTaskWithRole(taskId, actor.userId);
    const comment = await repository.findComment(task.id, commentId);
    if (!comment) throw new AppError('NOT_FOUND', COMMENT_NOT_FOUND);
    const mayChange =
      comment.createdBy === actor.userId || (change === 'delete' && role === 'owner');
    if (!mayChange) {
      throw new AppError(
        'FORBIDDEN',
        change === 'edit'
          ? 'Only the author of a comment can edit it'
          : 'Only the author of a comment or an owner of the workspace can delete it',
      );
    }
    return comment;
  }

  /**
   * Files whose rows are gone. A file that cannot be deleted now is logged and left: its address
   * no longer answers, so it is unreachable, not exposed.
   */
  async function deleteFiles(objectNames: string[]): Promise<void> {
    for (const objectName of objectNames) {
      await deps.objects.delete(TASK_FILES_BUCKET, objectName).catch((error: unknown) => {
        deps.logger.warn(
          { err: error, objectName },
          'attachment file left after its rows were deleted',
        );
      });
    }
  }

  const routes: Record<TaskOperation, RouteHandler> = {
    list_tasks: workspaceListHandler({
      cursor: TASKS_LIST,
      field: 'tasks',
      standingOf,
      read: (workspaceId, after, limit) => repository.listTasks(workspaceId, after, limit),
      toBody: taskBody,
    }),

    async create_task(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(CreateTaskBody, request.body);
      requireMember(await standingOf(body.workspaceId, actor.userId));
      const task = await repository.createTask({ ...body, createdBy: actor.userId });
      return { status: 201, body: { task: taskBody(task) } };
    },

    async get_task(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      return { status: 200, body: { task: taskBody(await visibleTask(id, actor.userId)) } };
    },

    async update_task(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const body = parseRequestPart(UpdateTaskBody, request.body);
      await visibleTask(id, actor.userId);
      const task = await repository.renameTask(id, body.title);
      if (!task) throw new AppError('NOT_FOUND', TASK_NOT_FOUND);
      return { status: 200, body: { task: taskBody(task) } };
    },

    async delete_task(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const task = await visibleTask(id, actor.userId);
      await deleteFiles(await repository.deleteTask(task.id));
      return { status: 204 };
    },

    async create_task_comment(request) {
      const actor = actorOf(request);
      const { taskId } = parseRequestPart(TaskIdParams, request.params);
      const body = parseRequestPart(CreateCommentBody, request.body);
      const task = await visibleTask(taskId, actor.userId);
      const prefix = `/files/${folderOf(task.workspaceId, task.id)}`;
      const names = body.attachments.map((attachment) =>
        attachment.url.startsWith(prefix) ? attachment.url.slice(prefix.length) : '',
      );
      const found = await repository.attachmentsNamed(task.id, names);
      const byName = new Map(found.map((attachment) => [attachment.name, attachment]));
      const attachments = names.map((name, index) => {
        const attachment = byName.get(name);
        if (!attachment) {
          throw new AppError('VALIDATION_ERROR', 'Invalid attachments', {
            details: [
              {
                path: `body.attachments.${index}.url`,
                message: 'not a file uploaded to this task',
              },
            ],
          });
        }
        // The stored description, not the client's copy of it.
        return attachmentBody(attachment);
      });
      const comment = await repository.addComment({
        workspaceId: task.workspaceId,
        taskId: task.id,
        body: body.body,
        attachments,
        createdBy: actor.userId,
      });
      if (!comment) throw new AppError('NOT_FOUND', TASK_NOT_FOUND);
      return { status: 201, body: { comment: commentBody(comment) } };
    },

    async update_task_comment(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(UpdateCommentBody, request.body);
      const comment = await changeableComment(request.params, actor, 'edit');
      if (body.body.trim() === '' && comment.attachments.length === 0) {
        throw new AppError('VALIDATION_ERROR', 'Invalid request body', {
          details: [{ path: 'body.body', message: 'a comment without files needs text' }],
        });
      }
      const edited = await repository.editComment(comment.id, body.body);
      if (!edited) throw new AppError('NOT_FOUND', COMMENT_NOT_FOUND);
      return { status: 200, body: { comment: commentBody(edited) } };
    },

    async delete_task_comment(request) {
      const actor = actorOf(request);
      const comment = await changeableComment(request.params, actor, 'delete');
      const names = comment.attachments.map((attachment) => nameInUrl(attachment.url));
      await deleteFiles(await repository.deleteComment(comment.taskId, comment.id, names));
      return { status: 204 };
    },

    async list_task_comments(request) {
      const actor = actorOf(request);
      const { taskId } = parseRequestPart(TaskIdParams, request.params);
      const task = await visibleTask(taskId, actor.userId);
      const comments = await repository.commentsOf(task.id);
      return { status: 200, body: { comments: comments.map(commentBody) } };
    },

    async upload_task_comment_attachment(request) {
      const actor = actorOf(request);
      const { taskId } = parseRequestPart(TaskIdParams, request.params);
      const upload = parseRequestPart(StoredUpload, request.body);
      const task = await visibleTask(taskId, actor.userId);
      requireSameWorkspace(upload.fields['workspaceId'], task);
      const folder = folderOf(task.workspaceId, task.id);
      if (upload.bucket !== TASK_FILES_BUCKET || !upload.objectName.startsWith(folder)) {
        throw new AppError('BAD_REQUEST', 'The upload was not prepared for this task');
      }
      const id = upload.objectName.slice(folder.length);
      const attachment = await repository.addAttachment({
        id,
        workspaceId: task.workspaceId,
        taskId: task.id,
        name: `${id}.${EXTENSIONS[upload.type]}`,
        fileName: nameOfKind(upload.fileName, upload.type),
        type: upload.type,
        size: upload.size,
        objectName: upload.objectName,
        createdBy: actor.userId,
      });
      // The gateway deletes the stored file of an upload that is not answered 2XX.
      if (!attachment) throw new AppError('NOT_FOUND', TASK_NOT_FOUND);
      return { status: 200, body: attachmentBody(attachment) };
    },

    async download_task_file(request) {
      const actor = actorOf(request);
      const { workspaceId, taskId, name } = parseRequestPart(TaskFileParams, request.params);
      const attachment = await repository.findAttachment(workspaceId, taskId, name);
      const standing = attachment ? await standingOf(workspaceId, actor.userId) : null;
      const visible = requireVisible(attachment, standing, FILE_NOT_FOUND);
      const file: StoredFile = {
        bucket: TASK_FILES_BUCKET,
        objectName: visible.objectName,
        fileName: visible.fileName,
        type: visible.type,
        size: visible.size,
      };
      return { status: 200, body: file };
    },
  };

  /** Before a byte is stored: the caller may attach to this task; the file's object name. */
  async function prepareUpload(
    request: PrepareUploadRequest,
    caller: BusCaller,
  ): Promise<UploadTarget> {
    const { taskId } = parseRequestPart(TaskIdParams, request.params);
    // The subject registry makes the trust layer refuse a prepare that names nobody.
    if (!caller.user) throw new AppError('UNAUTHORIZED', 'Authentication required');
    const task = await visibleTask(taskId, caller.user.userId);
    uploadLimit.take(task.workspaceId, caller.user.userId);
    return {
      bucket: TASK_FILES_BUCKET,
      objectName: `${folderOf(task.workspaceId, task.id)}${deps.ids.uuid()}`,
    };
  }

  return { routes, prepareUpload };
}

/** Spec endpoint 8: `workspaceId` must be the task's workspace. */
function requireSameWorkspace(workspaceId: string | undefined, task: TaskRecord): void {
  if (workspaceId === undefined) {
    throw new AppError('VALIDATION_ERROR', 'Invalid request body', {
      details: [{ path: 'body.workspaceId', message: 'workspaceId is required' }],
    });
  }
  if (workspaceId !== task.workspaceId) {
    throw new AppError('FORBIDDEN', "workspaceId is not the task's workspace");
  }
}
