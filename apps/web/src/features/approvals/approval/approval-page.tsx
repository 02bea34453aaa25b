import { useEffect, useRef } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import {
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  StatusMessage,
} from '../../../components';
import { RUN_CANCELLED } from '@wap/contracts';
import { ApiError } from '../../../lib/api';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useAuthors, useMe } from '../../workspace';
import '../approvals.css';
import { ApprovalCard, DATE_TIME, runPath } from '../approval-card';
import { useApproval, useDecideApproval, type Approval, type Decision } from '../api/approvals-api';

function suggestedDecision(value: string | null): Decision | undefined {
  return value === 'approve' || value === 'reject' ? value : undefined;
}

/**
 * One approval, where its email's Approve and Reject links lead: the reviewer sees the run's
 * request and decides here. Opening the link decides nothing (a mail scanner follows links too);
 * a decided approval, or one this person may not decide or see, says so (decision 129).
 */
export function ApprovalPage() {
  const workspaceId = useWorkspaceId();
  const { approvalId = '' } = useParams();
  const [search] = useSearchParams();
  const approval = useApproval(approvalId);
  const me = useMe();

  if (approval.isPending || me.isPending) return <LoadingState label="Loading the approval…" />;
  if (approval.isError) {
    if (approval.error instanceof ApiError && [400, 404].includes(approval.error.status)) {
      return (
        <>
          <PageHeader title="Approval not found" />
          <EmptyState title="There is no such approval in this workspace for you">
            <p>
              The link may be for another workspace or another person. Approvals waiting for you are
              in <Link to={appPaths.workspace(workspaceId, 'approvals')}>your inbox</Link>.
            </p>
          </EmptyState>
        </>
      );
    }
    return <ErrorMessage error={approval.error} />;
  }
  if (me.isError) return <ErrorMessage error={me.error} />;
  const current = approval.data.approval;
  const isReviewer = current.reviewer_ids.includes(me.data.user.id);
  if (current.status === 'pending' && isReviewer) {
    return (
      <PendingApproval
        approval={current}
        workspaceId={workspaceId}
        suggested={suggestedDecision(search.get('decision'))}
      />
    );
  }
  return (
    <>
      <PageHeader title={`${current.workflow_name}: ${current.step_name}`} />
      {current.status === 'pending' ? (
        <ReviewersOnlyNotice approval={current} workspaceId={workspaceId} />
      ) : (
        <DecidedNotice approval={current} workspaceId={workspaceId} />
      )}
      {current.message && <blockquote className="approvals__message">{current.message}</blockquote>}
      <p>
        <Link to={runPath(workspaceId, current)}>Open the run</Link>
      </p>
    </>
  );
}

function ReviewersOnlyNotice(props: { approval: Approval; workspaceId: string }) {
  const authors = useAuthors(props.workspaceId);
  const names = props.approval.reviewer_ids.map((id) => authors.nameOf(id)).join(', ');
  return (
    <div className="notice" role="note">
      Only this approval&apos;s reviewers ({names}) can decide it, and you are not one of them.
    </div>
  );
}

function DecidedNotice(props: { approval: Approval; workspaceId: string }) {
  const { approval } = props;
  const authors = useAuthors(props.workspaceId);
  const by =
    approval.decided_by === null
      ? ''
      : approval.decided_by === authors.myId
        ? ' by you'
        : ` by ${authors.nameOf(approval.decided_by)}`;
  const when = approval.decided_at ? ` on ${DATE_TIME.format(new Date(approval.decided_at))}` : '';
  if (approval.decided_by === null && approval.comment === RUN_CANCELLED) {
    return (
      <div className="notice" role="note">
        This approval was closed{when}: its run was cancelled, so there is nothing left to decide.
      </div>
    );
  }
  return (
    <div className="notice" role="note">
      This approval was already {approval.status}
      {by}
      {when}: there is nothing left to decide.
      {approval.comment && <> Comment: “{approval.comment}”</>}
    </div>
  );
}

function PendingApproval(props: {
  approval: Approval;
  workspaceId: string;
  suggested: Decision | undefined;
}) {
  const decide = useDecideApproval(props.workspaceId);
  const outcomeRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (decide.isError) outcomeRef.current?.focus();
  }, [decide.isError]);
  return (
    <>
      <div ref={outcomeRef} tabIndex={-1} className="approvals__outcome">
        {decide.isError && <ErrorMessage error={decide.error} />}
      </div>
      {props.suggested && (
        <StatusMessage>
          You followed the {props.suggested === 'approve' ? 'Approve' : 'Reject'} link: press{' '}
          {props.suggested === 'approve' ? 'Approve' : 'Reject'} below to decide.
        </StatusMessage>
      )}
      <ApprovalCard
        approval={props.approval}
        workspaceId={props.workspaceId}
        headingLevel={1}
        suggested={props.suggested}
        deciding={decide.isPending ? decide.variables.decision : null}
        onDecide={(decision, comment) =>
          decide.mutate({
            id: props.approval.id,
            decision,
            body: comment.trim() ? { comment: comment.trim() } : {},
          })
        }
      />
    </>
  );
}
