import { useState } from 'react';
import type { WorkflowAction, WorkflowPermissionLevel } from '@wap/contracts';
import { Button, ErrorMessage, Panel, SelectField, StatusMessage } from '../../../components';
import { useAuthors } from '../../workspace';
import { useSaveWorkflowPermissions, useWorkflowPermissions } from '../api/workflows-api';

const ACTIONS: ReadonlyArray<[WorkflowAction, string]> = [
  ['edit', 'Edit'],
  ['run', 'Run'],
  ['publish', 'Set live or back to draft'],
  ['schedule', 'Schedule'],
  ['delete', 'Delete'],
  ['change_approvals', 'Change approval steps'],
];

const LEVELS: ReadonlyArray<{ value: WorkflowPermissionLevel; label: string }> = [
  { value: 'member', label: 'Every member' },
  { value: 'workflow_owner', label: "The workflow's owner and workspace owners" },
  { value: 'workspace_owner', label: 'Workspace owners only' },
];

/** Who may do what with the workspace's workflows: shown to members, changed by its owners. */
export function PermissionsPanel(props: { workspaceId: string }) {
  const authors = useAuthors(props.workspaceId);
  const current = useWorkflowPermissions(props.workspaceId);
  const save = useSaveWorkflowPermissions(props.workspaceId);
  const [changes, setChanges] = useState<Partial<Record<WorkflowAction, WorkflowPermissionLevel>>>(
    {},
  );
  if (!current.data) return current.isError ? <ErrorMessage error={current.error} /> : null;
  const levels = { ...current.data.permissions, ...changes };
  return (
    <Panel
      title="Who may do what"
      description="Runs act as whoever last changed a workflow's trigger or steps, until its owner adopts the change."
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate(changes, { onSuccess: () => setChanges({}) });
        }}
      >
        {ACTIONS.map(([action, label]) => (
          <SelectField
            key={action}
            label={label}
            value={levels[action]}
            disabled={!authors.isOwner}
            onChange={(event) =>
              setChanges({ ...changes, [action]: event.target.value as WorkflowPermissionLevel })
            }
            options={LEVELS}
          />
        ))}
        {save.isError && <ErrorMessage error={save.error} title="Could not save" />}
        {save.isSuccess && Object.keys(changes).length === 0 && (
          <StatusMessage>Saved.</StatusMessage>
        )}
        {authors.isOwner && (
          <Button type="submit" busy={save.isPending} disabled={Object.keys(changes).length === 0}>
            Save permissions
          </Button>
        )}
      </form>
    </Panel>
  );
}
