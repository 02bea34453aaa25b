import type { McpServerView, McpToolRecord } from '@wap/contracts';
import { EmptyState, ErrorMessage, LoadingState, Panel, Switch } from '../../../components';
import { useMcpTools, useSetToolEnabled } from '../api/mcp-api';
import { toolCountLabel } from '../server-words';

/** Spec endpoint 4, filtered to one server: each tool with its switch, description and schema. */
export function ToolsPanel(props: {
  workspaceId: string;
  server: McpServerView;
  manages: boolean;
}) {
  // The panel shows once the server is loaded, so its sync status is known.
  const tools = useMcpTools(props.workspaceId, true);
  const setEnabled = useSetToolEnabled(props.workspaceId);
  const mine = tools.data?.filter((tool) => tool.mcpServerId === props.server.id);
  const syncing = props.server.sync_status === 'pending' || props.server.sync_status === 'running';
  return (
    <Panel
      title="Tools"
      description={
        mine
          ? `${toolCountLabel(mine.length, mine.filter((tool) => tool.isEnabled).length)}. A disabled tool is not offered to the assistant or to workflows.`
          : undefined
      }
    >
      {tools.isPending && <LoadingState label="Loading the tools…" />}
      {tools.isError && <ErrorMessage error={tools.error} />}
      {setEnabled.isError && (
        <ErrorMessage error={setEnabled.error} title="The tool was not changed." />
      )}
      {mine?.length === 0 &&
        (syncing ? (
          <LoadingState label="Syncing the server's tools…" />
        ) : (
          <EmptyState title="No tools">
            <p>
              {props.server.sync_status === 'failed'
                ? 'The last sync failed: see why under Details, then refresh.'
                : 'The server lists no tools.'}
            </p>
          </EmptyState>
        ))}
      {mine && mine.length > 0 && (
        <ul className="mcp-tool-list" aria-label={`Tools of ${props.server.name}`}>
          {mine.map((tool) => (
            <ToolItem
              key={tool.id}
              tool={tool}
              manages={props.manages}
              busy={setEnabled.isPending && setEnabled.variables.toolId === tool.id}
              onToggle={(isEnabled) => setEnabled.mutate({ toolId: tool.id, isEnabled })}
            />
          ))}
        </ul>
      )}
    </Panel>
  );
}

function ToolItem(props: {
  tool: McpToolRecord;
  manages: boolean;
  busy: boolean;
  onToggle: (isEnabled: boolean) => void;
}) {
  const { tool } = props;
  const parameters = Object.keys(
    (tool.inputSchema['properties'] as Record<string, unknown> | undefined) ?? {},
  );
  return (
    <li className="mcp-tool">
      <Switch
        label={tool.name}
        description={tool.description || 'No description.'}
        checked={tool.isEnabled}
        disabled={!props.manages || props.busy}
        onChange={props.onToggle}
      />
      <details className="mcp-tool__schema">
        <summary>
          Input schema of {tool.name}
          <span className="mcp-muted">
            {' '}
            ({parameters.length === 0 ? 'no parameters' : parameters.join(', ')})
          </span>
        </summary>
        <pre>{JSON.stringify(tool.inputSchema, null, 2)}</pre>
      </details>
    </li>
  );
}
