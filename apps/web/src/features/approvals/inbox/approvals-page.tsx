import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { DecideApprovalBody } from '@wap/contracts';
import {
  Button,
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  StatusMessage,
} from '../../../components';
import { validateForm } from '../../../lib/forms';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import '../approvals.css';
import {
  useDecideApproval,
  usePendingApprovals,
  type Approval,
  type Decision,
} from '../api/approvals-api';

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The run page of the workflows feature, by its address. */
function runPath(workspaceId: string, approval: Approval): string {
  return appPaths.workspace(
    workspaceId,
    `workflows/${encodeURIComponent(approval.workflow_id)}/runs/${encodeURIComponent(approval.run_id)}`,
  );
}

interface Outcome {
  approval: Approval;
  decision: Decision;
  error?: unknown;
}

/** The approvals waiting for the signed-in person in this workspace, oldest first. */
export function ApprovalsPage() {
  const workspaceId = useWorkspaceId();
  const approvals = usePendingApprovals(workspaceId);
  const decide = useDecideApproval(workspaceId);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    // The decided card is gone: the focus goes to what became of it.
    if (outcome) outcomeRef.current?.focus();
  }, [outcome]);

  const onDecide = (approval: Approval, decision: Decision, comment: string) => {
    decide.mutate(
      { id: approval.id, decision, body: comment.trim() ? { comment: comment.trim() } : {} },
      {
        onSuccess: () => setOutcome({ approval, decision }),
        onError: (error) => setOutcome({ approval, decision, error }),
      },
    );
  };
  const list = approvals.data?.approvals ?? [];
  return (
    <>
      <PageHeader
        title="Approvals"
        description="Workflow runs that wait for you to approve or reject a step. The first reviewer to decide settles it for everyone."
      />
      <div ref={outcomeRef} tabIndex={-1} className="approvals__outcome">
        {outcome && <OutcomeMessage outcome={outcome} workspaceId={workspaceId} />}
      </div>
      {approvals.isPending && <LoadingState label="Loading your approvals…" />}
      {approvals.isError && <ErrorMessage error={approvals.error} />}
      {approvals.data && list.length === 0 && (
        <EmptyState title="Nothing waits for you">
          <p>When a workflow&apos;s approval step names you as a reviewer, it shows up here.</p>
        </EmptyState>
      )}
      {list.length > 0 && (
        <ol className="approvals__list" aria-label="Pending approvals">
          {list.map((approval) => (
            <ApprovalCard
              key={approval.id}
              approval={approval}
              workspaceId={workspaceId}
              deciding={
                decide.isPending && decide.variables.id === approval.id
                  ? decide.variables.decision
                  : null
              }
              onDecide={(decision, comment) => onDecide(approval, decision, comment)}
            />
          ))}
        </ol>
      )}
    </>
  );
}

function OutcomeMessage(props: { outcome: Outcome; workspaceId: string }) {
  const { approval, decision, error } = props.outcome;
  const what = `${approval.workflow_name}: ${approval.step_name}`;
  if (error) {
    return <ErrorMessage error={error} title={`Could not ${decision} ${what}`} />;
  }
  return (
    <StatusMessage>
      {decision === 'approve'
        ? `Approved ${what}. The run goes on.`
        : `Rejected ${what}. The run has failed.`}{' '}
      <Link to={runPath(props.workspaceId, approval)}>Open the run</Link>
    </StatusMessage>
  );
}

function ApprovalCard(props: {
  approval: Approval;
  workspaceId: string;
  deciding: Decision | null;
  onDecide: (decision: Decision, comment: string) => void;
}) {
  const headingId = useId();
  const commentId = useId();
  const errorId = useId();
  const { approval } = props;
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | undefined>();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const decision: Decision =
      submitter instanceof HTMLButtonElement && submitter.value === 'reject' ? 'reject' : 'approve';
    const checked = validateForm(DecideApprovalBody, { comment });
    if (!checked.ok) {
      setError(checked.errors['comment']);
      return;
    }
    setError(undefined);
    props.onDecide(decision, comment);
  };
  return (
    <li>
      <article className="approvals__card" aria-labelledby={headingId}>
        <h2 id={headingId} className="approvals__title">
          {approval.workflow_name}: {approval.step_name}
        </h2>
        <p className="approvals__meta">
          Waiting since {DATE_TIME.format(new Date(approval.created_at))} ·{' '}
          <Link to={runPath(props.workspaceId, approval)}>Open the run</Link>
        </p>
        {approval.message && (
          <blockquote className="approvals__message">{approval.message}</blockquote>
        )}
        <form onSubmit={submit} noValidate>
          <div className="field">
            <label className="field__label" htmlFor={commentId}>
              Comment (optional)
            </label>
            <textarea
              id={commentId}
              className="field__input field__input--multiline"
              rows={2}
              maxLength={2000}
              value={comment}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? errorId : undefined}
              onChange={(event) => setComment(event.target.value)}
            />
            {error && (
              <p className="field__error" id={errorId}>
                {error}
              </p>
            )}
          </div>
          <div className="button-row">
            <Button
              type="submit"
              variant="primary"
              busy={props.deciding === 'approve'}
              disabled={props.deciding !== null}
              value="approve"
            >
              Approve
            </Button>
            <Button
              type="submit"
              variant="danger"
              busy={props.deciding === 'reject'}
              disabled={props.deciding !== null}
              value="reject"
            >
              Reject
            </Button>
          </div>
        </form>
      </article>
    </li>
  );
}
