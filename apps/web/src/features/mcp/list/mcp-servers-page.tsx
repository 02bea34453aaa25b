import { Link, useLocation } from 'react-router';
import type { McpServerView, McpToolRecord } from '@wap/contracts';
import {
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  StatusMessage,
} from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useMcpServers, useMcpTools } from '../api/mcp-api';
import { ACCESS_MODE_LABELS, syncStatusLabel, toolCountLabel } from '../server-words';
import '../mcp.css';

/** What the server page leaves in the history's state when it deleted a server. */
export interface DeletedServerState {
  deletedServerName?: string;
}

/** The workspace's MCP servers: how each is synced, its tools, who may use it. */
export function McpServersPage() {
  const workspaceId = useWorkspaceId();
  const servers = useMcpServers(workspaceId);
  const tools = useMcpTools(workspaceId, servers.isSuccess);
  const deleted = (useLocation().state as DeletedServerState | null)?.deletedServerName;
  const registerLink = (
    <Link
      className="button button--primary mcp-button-link"
      to={appPaths.workspace(workspaceId, 'mcp/new')}
    >
      Register a server
    </Link>
  );
  return (
    <>
      <PageHeader
        title="MCP servers"
        description="Servers whose tools the assistant and workflows can use. The platform reaches each over HTTPS and syncs its tools when it is registered or refreshed."
        actions={servers.data && servers.data.servers.length > 0 ? registerLink : undefined}
      />
      {deleted && <StatusMessage>Deleted {deleted}.</StatusMessage>}
      {servers.isPending && <LoadingState label="Loading the servers…" />}
      {servers.isError && <ErrorMessage error={servers.error} />}
      {servers.data?.servers.length === 0 && (
        <EmptyState title="No MCP servers yet" action={registerLink}>
          <p>Register a server to give the assistant and workflows its tools.</p>
        </EmptyState>
      )}
      {servers.data && servers.data.servers.length > 0 && (
        <ul className="mcp-server-list" aria-label="MCP servers">
          {servers.data.servers.map((server) => (
            <ServerItem
              key={server.id}
              workspaceId={workspaceId}
              server={server}
              tools={tools.data?.filter((tool) => tool.mcpServerId === server.id)}
              toolsFailed={tools.isError}
            />
          ))}
        </ul>
      )}
    </>
  );
}

function ServerItem(props: {
  workspaceId: string;
  server: McpServerView;
  tools: McpToolRecord[] | undefined;
  toolsFailed: boolean;
}) {
  const { server, tools } = props;
  const toolCount = tools
    ? toolCountLabel(tools.length, tools.filter((tool) => tool.isEnabled).length)
    : props.toolsFailed
      ? 'The tools could not be counted'
      : 'Counting the tools…';
  return (
    <li className="mcp-server-card">
      <h2 className="mcp-server-card__title">
        <Link to={appPaths.workspace(props.workspaceId, `mcp/${server.id}`)}>{server.name}</Link>
        {!server.is_enabled && <span className="mcp-badge">Disabled</span>}
      </h2>
      <p className="mcp-url">{server.server_url}</p>
      {server.description && <p className="mcp-server-card__description">{server.description}</p>}
      <dl className="mcp-facts">
        <div>
          <dt>Sync</dt>
          <dd className={server.sync_status === 'failed' ? 'mcp-failed' : undefined}>
            {syncStatusLabel(server)}
          </dd>
        </div>
        <div>
          <dt>Tools</dt>
          <dd>{toolCount}</dd>
        </div>
        <div>
          <dt>Access</dt>
          <dd>{ACCESS_MODE_LABELS[server.access_mode]}</dd>
        </div>
      </dl>
    </li>
  );
}
