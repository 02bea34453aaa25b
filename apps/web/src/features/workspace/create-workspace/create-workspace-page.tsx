import { PageHeader, Panel } from '../../../components';
import { CreateWorkspaceForm } from './create-workspace-form';

export function CreateWorkspacePage() {
  return (
    <>
      <PageHeader
        title="New workspace"
        description="A workspace holds its own chats, workflows, tools, tables and members."
      />
      <Panel title="Name it">
        <CreateWorkspaceForm />
      </Panel>
    </>
  );
}
