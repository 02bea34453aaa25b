import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { z } from 'zod';
import {
  ConnectProviderAccountBody,
  PROVIDER_ACCOUNT_TERMS,
  PROVIDER_MAKES_SECRET,
  PROVIDERS,
  type Provider,
  type ProviderAccount,
  type ProviderAccountResponse,
} from '@wap/contracts';
import {
  Button,
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  SecretShownOnce,
  SelectField,
  StatusMessage,
  TextField,
} from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { useWorkspaceId } from '../../../lib/routing';
import {
  useConnectProviderAccount,
  useDisconnectProviderAccount,
  useProviderAccounts,
  useProviderDeliveries,
  useReplaceSigningSecret,
  type ProviderDelivery,
} from '../api/provider-events-api';
import { formatShortDateTime, PROVIDER_LABELS, RUN_STATUS_LABELS } from '../shared/labels';
import { workflowPaths } from '../shared/workflow-frame';
import '../workflows.css';

type AccountResponse = z.infer<typeof ProviderAccountResponse>;

/** The address a connection's provider webhook is given: this origin and its delivery path. */
function deliveryAddress(account: ProviderAccount): string {
  return `${window.location.origin}${account.delivery_path}`;
}

function secretHint(provider: Provider): string {
  return PROVIDER_MAKES_SECRET[provider]
    ? `Paste the signing secret ${PROVIDER_LABELS[provider]} shows for the webhook.`
    : 'Leave it empty: the platform makes one, shown once, for the webhook settings at GitHub.';
}

/**
 * Provider events (decisions 132 and 151): the accounts connected to the workspace, connecting
 * one with its own signing secret, and the recent deliveries with what each started.
 */
export function ProviderEventsPage() {
  const [shown, setShown] = useState<AccountResponse | null>(null);
  return (
    <>
      <PageHeader
        title="Provider events"
        description="Connect a GitHub, Linear, Slack or Stripe account: each delivery signed with the connection's own secret starts the live workflows that name its event, once per delivery."
      />
      {shown?.signingSecret && (
        <SecretShownOnce
          title="The connection's signing secret"
          instruction={
            <>
              Give GitHub the address <code>{deliveryAddress(shown.account)}</code> and this secret
              in the webhook&apos;s settings. It is not shown again.
            </>
          }
          label="Signing secret"
          value={shown.signingSecret}
          copyLabel="Copy the secret"
          dismissLabel="I have saved it"
          onDismiss={() => setShown(null)}
        />
      )}
      <ConnectedAccounts onSecret={setShown} />
      <ConnectAccount onConnected={setShown} />
      <Deliveries />
    </>
  );
}

function proofStateOf(account: ProviderAccount): string {
  if (!account.has_signing_secret)
    return 'No signing secret: it receives nothing until one is set.';
  if (account.proven_at)
    return `Proven by a delivery on ${formatShortDateTime(account.proven_at)}.`;
  return 'Waiting for its first signed delivery.';
}

/** Sets a connection's secret: pasted, or (GitHub) made anew and shown once. */
function SigningSecretForm(props: {
  account: ProviderAccount;
  onSecret: (response: AccountResponse) => void;
}) {
  const { account } = props;
  const workspaceId = useWorkspaceId();
  const replace = useReplaceSigningSecret(workspaceId, account.id);
  const [secret, setSecret] = useState('');
  const [saved, setSaved] = useState(false);
  const name = `${PROVIDER_LABELS[account.provider]} ${account.label}`;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(false);
    replace.mutate(secret.trim() === '' ? {} : { signingSecret: secret }, {
      onSuccess: (response) => {
        setSecret('');
        setSaved(true);
        props.onSecret(response);
      },
    });
  };
  return (
    <form onSubmit={submit} noValidate className="wf-accounts__secret">
      {replace.isError && <ErrorMessage error={replace.error} title="Secret not set" />}
      {saved && <StatusMessage>New signing secret set for {name}.</StatusMessage>}
      <TextField
        label={`New signing secret for ${name}`}
        hint={secretHint(account.provider)}
        type="password"
        autoComplete="off"
        value={secret}
        onChange={(event) => setSecret(event.target.value)}
      />
      <Button type="submit" busy={replace.isPending}>
        Set secret
      </Button>
    </form>
  );
}

function ConnectedAccounts(props: { onSecret: (response: AccountResponse) => void }) {
  const workspaceId = useWorkspaceId();
  const accounts = useProviderAccounts(workspaceId);
  const disconnect = useDisconnectProviderAccount(workspaceId);
  const [disconnected, setDisconnected] = useState<string | null>(null);
  return (
    <Panel title="Connected accounts">
      {accounts.isPending && <LoadingState label="Loading the connected accounts…" />}
      {accounts.isError && <ErrorMessage error={accounts.error} />}
      {disconnect.isError && <ErrorMessage error={disconnect.error} title="Not disconnected" />}
      {disconnected && <StatusMessage>Disconnected {disconnected}.</StatusMessage>}
      {accounts.data && accounts.data.accounts.length === 0 && (
        <p className="wf-empty-line">No account is connected yet.</p>
      )}
      {accounts.data && accounts.data.accounts.length > 0 && (
        <ul className="wf-accounts" aria-label="Connected accounts">
          {accounts.data.accounts.map((account) => {
            const name = `${PROVIDER_LABELS[account.provider]} ${account.label}`;
            return (
              <li key={account.id} className="wf-accounts__item">
                <span>
                  <strong>{PROVIDER_LABELS[account.provider]}</strong> {account.label}
                  {account.label !== account.account_id && (
                    <>
                      {' '}
                      <code>{account.account_id}</code>
                    </>
                  )}
                  <br />
                  Delivery address: <code>{deliveryAddress(account)}</code>
                  <br />
                  <span>{proofStateOf(account)}</span>
                </span>
                <SigningSecretForm account={account} onSecret={props.onSecret} />
                <Button
                  variant="danger"
                  aria-label={`Disconnect ${name}`}
                  busy={disconnect.isPending && disconnect.variables === account.id}
                  onClick={() =>
                    disconnect.mutate(account.id, { onSuccess: () => setDisconnected(name) })
                  }
                >
                  Disconnect
                </Button>
              </li>
            );
          })}
        </ul>
      )}
    </Panel>
  );
}

