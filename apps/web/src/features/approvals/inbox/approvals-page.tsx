import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import {
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  StatusMessage,
} from '../../../components';
import { useWorkspaceId } from '../../../lib/routing';
import '../approvals.css';
import { ApprovalCard, runPath } from '../approval-card';
import {
  useDecideApproval,
  usePendingApprovals,
  type Approval,
  type Decision,
} from '../api/approvals-api';

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
            <li key={approval.id}>
              <ApprovalCard
                approval={approval}
                workspaceId={workspaceId}
                deciding={
                  decide.isPending && decide.variables.id === approval.id
                    ? decide.variables.decision
                    : null
                }
                onDecide={(decision, comment) => onDecide(approval, decision, comment)}
              />
            </li>
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
