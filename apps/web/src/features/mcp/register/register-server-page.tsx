import { Link, useNavigate } from 'react-router';
import { PageHeader } from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useCurrentPerson, useRegisterMcpServer } from '../api/mcp-api';
import { emptyServerForm, registerBodyOf } from '../form/server-form-model';
import { ServerForm } from '../form/server-form';
import '../mcp.css';

/** Spec endpoint 2: registers a custom MCP server, then opens it to watch its tools sync. */
export function RegisterServerPage() {
  const workspaceId = useWorkspaceId();
  const person = useCurrentPerson(workspaceId);
  const register = useRegisterMcpServer(workspaceId);
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title="Register an MCP server"
        description="The platform connects to it over HTTPS, lists its tools and offers them to the assistant and to workflows."
      />
      <ServerForm
        workspaceId={workspaceId}
        creatorId={person.user?.id}
        initialValues={emptyServerForm()}
        submitLabel="Register server"
        busy={register.isPending}
        failure={register.error}
        failureTitle="The server was not registered."
        cancel={<Link to={appPaths.workspace(workspaceId, 'mcp')}>Cancel</Link>}
        onSubmit={(values) => {
          const checked = registerBodyOf(workspaceId, values);
          if (!checked.ok) {
            register.reset();
            return checked.errors;
          }
          register.mutate(checked.body, {
            onSuccess: ({ mcp }) => void navigate(appPaths.workspace(workspaceId, `mcp/${mcp.id}`)),
          });
          return undefined;
        }}
      />
    </>
  );
}
