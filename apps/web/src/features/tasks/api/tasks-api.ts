import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  Attachment,
  CommentResponse,
  CommentsResponse,
  CreateTaskBody,
  TaskResponse,
  TasksPage,
} from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { tasksKeys } from './tasks-keys';

type TaskBody = z.infer<typeof TaskResponse>;
type CommentsBody = z.infer<typeof CommentsResponse>;
type CommentBody = z.infer<typeof CommentResponse>;

const taskPath = (taskId: string, rest = '') =>
  `/tasks/${encodeURIComponent(taskId)}${rest ? `/${rest}` : ''}`;

/** The workspace's tasks, newest first, a page per "Load more". */
export function useTasksList(workspaceId: string) {
  const api = useApiClient();
  return useInfiniteQuery({
    queryKey: tasksKeys.list(workspaceId),
    queryFn: ({ signal, pageParam }) =>
      api.get<z.infer<typeof TasksPage>>('/tasks', {
        signal,
        query: { workspaceId, cursor: pageParam },
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useCreateTask() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.infer<typeof CreateTaskBody>) => api.post<TaskBody>('/tasks', body),
    onSuccess: (created) => {
      queryClient.setQueryData(tasksKeys.task(created.task.id), created);
      void queryClient.invalidateQueries({ queryKey: tasksKeys.list(created.task.workspace_id) });
    },
  });
}

export function useTask(taskId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: tasksKeys.task(taskId),
    queryFn: ({ signal }) => api.get<TaskBody>(taskPath(taskId), { signal }),
  });
}

/** The task's comments, oldest first. */
export function useComments(taskId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: tasksKeys.comments(taskId),
    queryFn: ({ signal }) => api.get<CommentsBody>(taskPath(taskId, 'comments'), { signal }),
  });
}

/** A comment with files uploaded to the task before (`uploadAttachment`). */
export function useAddComment(taskId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { body: string; attachments: Attachment[] }) =>
      api.post<CommentBody>(taskPath(taskId, 'comments'), body),
    onSuccess: ({ comment }) =>
      queryClient.setQueryData<CommentsBody>(tasksKeys.comments(taskId), (previous) =>
        previous ? { comments: [...previous.comments, comment] } : previous,
      ),
  });
}

export function useRenameTask(taskId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (title: string) => api.patch<TaskBody>(taskPath(taskId), { title }),
    onSuccess: (renamed) => {
      queryClient.setQueryData(tasksKeys.task(taskId), renamed);
      void queryClient.invalidateQueries({ queryKey: tasksKeys.list(renamed.task.workspace_id) });
    },
  });
}

/** Deletes the task with its comments and their files; the caller leaves its page. */
export function useDeleteTask(workspaceId: string, taskId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<void>(taskPath(taskId)),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: tasksKeys.task(taskId) });
      void queryClient.invalidateQueries({ queryKey: tasksKeys.list(workspaceId) });
    },
  });
}

const commentPath = (taskId: string, commentId: string) =>
  taskPath(taskId, `comments/${encodeURIComponent(commentId)}`);

export function useEditComment(taskId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ commentId, body }: { commentId: string; body: string }) =>
      api.patch<CommentBody>(commentPath(taskId, commentId), { body }),
    onSuccess: ({ comment }) =>
      queryClient.setQueryData<CommentsBody>(tasksKeys.comments(taskId), (previous) =>
        previous
          ? { comments: previous.comments.map((old) => (old.id === comment.id ? comment : old)) }
          : previous,
      ),
  });
}

export function useDeleteComment(taskId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (commentId: string) => api.delete<void>(commentPath(taskId, commentId)),
    onSuccess: (_nothing, commentId) =>
      queryClient.setQueryData<CommentsBody>(tasksKeys.comments(taskId), (previous) =>
        previous
          ? { comments: previous.comments.filter((comment) => comment.id !== commentId) }
          : previous,
      ),
  });
}
