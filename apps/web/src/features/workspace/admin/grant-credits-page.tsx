import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { z } from 'zod';
import { GrantCreditsBody } from '@wap/contracts';
import {
  Button,
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  StatusMessage,
  TextField,
} from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { useGrantCredits, useMe } from '../api/workspace-api';
import '../workspace.css';

const GrantForm = GrantCreditsBody.extend({ workspaceId: z.uuid() });

/**
 * `/app/admin/credits`: a platform administrator grants a workspace credits, or corrects a
 * grant with a negative amount. `?workspaceId=` fills the workspace in (the overview links here).
 */
export function GrantCreditsPage() {
  const me = useMe();
  if (me.isPending) return <LoadingState label="Loading…" />;
  if (me.isError) return <ErrorMessage error={me.error} />;
  return (
    <>
      <PageHeader
        title="Grant credits"
        description="Workflow runs use a workspace's credits. Every grant is kept with its reason."
      />
      {me.data.platform_admin ? (
        <GrantPanel />
      ) : (
        <EmptyState title="Only platform administrators grant credits">
          <p>Ask one of them to grant credits to your workspace.</p>
        </EmptyState>
      )}
    </>
  );
}

function GrantPanel() {
  const [search] = useSearchParams();
  const [workspaceId, setWorkspaceId] = useState(search.get('workspaceId') ?? '');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const grant = useGrantCredits();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    grant.reset();
    const result = validateForm(GrantForm, {
      workspaceId: workspaceId.trim(),
      amount: amount.trim() === '' ? undefined : Number(amount),
      reason,
    });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    grant.mutate(result.data, {
      onSuccess: () => {
        setAmount('');
        setReason('');
      },
    });
  };

  return (
    <Panel title="A grant">
      <form onSubmit={submit} noValidate>
        {grant.isError && <ErrorMessage error={grant.error} title="No credits were granted." />}
        {grant.isSuccess && (
          <StatusMessage>
            {grant.variables.amount > 0 ? 'Granted' : 'Took back'}{' '}
            {Math.abs(grant.variables.amount)} credits: the workspace now has {grant.data.balance}.
          </StatusMessage>
        )}
        <TextField
          label="Workspace ID"
          hint="The workspace's page address holds it: /app/w/<workspace ID>."
          autoComplete="off"
          value={workspaceId}
          error={errors['workspaceId']}
          onChange={(event) => setWorkspaceId(event.target.value)}
        />
        <TextField
          label="Credits"
          hint="A negative number corrects an earlier grant; the balance never goes below zero."
          type="number"
          inputMode="numeric"
          step={1}
          value={amount}
          error={errors['amount']}
          onChange={(event) => setAmount(event.target.value)}
        />
        <TextField
          label="Reason"
          hint="Kept with the grant, for whoever reads the history."
          autoComplete="off"
          value={reason}
          error={errors['reason']}
          onChange={(event) => setReason(event.target.value)}
        />
        <Button type="submit" variant="primary" busy={grant.isPending}>
          Grant credits
        </Button>
      </form>
    </Panel>
  );
}
