import type { McpServerView } from '@wap/contracts';
import { Button, ErrorMessage, Panel, StatusMessage } from '../../../components';
import { ApiError } from '../../../lib/api';
import { syncFailureReasons, useRefreshMcpServer, type RefreshOutcome } from '../api/mcp-api';

/** Spec endpoint 3: syncs the tools now and says what was found, synced and went wrong. */
export function RefreshPanel(props: { workspaceId: string; server: McpServerView }) {
  const refresh = useRefreshMcpServer(props.workspaceId, props.server.id);
  const syncing = props.server.sync_status === 'running';
  const reasons =
    refresh.error instanceof ApiError ? syncFailureReasons(refresh.error.body.details) : [];
  return (
    <Panel
      title="Refresh"
      description="Asks the server for its tools again: new tools are added, changed ones updated, and tools it no longer lists removed. Enabled switches are kept."
    >
      <p>
        <Button
          variant="primary"
          busy={refresh.isPending}
          disabled={syncing}
          onClick={() => refresh.mutate()}
        >
          Refresh tools
        </Button>
      </p>
      {refresh.isPending && <p role="status">Refreshing the tools…</p>}
      {refresh.isSuccess && <RefreshResult outcome={refresh.data} />}
      {refresh.isError && (
        <>
          <ErrorMessage error={refresh.error} title="The tools were not refreshed." />
          {reasons.length > 0 && (
            <ul className="mcp-reasons" aria-label="Why the refresh failed">
              {reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          )}
        </>
      )}
    </Panel>
  );
}

function RefreshResult({ outcome }: { outcome: RefreshOutcome }) {
  const count = (n: number) => (n === 1 ? '1 tool' : `${n} tools`);
  return (
    <StatusMessage>
      <p>
        Refreshed: {count(outcome.discovered)} discovered, {outcome.synced} synced
        {outcome.errors.length === 0
          ? ', no errors.'
          : `, ${outcome.errors.length === 1 ? '1 error' : `${outcome.errors.length} errors`}:`}
      </p>
      {outcome.errors.length > 0 && (
        <ul>
          {outcome.errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      )}
    </StatusMessage>
  );
}
