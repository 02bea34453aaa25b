import type { ReactElement, ReactNode } from 'react';
import { Link, Navigate } from 'react-router';
import { ErrorMessage, LoadingState, PageHeader } from '../../components';
import { appPaths, useWorkspaceId } from './app-paths';

/**
 * The page of one record of a workspace (a table, a task, a contact) around its content: the
 * loading state, the error under a link back to the list, and a record of another of the
 * person's workspaces opened where it lives.
 */
export function RecordFrame<Data>(props: {
  query: { isPending: boolean; isError: boolean; error: unknown; data: Data | undefined };
  /** What the record is, as the page names it when it cannot show it: "Task". */
  noun: string;
  /** The list's path in the workspace and the link's words: `tasks`, "All tasks". */
  list: { path: string; label: string };
  /** The record's own path in a workspace: `tasks/<id>`. */
  recordPath: string;
  workspaceIdOf: (data: Data) => string;
  children: (data: Data, backLink: ReactElement) => ReactNode;
}) {
  const workspaceId = useWorkspaceId();
  const { query, noun } = props;
  const backLink = (
    <Link to={appPaths.workspace(workspaceId, props.list.path)}>{props.list.label}</Link>
  );
  if (query.isPending) return <LoadingState label={`Loading the ${noun.toLowerCase()}…`} />;
  if (query.isError || query.data === undefined) {
    return (
      <>
        <PageHeader title={noun} actions={backLink} />
        <ErrorMessage error={query.error} />
      </>
    );
  }
  const recordWorkspaceId = props.workspaceIdOf(query.data);
  if (recordWorkspaceId !== workspaceId) {
    return <Navigate to={appPaths.workspace(recordWorkspaceId, props.recordPath)} replace />;
  }
  return props.children(query.data, backLink);
}
