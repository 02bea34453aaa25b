import { Link, useParams } from 'react-router';
import type { McpServerView } from '@wap/contracts';
import {
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  Switch,
} from '../../../components';
import { ApiError } from '../../../lib/api';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import {
  canManageServer,
  useCurrentPerson,
  useMcpServer,
  useUpdateMcpServer,
} from '../api/mcp-api';
import { useMembers } from '../../workspace';
import { takesMembers } from '../form/server-form-model';
import {
  ACCESS_MODE_LABELS,
  AUTH_TYPE_LABELS,
  formatDateTime,
  syncStatusLabel,
  transportLabel,
} from '../server-words';
import { AccountPanel } from './account-panel';
import { DeleteServer } from './delete-server';
import { RefreshPanel } from './refresh-panel';
import { ToolsPanel } from './tools-panel';
import '../mcp.css';

/** One MCP server: its details, enable switch, refresh with its result, and its tools. */
export function McpServerPage() {
  const workspaceId = useWorkspaceId();
  const serverId = useParams()['serverId'] ?? '';
  const server = useMcpServer(workspaceId, serverId);
  const listLink = <Link to={appPaths.workspace(workspaceId, 'mcp')}>Back to the MCP servers</Link>;

  if (server.isPending) return <LoadingState label="Loading the server…" />;
  const missing =
    (server.error instanceof ApiError && server.error.code === 'NOT_FOUND') ||
    (server.data && server.data.mcp.workspace_id !== workspaceId);
  if (missing) {
    return (
      <>
        <PageHeader title="Server not found" />
        <EmptyState title="This MCP server is not here" action={listLink}>
          <p>It was deleted, or it is not shared with you in this workspace.</p>
        </EmptyState>
      </>
    );
  }
  if (server.isError) {
    return (
      <>
        <PageHeader title="MCP server" />
        <ErrorMessage error={server.error} />
        <p>{listLink}</p>
      </>
    );
  }
  return <ServerDetails workspaceId={workspaceId} server={server.data.mcp} />;
}

function ServerDetails(props: { workspaceId: string; server: McpServerView }) {
  const { workspaceId, server } = props;
  const person = useCurrentPerson(workspaceId);
  const manages = canManageServer(server, person);
  const update = useUpdateMcpServer(workspaceId, server.id);
  return (
    <>
      <p className="mcp-breadcrumb">
        <Link to={appPaths.workspace(workspaceId, 'mcp')}>MCP servers</Link>
      </p>
      <PageHeader
        title={server.name}
        description={server.description || undefined}
        actions={
          manages && (
            <>
              <Link
                className="button button--secondary mcp-button-link"
                to={appPaths.workspace(workspaceId, `mcp/${server.id}/edit`)}
              >
                Edit
              </Link>
              <DeleteServer workspaceId={workspaceId} server={server} />
            </>
          )
        }
      />

      <Panel title="Details">
        {manages ? (
          <>
            {update.isError && <ErrorMessage error={update.error} />}
            <Switch
              label="Server enabled"
              description="A disabled server's tools are not offered to the assistant or to workflows."
              checked={server.is_enabled}
              disabled={update.isPending}
              onChange={(enabled) => update.mutate({ enabled })}
            />
          </>
        ) : (
          <p>{server.is_enabled ? 'Enabled.' : 'Disabled: its tools are not offered.'}</p>
        )}
        <ServerFacts workspaceId={workspaceId} server={server} />
        {server.sync_status === 'failed' && server.sync_errors.length > 0 && (
          <div className="notice notice--error">
            <p className="notice__title">Why the last sync failed</p>
            <ul>
              {server.sync_errors.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          </div>
        )}
      </Panel>

      {server.auth_type === 'account' && <AccountPanel workspaceId={workspaceId} server={server} />}
      <RefreshPanel workspaceId={workspaceId} server={server} />
      <ToolsPanel workspaceId={workspaceId} server={server} manages={manages} />
    </>
  );
}

/** What the server is: its address, sync, transport, authentication, headers and access. */
function ServerFacts({ workspaceId, server }: { workspaceId: string; server: McpServerView }) {
  return (
    <dl className="mcp-facts mcp-facts--wide">
      <div>
        <dt>Address</dt>
        <dd className="mcp-url">{server.server_url}</dd>
      </div>
      <div>
        <dt>Sync</dt>
        <dd>{syncStatusLabel(server)}</dd>
      </div>
      <div>
        <dt>Transport</dt>
        <dd>{transportLabel(server)}</dd>
      </div>
      <div>
        <dt>Authentication</dt>
        <dd>{AUTH_TYPE_LABELS[server.auth_type]}</dd>
      </div>
      <div>
        <dt>Headers</dt>
        <dd>{server.header_names.length > 0 ? server.header_names.join(', ') : 'None'}</dd>
      </div>
      <div>
        <dt>Access</dt>
        <dd>
          <AccessDescription workspaceId={workspaceId} server={server} />
        </dd>
      </div>
      <div>
        <dt>Registered</dt>
        <dd>{formatDateTime(server.created_at)}</dd>
      </div>
    </dl>
  );
}

/** The access mode, and for the modes that name people, who they are. */
function AccessDescription(props: { workspaceId: string; server: McpServerView }) {
  const { server } = props;
  const named = takesMembers(server.access_mode);
  const members = useMembers(props.workspaceId, named);
  const mode = ACCESS_MODE_LABELS[server.access_mode];
  if (!named) return mode;
  if (server.accessible_to.length === 0) return `${mode}: nobody chosen yet`;
  const names = server.accessible_to.map((userId) => {
    const member = members.data?.members.find((candidate) => candidate.user_id === userId);
    return member ? `${member.name} (${member.email})` : 'a former member';
  });
  return members.data ? `${mode}: ${names.join(', ')}` : mode;
}
