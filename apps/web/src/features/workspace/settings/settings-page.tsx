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
  useSavedPreferences,
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

/**
 * The caller's own Approval tasks email preference (all workspaces). The API does not answer
 * its current value, so no option is chosen until the person saves one here.
 */
function MyApprovalTaskEmails() {
  const saved = useSavedPreferences();
  const update = useUpdatePreferences();
  // While a choice is being saved it shows as chosen; a failed save puts the old one back.
  const emails = update.isPending
    ? update.variables.approval_tasks_email
    : saved.data?.approval_tasks_email;
  const value = emails === undefined ? undefined : emails ? 'on' : 'off';
  return (
    <Panel title="Your approval task emails">
      {update.isError && <ErrorMessage error={update.error} />}
      <RadioGroup
        legend="When you are a reviewer"
        description="Applies in every workspace you belong to, when its approval emails are on."
        options={PREFERENCE_OPTIONS}
        value={value}
        disabled={update.isPending}
        onChange={(choice) => update.mutate({ approval_tasks_email: choice === 'on' })}
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
