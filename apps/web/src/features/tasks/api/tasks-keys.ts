/** The tasks feature's query keys: one factory, so an invalidation names exactly what it means. */
export const tasksKeys = {
  all: ['tasks'] as const,
  /** The workspace's tasks, newest first, as far as they were paged. */
  list: (workspaceId: string) => [...tasksKeys.all, 'list', workspaceId] as const,
  task: (taskId: string) => [...tasksKeys.all, taskId] as const,
  comments: (taskId: string) => [...tasksKeys.task(taskId), 'comments'] as const,
};
