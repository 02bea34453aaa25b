import { useEffect, useRef } from 'react';
import { ApiError, describeError } from '../lib/api';

/**
 * A failed request, worded for a person by its error code; validation issues are listed. In a
 * form it answers a submission: it is scrolled into view and focused, so the person who pressed
 * the button far below it sees what happened, and a screen reader starts there.
 */
export function ErrorMessage(props: { error: unknown; title?: string }) {
  const issues = props.error instanceof ApiError ? props.error.validationIssues : [];
  const notice = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const shown = notice.current;
    if (!shown?.closest('form')) return;
    shown.scrollIntoView({ block: 'nearest' });
    shown.focus({ preventScroll: true });
  }, [props.error]);
  return (
    <div ref={notice} className="notice notice--error" role="alert" tabIndex={-1}>
      {props.title && <p className="notice__title">{props.title}</p>}
      <p>{describeError(props.error)}</p>
      {issues.length > 0 && (
        <ul>
          {issues.map((issue) => (
            <li key={`${issue.path}:${issue.message}`}>
              {issue.path ? `${issue.path}: ` : ''}
              {issue.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
