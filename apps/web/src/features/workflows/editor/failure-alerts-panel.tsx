import { LoadingState, Panel, Switch, TextField } from '../../../components';
import { useMembers } from '../../workspace';
import type { DraftErrors, WorkflowDraft } from './workflow-draft';

/** Who is emailed when runs fail, and how often at the most (decision 160). */
export function FailureAlertsPanel({
  draft,
  errors,
  update,
  workspaceId,
}: {
  draft: WorkflowDraft;
  errors: DraftErrors;
  update: (change: Partial<WorkflowDraft>) => void;
  workspaceId: string;
}) {
  return (
    <Panel
      title="Failure alerts"
      description="An email when runs fail: how many since the last one, and the newest error."
    >
      <Switch
        label="Email when runs fail"
        description="To the workflow's owner and the members chosen below, at most once per interval."
        checked={draft.failureAlertsEnabled}
        onChange={(failureAlertsEnabled) => update({ failureAlertsEnabled })}
      />
      {draft.failureAlertsEnabled && (
        <>
          <TextField
            label="Minutes between alerts"
            hint="At least 5, at most 1440 (a day). A schedule that pauses itself is told at once."
            inputMode="numeric"
            value={draft.alertIntervalMinutes}
            error={errors.fields['alertIntervalMinutes']}
            onChange={(event) => update({ alertIntervalMinutes: event.target.value })}
          />
          <AlertMembers
            workspaceId={workspaceId}
            chosen={draft.alertMemberIds}
            onChange={(alertMemberIds) => update({ alertMemberIds })}
          />
        </>
      )}
    </Panel>
  );
}

function AlertMembers(props: {
  workspaceId: string;
  chosen: string[];
  onChange: (memberIds: string[]) => void;
}) {
  const members = useMembers(props.workspaceId);
  if (members.isPending) return <LoadingState label="Loading the members…" />;
  if (members.isError) {
    return <p className="field__hint">The members could not be listed: the owner is emailed.</p>;
  }
  const toggle = (userId: string, checked: boolean) =>
    props.onChange(
      checked ? [...props.chosen, userId] : props.chosen.filter((item) => item !== userId),
    );
  return (
    <fieldset className="schema-form__group">
      <legend className="field__label">Also email</legend>
      {members.data.members.map((member) => (
        <label key={member.user_id} className="schema-form__choice">
          <input
            type="checkbox"
            checked={props.chosen.includes(member.user_id)}
            onChange={(event) => toggle(member.user_id, event.target.checked)}
          />
          {member.name} ({member.email})
        </label>
      ))}
    </fieldset>
  );
}
