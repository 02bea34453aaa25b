import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import {
  ConnectProviderAccountBody,
  PROVIDER_ACCOUNT_TERMS,
  PROVIDERS,
  type Provider,
} from '@wap/contracts';
import {
  Button,
  EmptyState,
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
  useConnectProviderAccount,
  useDisconnectProviderAccount,
  useProviderAccounts,
  useProviderDeliveries,
  type ProviderDelivery,
} from '../api/provider-events-api';
import { formatShortDateTime, PROVIDER_LABELS, RUN_STATUS_LABELS } from '../shared/labels';
import { workflowPaths } from '../shared/workflow-frame';
import '../workflows.css';

/** Where each provider is told to send its deliveries on this platform. */
const DELIVERY_PATHS: Record<Provider, string> = {
  github: '/webhooks/github',
  linear: '/webhooks/linear',
  slack: '/webhooks/slack/events',
  stripe: '/webhooks/stripe',
};

/**
 * Provider events (decision 132): the accounts connected to the workspace, connecting one, and
 * the recent deliveries with what each started.
 */
export function ProviderEventsPage() {
  return (
    <>
      <PageHeader
        title="Provider events"
        description="Connect a GitHub, Linear, Slack or Stripe account: each of its signed deliveries starts the live workflows that name its event, once per delivery."
      />
      <ConnectedAccounts />
      <ConnectAccount />
      <Deliveries />
    </>
  );
}

function ConnectedAccounts() {
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
                </span>
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

function ConnectAccount() {
  const workspaceId = useWorkspaceId();
  const connect = useConnectProviderAccount(workspaceId);
  const [provider, setProvider] = useState<Provider>('github');
  const [accountId, setAccountId] = useState('');
  const [label, setLabel] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [connected, setConnected] = useState<string | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setConnected(null);
    const result = validateForm(ConnectProviderAccountBody, {
      provider,
      accountId,
      label: label.trim() === '' ? undefined : label,
    });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    connect.mutate(result.data, {
      onSuccess: ({ account }) => {
        setConnected(`${PROVIDER_LABELS[account.provider]} ${account.label}`);
        setAccountId('');
        setLabel('');
      },
    });
  };
  return (
    <Panel
      title="Connect an account"
      description={
        <>
          The platform checks each delivery with its own signing secret. Point the provider at{' '}
          <code>
            {window.location.origin}
            {DELIVERY_PATHS[provider]}
          </code>
          .
        </>
      }
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
