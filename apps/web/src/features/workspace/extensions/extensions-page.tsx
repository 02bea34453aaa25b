import { useState, type FormEvent } from 'react';
import { CreateExtensionTokenBody } from '@wap/contracts';
import {
  Button,
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  SecretShownOnce,
  StatusMessage,
  TextField,
} from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import '../workspace.css';
import {
  useExtensionTokens,
  useIssueExtensionToken,
  useRevokeExtensionToken,
  type IssuedExtensionToken,
} from '../api/extension-tokens-api';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'short',
  timeStyle: 'short',
});

/**
 * Authenticating a browser extension (spec, Authentication): a token for 30 days, shown once,
 * and the person's tokens with a way to revoke each (decision 128).
 */
export function ExtensionsPage() {
  // The token lives only in this page's state: leaving the page forgets it for good.
  const [issued, setIssued] = useState<IssuedExtensionToken | null>(null);
  return (
    <>
      <PageHeader
        title="Extensions"
        description="Connect the browser extension to your account: it acts as you, in your workspaces, for 30 days or until you revoke it."
      />
      {issued && (
        <SecretShownOnce
          title={`Token for ${issued.extension_token.name}`}
          instruction={
            <strong>Paste this token into the extension now. It is shown only once.</strong>
          }
          label="Extension token"
          value={issued.token}
          copyLabel="Copy token"
          dismissLabel="I have pasted it"
          onDismiss={() => setIssued(null)}
        />
      )}
      <IssueTokenPanel onIssued={setIssued} />
      <TokenList />
    </>
  );
}

function IssueTokenPanel(props: { onIssued: (token: IssuedExtensionToken) => void }) {
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const issue = useIssueExtensionToken();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(CreateExtensionTokenBody, { name });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    issue.mutate(result.data, {
      onSuccess: (token) => {
        props.onIssued(token);
        setName('');
      },
    });
  };
  return (
    <Panel title="Authenticate an extension">
      <form onSubmit={submit} noValidate>
        {issue.isError && <ErrorMessage error={issue.error} />}
        <TextField
          label="Extension name"
          hint="Which browser or device holds it, for example Chrome on my laptop."
          value={name}
          error={errors['name']}
          onChange={(event) => {
            setName(event.target.value);
            if (errors['name']) setErrors({});
          }}
        />
        <Button type="submit" variant="primary" busy={issue.isPending}>
          Issue token
        </Button>
      </form>
    </Panel>
  );
}

function TokenList() {
  const tokens = useExtensionTokens();
  const revoke = useRevokeExtensionToken();
  if (tokens.isPending) return <LoadingState label="Loading your extension tokens…" />;
  if (tokens.isError) return <ErrorMessage error={tokens.error} />;
  const list = tokens.data.extension_tokens;
  return (
    <section aria-labelledby="extension-tokens-heading">
      <h2 id="extension-tokens-heading">Your extension tokens</h2>
      {revoke.isError && <ErrorMessage error={revoke.error} />}
      {revoke.isSuccess && (
        <StatusMessage>Token revoked: the extension is signed out.</StatusMessage>
      )}
      {list.length === 0 ? (
        <EmptyState title="No extension is connected" />
      ) : (
        <table className="data-table">
          <caption>Extensions that can act as you</caption>
          <thead>
            <tr>
              <th scope="col">Extension</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((token) => (
              <tr key={token.id}>
                <td>
                  <span className="extension-token__name">{token.name}</span>
                  <span className="extension-token__expiry">
                    Expires {dateFormat.format(new Date(token.expires_at))}
                  </span>
                </td>
                <td>
                  {token.last_used_at
                    ? dateTimeFormat.format(new Date(token.last_used_at))
                    : 'Never'}
                </td>
                <td>
                  <Button
                    busy={revoke.isPending && revoke.variables === token.id}
                    onClick={() => revoke.mutate(token.id)}
                    aria-label={`Revoke ${token.name}`}
                  >
                    Revoke
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
