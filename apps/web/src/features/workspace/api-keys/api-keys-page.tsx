import { useState, type FormEvent } from 'react';
import { CreateApiKeyBody } from '@wap/contracts';
import {
  Button,
  ErrorMessage,
  PageHeader,
  Panel,
  SecretShownOnce,
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
        <SecretShownOnce
          title={`New key: ${created.name}`}
          instruction={
            <>
              <strong>Copy this key now.</strong> It is shown only once; the platform keeps only a
              hash of it.
            </>
          }
          label="API key"
          value={created.key}
          copyLabel="Copy key"
          dismissLabel="I have saved it"
          onDismiss={() => setCreated(null)}
        />
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
