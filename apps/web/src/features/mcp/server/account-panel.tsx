import type { McpServerView } from '@wap/contracts';
import { Button, ConfirmButton, ErrorMessage, LoadingState, Panel } from '../../../components';
import {
  useDisconnectMcpAccount,
  useMcpAccount,
  useStartMcpAccountConnection,
} from '../api/mcp-api';
import { formatDateTime } from '../server-words';

/**
 * A server of the account auth type: the signed-in person's own connection to it (decision 138).
 * Connecting leaves for the server's authorization server and comes back to the callback page.
 */
export function AccountPanel(props: { workspaceId: string; server: McpServerView }) {
  const { workspaceId, server } = props;
  const account = useMcpAccount(workspaceId, server.id, true);
  const connect = useStartMcpAccountConnection(server.id);
  const disconnect = useDisconnectMcpAccount(workspaceId, server.id);
  const connected = account.data?.account.connected === true;
  return (
    <Panel
      title="Your account"
      description={`${server.name} acts for each person with their own account there. Its tools, in chats and in the workflows you create, use yours.`}
    >
      {account.isPending && <LoadingState label="Looking for your connection…" />}
      {account.isError && <ErrorMessage error={account.error} />}
      {account.data && !connected && (
        <>
          <p>You have not connected your account yet: its tools cannot act for you.</p>
          <p>
            <Button variant="primary" busy={connect.isPending} onClick={() => connect.mutate()}>
              Connect your account
            </Button>
          </p>
        </>
      )}
      {account.data && connected && (
        <>
          <p role="status">
            Connected since {formatDateTime(account.data.account.connected_at ?? '')}.
            {account.data.account.scope ? ` Allowed: ${account.data.account.scope}.` : ''}
          </p>
          <ConfirmButton
            label="Disconnect"
            action="Disconnect your account"
            busy={disconnect.isPending}
            onConfirm={() => disconnect.mutate()}
          />
        </>
      )}
      {connect.isError && (
        <ErrorMessage error={connect.error} title="Your account could not be connected." />
      )}
      {disconnect.isError && <ErrorMessage error={disconnect.error} />}
    </Panel>
  );
}
