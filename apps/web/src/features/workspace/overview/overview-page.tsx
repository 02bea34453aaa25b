import { Link } from 'react-router';
import { ErrorMessage, LoadingState, PageHeader, Panel } from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import '../workspace.css';
import { findWorkspace, useCredits, useMe } from '../api/workspace-api';

const ROLE_SENTENCES = {
  owner: 'You are an owner here.',
  member: 'You are a member here.',
} as const;

/** A workspace's first page: who you are in it and its credit balance. */
export function OverviewPage() {
  const workspaceId = useWorkspaceId();
  const me = useMe();
  const workspace = findWorkspace(me.data, workspaceId);
  const credits = useCredits(workspaceId);
  return (
    <>
      <PageHeader
        title={workspace?.name ?? 'Workspace'}
        description={workspace && ROLE_SENTENCES[workspace.role]}
      />
      <Panel
        title="Credits"
        description="Each workflow run uses credits; a platform administrator grants them."
      >
        {credits.isPending && <LoadingState label="Loading the balance…" />}
        {credits.isError && <ErrorMessage error={credits.error} />}
        {credits.data && (
          <p className="credit-balance">
            <span className="credit-balance__amount">{credits.data.balance}</span>{' '}
            {credits.data.balance === 1 ? 'credit' : 'credits'} left
          </p>
        )}
        {me.data?.platform_admin && (
          <p>
            <Link to={appPaths.grantCredits(workspaceId)}>Grant credits to this workspace</Link>
          </p>
        )}
      </Panel>
      <Panel title="Set up the workspace">
        <ul className="link-list">
          {workspace?.role === 'owner' && (
            <li>
              <Link to={appPaths.workspace(workspaceId, 'members')}>Add members</Link> so they can
              work here with you.
            </li>
          )}
          <li>
            <Link to={appPaths.workspace(workspaceId, 'settings')}>Choose who gets emails</Link>{' '}
            when a workflow waits for approval.
          </li>
          <li>
            <Link to={appPaths.workspace(workspaceId, 'api-keys')}>Create an API key</Link> for the
            platform&apos;s MCP server and other programs.
          </li>
        </ul>
      </Panel>
    </>
  );
}
