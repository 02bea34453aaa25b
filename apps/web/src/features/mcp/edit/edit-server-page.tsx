import { Link, useNavigate, useParams } from 'react-router';
import type { McpServerView } from '@wap/contracts';
import { EmptyState, ErrorMessage, LoadingState, PageHeader } from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import {
  canManageServer,
  useCurrentPerson,
  useMcpServer,
  useUpdateMcpServer,
} from '../api/mcp-api';
import { emptyServerForm, updateBodyOf, type ServerFormValues } from '../form/server-form-model';
import { ServerForm } from '../form/server-form';
import '../mcp.css';

/** Changes a server's name, description, access, headers or credentials (not its address). */
export function EditServerPage() {
  const workspaceId = useWorkspaceId();
  const serverId = useParams()['serverId'] ?? '';
  const server = useMcpServer(workspaceId, serverId);
  const person = useCurrentPerson(workspaceId);
  const serverPath = appPaths.workspace(workspaceId, `mcp/${serverId}`);

  if (server.isPending) return <LoadingState label="Loading the server…" />;
  if (server.isError) {
    return (
      <>
        <PageHeader title="Edit MCP server" />
        <ErrorMessage error={server.error} />
        <p>
          <Link to={appPaths.workspace(workspaceId, 'mcp')}>Back to the MCP servers</Link>
        </p>
      </>
    );
  }
  const mcp = server.data.mcp;
  if (mcp.workspace_id !== workspaceId || (person.role && !canManageServer(mcp, person))) {
    return (
      <>
        <PageHeader title={`Edit ${mcp.name}`} />
        <EmptyState
          title="You cannot change this server"
          action={<Link to={serverPath}>Back to the server</Link>}
        >
          <p>Only the person who registered it and the workspace owners can.</p>
        </EmptyState>
      </>
    );
  }
  return <EditForm workspaceId={workspaceId} server={mcp} creatorId={mcp.created_by} />;
}

function EditForm(props: { workspaceId: string; server: McpServerView; creatorId: string }) {
  const { workspaceId, server } = props;
  const update = useUpdateMcpServer(workspaceId, server.id);
  const navigate = useNavigate();
  const serverPath = appPaths.workspace(workspaceId, `mcp/${server.id}`);
  const initialValues: ServerFormValues = {
    ...emptyServerForm(),
    name: server.name,
    description: server.description,
    serverUrl: server.server_url,
    accessMode: server.access_mode,
    accessibleTo: server.accessible_to,
    // Replacing starts from the stored type, with its fields empty: secrets are never shown.
    authType: server.auth_type,
  };
  return (
    <>
      <PageHeader
        title={`Edit ${server.name}`}
        description="New headers or credentials start a sync of its tools."
      />
      <ServerForm
        workspaceId={workspaceId}
        creatorId={props.creatorId}
        initialValues={initialValues}
        existing={server}
        submitLabel="Save changes"
        busy={update.isPending}
        failure={update.error}
        failureTitle="The changes were not saved."
        cancel={<Link to={serverPath}>Cancel</Link>}
        onSubmit={(values, replace) => {
          const checked = updateBodyOf(values, replace);
          if (!checked.ok) {
            update.reset();
            return checked.errors;
          }
          update.mutate(checked.body, { onSuccess: () => void navigate(serverPath) });
          return undefined;
        }}
      />
    </>
  );
}