function ConnectAccount(props: { onConnected: (response: AccountResponse) => void }) {
  const workspaceId = useWorkspaceId();
  const connect = useConnectProviderAccount(workspaceId);
  const [provider, setProvider] = useState<Provider>('github');
  const [accountId, setAccountId] = useState('');
  const [label, setLabel] = useState('');
  const [signingSecret, setSigningSecret] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [connected, setConnected] = useState<string | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setConnected(null);
    const result = validateForm(ConnectProviderAccountBody, {
      provider,
      accountId,
      label: label.trim() === '' ? undefined : label,
      signingSecret: signingSecret.trim() === '' ? undefined : signingSecret,
    });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    connect.mutate(result.data, {
      onSuccess: (response) => {
        const { account } = response;
        setConnected(
          `${PROVIDER_LABELS[account.provider]} ${account.label}. Its delivery address is ${deliveryAddress(account)}`,
        );
        setAccountId('');
        setLabel('');
        setSigningSecret('');
        props.onConnected(response);
      },
    });
  };
  return (
    <Panel
      title="Connect an account"
      description="Each connection has a signing secret of its own and an address of its own: a delivery counts only when it holds with that secret, which only the account's admin can give the provider."
    >
      <form onSubmit={submit} noValidate>
        {connect.isError && <ErrorMessage error={connect.error} title="Not connected" />}
        {connected && <StatusMessage>Connected {connected}.</StatusMessage>}
        <SelectField
          label="Provider"
          options={PROVIDERS.map((value) => ({ value, label: PROVIDER_LABELS[value] }))}
          value={provider}
          onChange={(event) => setProvider(event.target.value as Provider)}
        />
        <TextField
          label="Account"
          hint={`The ${PROVIDER_LABELS[provider]} ${PROVIDER_ACCOUNT_TERMS[provider]}, as its deliveries carry it.`}
          value={accountId}
          error={errors['accountId']}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => setAccountId(event.target.value)}
        />
        <TextField
          label="Name (optional)"
          hint="How the workspace calls it; the account when left empty."
          value={label}
          error={errors['label']}
          onChange={(event) => setLabel(event.target.value)}
        />
        <TextField
          label={PROVIDER_MAKES_SECRET[provider] ? 'Signing secret' : 'Signing secret (optional)'}
          hint={secretHint(provider)}
          type="password"
          value={signingSecret}
          error={errors['signingSecret']}
          autoComplete="off"
          onChange={(event) => setSigningSecret(event.target.value)}
        />
        <Button type="submit" variant="primary" busy={connect.isPending}>
          Connect account
        </Button>
      </form>
    </Panel>
  );
}

function Deliveries() {
  const workspaceId = useWorkspaceId();
  const deliveries = useProviderDeliveries(workspaceId);
  const loaded = deliveries.data?.pages.flatMap((page) => page.deliveries) ?? [];
  return (
    <Panel
      title="Recent deliveries"
      description="Newest first. A repeat of a delivery is kept as a test event and starts no run."
    >
      {deliveries.isPending && <LoadingState label="Loading the deliveries…" />}
      {deliveries.isError && <ErrorMessage error={deliveries.error} />}
      {deliveries.data && loaded.length === 0 && (
        <EmptyState title="No deliveries yet">
          <p>Deliveries from a connected account appear here within a few seconds.</p>
        </EmptyState>
      )}
      {loaded.length > 0 && (
        <div className="wf-table-wrap" tabIndex={0} role="region" aria-label="Deliveries">
          <table className="data-table">
            <caption className="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Provider</th>
                <th scope="col">Event</th>
                <th scope="col">What it started</th>
              </tr>
            </thead>
            <tbody>
              {loaded.map((delivery) => (
                <tr key={delivery.id}>
                  <td>{formatShortDateTime(delivery.received_at)}</td>
                  <td>{PROVIDER_LABELS[delivery.provider]}</td>
                  <td>
                    <code>{delivery.event}</code>
                  </td>
                  <td>
                    <Outcomes delivery={delivery} workspaceId={workspaceId} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {deliveries.hasNextPage && (
        <p className="wf-load-more">
          <Button
            busy={deliveries.isFetchingNextPage}
            onClick={() => void deliveries.fetchNextPage()}
          >
            Load more
          </Button>
        </p>
      )}
    </Panel>
  );
}

function Outcomes(props: { delivery: ProviderDelivery; workspaceId: string }) {
  const { targets } = props.delivery;
  if (targets.length === 0) return <>No workflow takes this event.</>;
  return (
    <ul className="wf-outcomes">
      {targets.map((target) => (
        <li key={target.event_id}>
          {target.run_id ? (
            <Link to={workflowPaths.run(props.workspaceId, target.workflow_id, target.run_id)}>
              Run of {target.workflow_name}
            </Link>
          ) : (
            <Link to={workflowPaths.editor(props.workspaceId, target.workflow_id)}>
              {target.workflow_name}
            </Link>
          )}
          {': '}
          {target.run_id
            ? (RUN_STATUS_LABELS[target.run_status as keyof typeof RUN_STATUS_LABELS] ??
              target.run_status)
            : 'kept as a test event, no run'}
        </li>
      ))}
    </ul>
  );
}
