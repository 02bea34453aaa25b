import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { DecideApprovalBody } from '@wap/contracts';
import { Button, TextAreaField } from '../../components';
import { validateForm } from '../../lib/forms';
import { appPaths } from '../../lib/routing';
import { useAuthors } from '../workspace';
import type { Approval, Decision } from './api/approvals-api';

export const DATE_TIME = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'short',
});

/** The run page of the workflows feature, by its address. */
export function runPath(workspaceId: string, approval: Approval): string {
  return appPaths.workspace(
    workspaceId,
    `workflows/${encodeURIComponent(approval.workflow_id)}/runs/${encodeURIComponent(approval.run_id)}`,
  );
}

/**
 * An approval with its message and the reviewer's form: a comment, Approve and Reject.
 * `suggested` is the decision of the email link that opened it: that button takes the focus,
 * and nothing is decided until it is pressed (decision 129).
 */
export function ApprovalCard(props: {
  approval: Approval;
  workspaceId: string;
  deciding: Decision | null;
  onDecide: (decision: Decision, comment: string) => void;
  headingLevel?: 1 | 2;
  suggested?: Decision;
}) {
  const headingId = useId();
  const { approval } = props;
  const authors = useAuthors(props.workspaceId);
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
  const Heading = props.headingLevel === 1 ? 'h1' : 'h2';
  return (
    <article className="approvals__card" aria-labelledby={headingId}>
      <Heading id={headingId} className="approvals__title">
        {approval.workflow_name}: {approval.step_name}
      </Heading>
      <p className="approvals__meta">
        Waiting since {DATE_TIME.format(new Date(approval.created_at))} ·{' '}
        <Link to={runPath(props.workspaceId, approval)}>Open the run</Link>
      </p>
      <p className="approvals__meta">
        Reviewers: {approval.reviewer_ids.map((id) => authors.nameOf(id)).join(', ')}
      </p>
      {approval.message && (
        <blockquote className="approvals__message">{approval.message}</blockquote>
      )}
      <form onSubmit={submit} noValidate>
        <TextAreaField
          label="Comment (optional)"
          className="field__input--multiline"
          rows={2}
          maxLength={2000}
          value={comment}
          error={error}
          onChange={(event) => setComment(event.target.value)}
        />
        <div className="button-row">
          <Button
            type="submit"
            variant="primary"
            busy={props.deciding === 'approve'}
            disabled={props.deciding !== null}
            value="approve"
            autoFocus={props.suggested === 'approve'}
          >
            Approve
          </Button>
          <Button
            type="submit"
            variant="danger"
            busy={props.deciding === 'reject'}
            disabled={props.deciding !== null}
            value="reject"
            autoFocus={props.suggested === 'reject'}
          >
            Reject
          </Button>
        </div>
      </form>
    </article>
  );
}
