import { useEffect, useRef } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ErrorMessage, LoadingState, PageHeader } from '../../../components';
import { appPaths } from '../../../lib/routing';
import { useCompleteMcpAccountConnection } from '../api/mcp-api';

const ANSWER_KEYS = ['state', 'code', 'iss', 'error', 'error_description'] as const;

/**
 * Where an MCP server's authorization server sends the person back after they connected their
 * own account (decision 138): the answer in the address is handed to the registry once, then
 * the server's page shows the connection.
 */
export function ConnectedAccountCallbackPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const complete = useCompleteMcpAccountConnection();
  const sent = useRef(false);
  const state = params.get('state');

  useEffect(() => {
    // The answer is good once: a second request (a re-render, React's development double run)
    // would find it used.
    if (sent.current || !state) return;
    sent.current = true;
    const answer = Object.fromEntries(
      ANSWER_KEYS.flatMap((key) => {
        const value = params.get(key);
        return value === null ? [] : [[key, value]];
      }),
    ) as { state: string };
    complete.mutate(answer, {
      onSuccess: ({ account, workspace_id: workspaceId }) => {
        void navigate(appPaths.workspace(workspaceId, `mcp/${account.server_id}`), {
          replace: true,
        });
      },
    });
  }, [complete, navigate, params, state]);

  const back = <Link to={appPaths.home()}>Back to your workspaces</Link>;
  if (!state) {
    return (
      <>
        <PageHeader title="Connect your account" />
        <p>This page is where an MCP server's sign-in sends you back; nothing came with it.</p>
        <p>{back}</p>
      </>
    );
  }
  if (complete.isError) {
    return (
      <>
        <PageHeader title="Your account was not connected" />
        <ErrorMessage error={complete.error} />
        <p>Open the server's page and connect again. {back}</p>
      </>
    );
  }
  return <LoadingState label="Connecting your account…" />;
}
