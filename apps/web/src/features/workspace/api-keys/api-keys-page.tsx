import { useState, type FormEvent } from 'react';
import { CreateApiKeyBody } from '@wap/contracts';
import {
  Button,
  CopyButton,
  ErrorMessage,
  PageHeader,
  Panel,
  TextField,
} from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { useWorkspaceId } from '../../../lib/routing';
import '../workspace.css';
import { useCreateApiKey, type CreatedApiKey } from '../api/workspace-api';

export function ApiKeysPage() {
  const workspaceId = useWorkspaceId();
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  // The secret lives only in this page's state: leaving the page forgets it for good.
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const createKey = useCreateApiKey(workspaceId);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(CreateApiKeyBody, { name });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    createKey.mutate(result.data, {
      onSuccess: (key) => {
        setCreated(key);
        setName('');
      },
    });
  };
  return (
    <>
      <PageHeader
        title="API keys"
        description="A key lets a program act in this workspace: the platform's MCP server at /mcp takes it as a Bearer token."
      />
      {created && (
        <Panel title={`New key: ${created.name}`}>
          <p>
            <strong>Copy this key now.</strong> It is shown only once; the platform keeps only a
            hash of it.
          </p>
          <TextField
            label="API key"
            className="secret-value"
            readOnly
            value={created.key}
            onFocus={(event) => event.target.select()}
          />
          <p className="button-row">
            <CopyButton value={created.key} label="Copy key" />
            <Button onClick={() => setCreated(null)}>I have saved it</Button>
          </p>
        </Panel>
      )}
      <Panel title="Create a key">
        <form onSubmit={submit} noValidate>
          {createKey.isError && <ErrorMessage error={createKey.error} />}
          <TextField
            label="Key name"
            hint="Where the key is used, for example Claude Desktop."
            value={name}
            error={errors['name']}
            onChange={(event) => setName(event.target.value)}
          />
          <Button type="submit" variant="primary" busy={createKey.isPending}>
            Create key
          </Button>
        </form>
      </Panel>
    </>
  );
}
