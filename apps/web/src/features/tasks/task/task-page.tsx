import { Link, Navigate, useParams } from 'react-router';
import { ErrorMessage, LoadingState, PageHeader, Panel } from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useTask } from '../api/tasks-api';
import { CommentComposer } from './comment-composer';
import { CommentList } from './comment-list';
import '../tasks.css';

/** `/tasks/:taskId`: the task's comments, and a comment with attached files. */
export function TaskPage() {
  const workspaceId = useWorkspaceId();
  const { taskId = '' } = useParams();
  const task = useTask(taskId);
  const backLink = <Link to={appPaths.workspace(workspaceId, 'tasks')}>All tasks</Link>;
  if (task.isPending) return <LoadingState label="Loading the task…" />;
  if (task.isError) {
    return (
      <>
        <PageHeader title="Task" actions={backLink} />
        <ErrorMessage error={task.error} />
      </>
    );
  }
  const { task: record } = task.data;
  // A link into another of the person's workspaces opens the task where it lives.
  if (record.workspace_id !== workspaceId) {
    return <Navigate to={appPaths.workspace(record.workspace_id, `tasks/${taskId}`)} replace />;
  }
  return (
    <>
      <PageHeader
        title={record.title}
        description={`Created ${new Date(record.created_at).toLocaleString(undefined, {
          dateStyle: 'medium',
          timeStyle: 'short',
        })}`}
        actions={backLink}
      />
      <Panel title="Comments">
        <CommentList taskId={taskId} />
      </Panel>
      <Panel title="Add a comment">
        <CommentComposer taskId={taskId} workspaceId={record.workspace_id} />
      </Panel>
    </>
  );
}
