import { ApiError, describeError } from '../lib/api';

/** A failed request, worded for a person by its error code; validation issues are listed. */
export function ErrorMessage(props: { error: unknown; title?: string }) {
  const issues = props.error instanceof ApiError ? props.error.validationIssues : [];
  return (
    <div className="notice notice--error" role="alert">
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
