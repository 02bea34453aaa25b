import { useState } from 'react';
import {
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  RadioGroup,
  StatusMessage,
  Switch,
} from '../../../components';
import { useWorkspaceId } from '../../../lib/routing';
import {
  useNotificationSettings,
  useMe,
  useUpdateNotificationSettings,
  useUpdatePreferences,
} from '../api/workspace-api';

export function SettingsPage() {
  const workspaceId = useWorkspaceId();
  return (
    <>
      <PageHeader title="Settings" description="Who hears about approval requests, and how." />
      <WorkspaceApprovalEmails workspaceId={workspaceId} />
      <MyApprovalTaskEmails />
    </>
  );
}

/** Spec endpoint 7: the workspace-wide option; any member may change it. */
function WorkspaceApprovalEmails(props: { workspaceId: string }) {
  const settings = useNotificationSettings(props.workspaceId);
  const update = useUpdateNotificationSettings(props.workspaceId);
  return (
    <Panel
      title="Approval emails for this workspace"
      description="Applies to everyone in the workspace; any member can change it."
    >
      {settings.isPending && <LoadingState label="Loading the setting…" />}
      {settings.isError && <ErrorMessage error={settings.error} />}
      {update.isError && <ErrorMessage error={update.error} />}
      {settings.data && (
        <Switch
          label="Email reviewers when a workflow waits for their approval"
          description="Each reviewer's own preference below still applies."
          checked={
            update.isPending ? update.variables.email_on_approval : settings.data.email_on_approval
          }
          disabled={update.isPending}
          onChange={(checked) => update.mutate({ email_on_approval: checked })}
        />
      )}
      {update.isSuccess && (
        <StatusMessage>
          Approval emails are {update.data.email_on_approval ? 'on' : 'off'} for this workspace.
        </StatusMessage>
      )}
    </Panel>
  );
}

const PREFERENCE_OPTIONS = [
  { value: 'on', label: 'Email me about approval tasks' },
  { value: 'off', label: 'Do not email me about approval tasks' },
] as const;

/** The caller's own Approval tasks email preference (all workspaces), as `GET /me` gives it. */
function MyApprovalTaskEmails() {
  const me = useMe();
  const update = useUpdatePreferences();
  // The choice shows at once, before its save starts; a failed save puts the stored one back.
  const [chosen, setChosen] = useState<'on' | 'off'>();
  const stored = me.data?.preferences.approval_tasks_email;
  const value = chosen ?? (stored === undefined ? undefined : stored ? 'on' : 'off');
  return (
    <Panel title="Your approval task emails">
      {update.isError && <ErrorMessage error={update.error} />}
      <RadioGroup
        legend="When you are a reviewer"
        description="Applies in every workspace you belong to, when its approval emails are on."
        options={PREFERENCE_OPTIONS}
        value={value}
        disabled={update.isPending}
        onChange={(choice) => {
          setChosen(choice === 'on' ? 'on' : 'off');
          update.mutate(
            { approval_tasks_email: choice === 'on' },
            { onError: () => setChosen(undefined) },
          );
        }}
      />
      {update.isSuccess && (
        <StatusMessage>
          Saved: you will {update.data.preferences.approval_tasks_email ? '' : 'not '}get approval
          task emails.
        </StatusMessage>
      )}
    </Panel>
  );
}
