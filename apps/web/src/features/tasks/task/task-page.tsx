import { useState, type ReactElement } from 'react';
import { useNavigate, useParams } from 'react-router';
import type { Task } from '@wap/contracts';
import {
  Button,
  ConfirmButton,
  ErrorMessage,
  PageHeader,
  Panel,
  RenamePanel,
} from '../../../components';
import { appPaths, RecordFrame, useWorkspaceId } from '../../../lib/routing';
import { useDeleteTask, useRenameTask, useTask } from '../api/tasks-api';
import { CommentComposer } from './comment-composer';
import { CommentList } from './comment-list';
import '../tasks.css';

/** `/tasks/:taskId`: the task's comments, a comment with attached files, rename and delete. */
export function TaskPage() {
  const { taskId = '' } = useParams();
  return (
    <RecordFrame
      query={useTask(taskId)}
      noun="Task"
      list={{ path: 'tasks', label: 'All tasks' }}
      recordPath={`tasks/${taskId}`}
      workspaceIdOf={(data) => data.task.workspace_id}
    >
      {(data, backLink) => <TaskView record={data.task} backLink={backLink} />}
    </RecordFrame>
  );
}

function TaskView({ record, backLink }: { record: Task; backLink: ReactElement }) {
  const workspaceId = useWorkspaceId();
  const taskId = record.id;
  const renameTask = useRenameTask(taskId);
  const deleteTask = useDeleteTask(workspaceId, taskId);
  const navigate = useNavigate();
  const [renaming, setRenaming] = useState(false);
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
