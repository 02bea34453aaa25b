import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { CreateTaskBody } from '@wap/contracts';
import {
  Button,
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  TextField,
} from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useCreateTask, useTasksList } from '../api/tasks-api';
import '../tasks.css';

/** `/tasks`: the workspace's tasks, newest first, and a form that creates one. */
export function TasksPage() {
  const workspaceId = useWorkspaceId();
  return (
    <>
      <PageHeader
        title="Tasks"
        description="Work to follow up, discussed in comments with the files that go with it."
      />
      <Panel title="New task">
        <CreateTaskForm workspaceId={workspaceId} />
      </Panel>
      <Panel title="All tasks">
        <TasksList workspaceId={workspaceId} />
      </Panel>
    </>
  );
}

function TasksList(props: { workspaceId: string }) {
  const tasks = useTasksList(props.workspaceId);
  if (tasks.isPending) return <LoadingState label="Loading the tasks…" />;
  // A failed "Load more" keeps the tasks already shown; only a failed first page has none.
  if (!tasks.data) return <ErrorMessage error={tasks.error} />;
  const all = tasks.data.pages.flatMap((page) => page.tasks);
  if (all.length === 0) {
    return (
      <EmptyState title="No tasks yet">
        <p>Create the first one above; comments and files go on its page.</p>
      </EmptyState>
    );
  }
  return (
    <>
      <ul className="task-record-list">
        {all.map((task) => (
          <li key={task.id}>
            <Link to={appPaths.workspace(props.workspaceId, `tasks/${task.id}`)}>{task.title}</Link>{' '}
            <span className="task-muted">
              created{' '}
              {new Date(task.created_at).toLocaleDateString(undefined, { dateStyle: 'medium' })}
            </span>
          </li>
        ))}
      </ul>
      {tasks.isError && <ErrorMessage error={tasks.error} />}
      {tasks.hasNextPage && (
        <Button busy={tasks.isFetchingNextPage} onClick={() => void tasks.fetchNextPage()}>
          Load more tasks
        </Button>
      )}
    </>
  );
}

function CreateTaskForm(props: { workspaceId: string }) {
  const [title, setTitle] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const createTask = useCreateTask();
  const navigate = useNavigate();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(CreateTaskBody, { workspaceId: props.workspaceId, title });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    createTask.mutate(result.data, {
      onSuccess: ({ task }) =>
        void navigate(appPaths.workspace(props.workspaceId, `tasks/${task.id}`)),
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      {createTask.isError && <ErrorMessage error={createTask.error} />}
      <TextField
        label="Task title"
        hint="For example: Send the signed contract to Acme."
        value={title}
        error={errors['title']}
        onChange={(event) => setTitle(event.target.value)}
      />
      <Button type="submit" variant="primary" busy={createTask.isPending}>
        Create task
      </Button>
    </form>
  );
}
