import { useState, type FormEvent } from 'react';
import {
  CreateCredentialBody,
  type CredentialAccess,
  type WorkspaceCredential,
} from '@wap/contracts';
import {
  Button,
  ConfirmButton,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  SelectField,
  StatusMessage,
  TextField,
} from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { useWorkspaceId } from '../../../lib/routing';
import {
  useCreateCredential,
  useDeleteCredential,
  useUpdateCredential,
  useWorkspaceCredentials,
} from '../api/credentials-api';
import { formatShortDateTime } from '../shared/labels';
import '../workflows.css';

const ACCESS_OPTIONS: { value: CredentialAccess; label: string }[] = [
  { value: 'creator_only', label: 'Runs acting as its creator' },
  { value: 'workspace', label: 'Any workflow of the workspace' },
];

/**
 * Workspace credentials (decision 152): named secrets an http_request step sends as
 * `{{credentials.<name>}}`. Values go in and never come back out.
 */
export function CredentialsPage() {
  return (
    <>
      <PageHeader
        title="Credentials"
        description="Secrets for http_request steps, written as {{credentials.NAME}} in a URL, header or body. A saved value is never shown again, and runs show it as [credential NAME]."
      />
      <CredentialList />
      <AddCredential />
    </>
  );
}

function CredentialList() {
  const workspaceId = useWorkspaceId();
  const credentials = useWorkspaceCredentials(workspaceId);
  return (
    <Panel title="Saved credentials">
      {credentials.isPending && <LoadingState label="Loading the credentials…" />}
      {credentials.isError && <ErrorMessage error={credentials.error} />}
      {credentials.data?.credentials.length === 0 && (
        <p className="wf-empty-line">No credential is saved yet.</p>
      )}
      {credentials.data && credentials.data.credentials.length > 0 && (
        <ul className="wf-accounts" aria-label="Saved credentials">
          {credentials.data.credentials.map((credential) => (
            <CredentialItem key={credential.id} credential={credential} />
          ))}
        </ul>
      )}
    </Panel>
  );
}

function CredentialItem(props: { credential: WorkspaceCredential }) {
  const { credential } = props;
  const workspaceId = useWorkspaceId();
  const update = useUpdateCredential(workspaceId, credential.id);
  const remove = useDeleteCredential(workspaceId, credential.id);
  const [value, setValue] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const replace = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (value === '') return;
    update.mutate(
      { value },
      {
        onSuccess: () => {
          setValue('');
          setSaved('New value saved.');
        },
      },
    );
  };
  return (
    <li className="wf-accounts__item">
      <span>
        <code>{`{{credentials.${credential.name}}}`}</code>, changed{' '}
        {formatShortDateTime(credential.updated_at)}
      </span>
      <ConfirmButton
        label="Delete"
        action={`Delete credential ${credential.name}`}
        busy={remove.isPending}
        onConfirm={() => remove.mutate()}
      />
      <form onSubmit={replace} noValidate className="wf-accounts__secret">
        {(update.isError || remove.isError) && (
          <ErrorMessage error={update.error ?? remove.error} title="Not changed" />
        )}
        {saved && <StatusMessage>{saved}</StatusMessage>}
        <SelectField
          label={`Who may use ${credential.name}`}
          options={ACCESS_OPTIONS}
          value={credential.access}
          onChange={(event) =>
            update.mutate(
              { access: event.target.value as CredentialAccess },
              { onSuccess: () => setSaved('Access changed.') },
            )
          }
        />
        <TextField
          label={`New value for ${credential.name}`}
          type="password"
          autoComplete="off"
          value={value}
          onChange={(event) => setValue(event.target.value)}
        />
        <Button type="submit" busy={update.isPending}>
          Replace value
        </Button>
      </form>
    </li>
  );
}

function AddCredential() {
  const workspaceId = useWorkspaceId();
  const create = useCreateCredential(workspaceId);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [access, setAccess] = useState<CredentialAccess>('creator_only');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState<string | null>(null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(null);
    const result = validateForm(CreateCredentialBody, { name, value, access });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    create.mutate(result.data, {
      onSuccess: ({ credential }) => {
        setSaved(`Saved ${credential.name}: write {{credentials.${credential.name}}} in a step.`);
        setName('');
        setValue('');
      },
    });
  };
  return (
    <Panel
      title="Add a credential"
      description="Shared with the workspace, any member's workflow can send it anywhere: keep it to runs acting as you unless that is meant."
    >
      <form onSubmit={submit} noValidate>
        {create.isError && <ErrorMessage error={create.error} title="Not saved" />}
        {saved && <StatusMessage>{saved}</StatusMessage>}
        <TextField
          label="Name"
          hint="A letter, then letters, digits or _: STRIPE_KEY."
          value={name}
          error={errors['name']}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => setName(event.target.value)}
        />
        <TextField
          label="Value"
          type="password"
          autoComplete="off"
          value={value}
          error={errors['value']}
          onChange={(event) => setValue(event.target.value)}
        />
        <SelectField
          label="Who may use it"
          options={ACCESS_OPTIONS}
          value={access}
          onChange={(event) => setAccess(event.target.value as CredentialAccess)}
        />
        <Button type="submit" variant="primary" busy={create.isPending}>
          Save credential
        </Button>
      </form>
    </Panel>
  );
}
