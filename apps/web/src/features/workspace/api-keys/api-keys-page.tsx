import { useState, type FormEvent } from 'react';
import { CreateApiKeyBody } from '@wap/contracts';
import {
  Button,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  SecretShownOnce,
  StatusMessage,
  TextField,
} from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { useWorkspaceId } from '../../../lib/routing';
import '../workspace.css';
import {
  useApiKeys,
  useCreateApiKey,
  useRevokeApiKey,
  type ApiKeySummary,
  type CreatedApiKey,
} from '../api/workspace-api';

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
      <KeysInUse />
    </>
  );
}

/** The keys that still work, each revocable after a confirmation. */
function KeysInUse() {
  const workspaceId = useWorkspaceId();
  const keys = useApiKeys(workspaceId);
  const revoke = useRevokeApiKey(workspaceId);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  return (
    <Panel
      title="Keys in use"
      description="Revoking a key refuses it from the next request on; whatever uses it must get a new one."
    >
      {keys.isPending && <LoadingState label="Loading the keys…" />}
      {keys.isError && <ErrorMessage error={keys.error} />}
      {revoke.isError && <ErrorMessage error={revoke.error} title="Not revoked" />}
      {revoked && <StatusMessage>Revoked {revoked}.</StatusMessage>}
      {keys.data && keys.data.api_keys.length === 0 && (
        <p className="workspace-empty-line">No key is in use.</p>
      )}
      {keys.data && keys.data.api_keys.length > 0 && (
        <ul className="api-keys" aria-label="Keys in use">
          {keys.data.api_keys.map((key) => (
            <KeyItem
              key={key.id}
              apiKey={key}
              confirming={confirming === key.id}
              busy={revoke.isPending && revoke.variables === key.id}
              onAsk={() => setConfirming(key.id)}
              onCancel={() => setConfirming(null)}
              onRevoke={() =>
                revoke.mutate(key.id, {
                  onSuccess: () => {
                    setConfirming(null);
                    setRevoked(key.name);
                  },
                })
              }
            />
          ))}
        </ul>
      )}
    </Panel>
  );
}

function KeyItem(props: {
  apiKey: ApiKeySummary;
  confirming: boolean;
  busy: boolean;
  onAsk: () => void;
  onCancel: () => void;
  onRevoke: () => void;
}) {
  const { apiKey } = props;
  return (
    <li className="api-keys__item">
      <div>
        <strong>{apiKey.name}</strong> <code>{apiKey.prefix}…</code>
        <p className="api-keys__meta">
          Created by {apiKey.created_by_name} on {new Date(apiKey.created_at).toLocaleDateString()}
        </p>
      </div>
      {props.confirming ? (
        <div className="button-row" role="group" aria-label={`Confirm revoking ${apiKey.name}`}>
          <Button variant="danger" busy={props.busy} onClick={props.onRevoke}>
            Revoke {apiKey.name} for good
          </Button>
          <Button onClick={props.onCancel}>Keep it</Button>
        </div>
      ) : (
        <Button variant="danger" aria-label={`Revoke ${apiKey.name}`} onClick={props.onAsk}>
          Revoke
        </Button>
      )}
    </li>
  );
}
