import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { CreateTaskBody } from '@wap/contracts';
import { Button, ErrorMessage, PagedRecordList, RecordsPage, TextField } from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useCreateTask, useTasksList } from '../api/tasks-api';
import '../tasks.css';

/** `/tasks`: the workspace's tasks, newest first, and a form that creates one. */
export function TasksPage() {
  const workspaceId = useWorkspaceId();
  return (
    <RecordsPage
      title="Tasks"
      description="Work to follow up, discussed in comments with the files that go with it."
      noun="task"
      createForm={<CreateTaskForm workspaceId={workspaceId} />}
      list={<TasksList workspaceId={workspaceId} />}
    />
  );
}

function TasksList(props: { workspaceId: string }) {
  return (
    <PagedRecordList
      query={useTasksList(props.workspaceId)}
      itemsOf={(page) => page.tasks}
      noun="tasks"
      empty={{
        title: 'No tasks yet',
        hint: 'Create the first one above; comments and files go on its page.',
      }}
    >
      {(task) => (
        <>
          <Link to={appPaths.workspace(props.workspaceId, `tasks/${task.id}`)}>{task.title}</Link>{' '}
          <span className="task-muted">
            created{' '}
            {new Date(task.created_at).toLocaleDateString(undefined, { dateStyle: 'medium' })}
          </span>
        </>
      )}
    </PagedRecordList>
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
