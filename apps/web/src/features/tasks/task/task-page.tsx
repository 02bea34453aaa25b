import { useState } from 'react';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import {
  Button,
  ConfirmButton,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  RenamePanel,
} from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useDeleteTask, useRenameTask, useTask } from '../api/tasks-api';
import { CommentComposer } from './comment-composer';
import { CommentList } from './comment-list';
import '../tasks.css';

/** `/tasks/:taskId`: the task's comments, a comment with attached files, rename and delete. */
export function TaskPage() {
  const workspaceId = useWorkspaceId();
  const { taskId = '' } = useParams();
  const task = useTask(taskId);
  const renameTask = useRenameTask(taskId);
  const deleteTask = useDeleteTask(workspaceId, taskId);
  const navigate = useNavigate();
  const [renaming, setRenaming] = useState(false);
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
        actions={
          <div className="button-row">
            {backLink}
            <Button onClick={() => setRenaming(true)}>Rename</Button>
            <ConfirmButton
              label="Delete task"
              action={`Delete ${record.title} with its comments and files`}
              busy={deleteTask.isPending}
              onConfirm={() =>
                deleteTask.mutate(undefined, {
                  onSuccess: () => void navigate(appPaths.workspace(workspaceId, 'tasks')),
                })
              }
            />
          </div>
        }
      />
      {deleteTask.isError && <ErrorMessage error={deleteTask.error} title="Task not deleted" />}
      {renaming && (
        <RenamePanel
          title="Rename the task"
          label="Task title"
          value={record.title}
          busy={renameTask.isPending}
          error={renameTask.error}
          onSave={(title) => renameTask.mutate(title, { onSuccess: () => setRenaming(false) })}
          onCancel={() => setRenaming(false)}
        />
      )}
      <Panel title="Comments">
        <CommentList taskId={taskId} workspaceId={record.workspace_id} />
      </Panel>
      <Panel title="Add a comment">
        <CommentComposer taskId={taskId} workspaceId={record.workspace_id} />
      </Panel>
    </>
  );
}
