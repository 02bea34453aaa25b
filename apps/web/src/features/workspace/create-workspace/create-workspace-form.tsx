import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { CreateWorkspaceBody } from '@wap/contracts';
import { Button, ErrorMessage, TextField } from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { appPaths } from '../../../lib/routing';
import { useCreateWorkspace } from '../api/workspace-api';

/** Names and creates a workspace, then opens it; the creator becomes its owner. */
export function CreateWorkspaceForm() {
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const createWorkspace = useCreateWorkspace();
  const navigate = useNavigate();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(CreateWorkspaceBody, { name });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    createWorkspace.mutate(result.data, {
      onSuccess: ({ workspace }) => void navigate(appPaths.workspace(workspace.id)),
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      {createWorkspace.isError && <ErrorMessage error={createWorkspace.error} />}
      <TextField
        label="Workspace name"
        hint="Your team or project, for example Acme Support."
        value={name}
        error={errors['name']}
        onChange={(event) => setName(event.target.value)}
      />
      <Button type="submit" variant="primary" busy={createWorkspace.isPending}>
        Create workspace
      </Button>
    </form>
  );
}
