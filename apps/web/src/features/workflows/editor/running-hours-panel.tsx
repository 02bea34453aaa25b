import { useId } from 'react';
import { Panel, SelectField, Switch, TextField } from '../../../components';
import { timezoneOptions } from '../shared/timezones';
import type { DraftErrors, RunningHoursDraft, WorkflowDraft } from './workflow-draft';

const DAYS = [
  { value: 1, label: 'Monday' },
  { value: 2, label: 'Tuesday' },
  { value: 3, label: 'Wednesday' },
  { value: 4, label: 'Thursday' },
  { value: 5, label: 'Friday' },
  { value: 6, label: 'Saturday' },
  { value: 7, label: 'Sunday' },
];

/** When webhook calls may start runs, and what a failing step does to its run. */
export function RunningHoursPanel({
  draft,
  errors,
  update,
}: {
  draft: WorkflowDraft;
  errors: DraftErrors;
  update: (change: Partial<WorkflowDraft>) => void;
}) {
  const updateHours = (change: Partial<RunningHoursDraft>) =>
    update({ runningHours: { ...draft.runningHours, ...change } });
  return (
    <Panel
      title="Running hours and failures"
      description="Webhook calls start runs only inside running hours; Run always runs at once."
    >
      <Switch
        label="Only start runs during running hours"
        checked={draft.runningHoursEnabled}
        onChange={(checked) => update({ runningHoursEnabled: checked })}
      />
      {draft.runningHoursEnabled && (
        <RunningHoursFields
          value={draft.runningHours}
          errors={errors.fields}
          onChange={updateHours}
        />
      )}
      <Switch
        label="Queue webhook calls outside running hours"
        description="They run when the next window opens. Off: they are dropped (and kept as test events)."
        checked={draft.queueOutsideWindow}
        onChange={(queueOutsideWindow) => update({ queueOutsideWindow })}
      />
      <Switch
        label="Stop the run when a step fails"
        description="Off: the failure is recorded and the next steps run."
        checked={draft.stopOnNodeFailure}
        onChange={(stopOnNodeFailure) => update({ stopOnNodeFailure })}
      />
    </Panel>
  );
}

function RunningHoursFields(props: {
  value: RunningHoursDraft;
  errors: Partial<Record<string, string>>;
  onChange: (change: Partial<RunningHoursDraft>) => void;
}) {
  const daysErrorId = useId();
  const daysError = props.errors['runningHours.days'];
  const { value } = props;
  return (
    <div className="wf-hours">
      <SelectField
        label="Timezone"
        options={timezoneOptions(value.timezone)}
        value={value.timezone}
        error={props.errors['runningHours.timezone']}
        onChange={(event) => props.onChange({ timezone: event.target.value })}
      />
      <fieldset
        className="schema-form__group wf-hours__days"
        aria-describedby={daysError ? daysErrorId : undefined}
      >
        <legend className="field__label">Days</legend>
        {daysError && (
          <p className="field__error" id={daysErrorId}>
            {daysError}
          </p>
        )}
        {DAYS.map((day) => (
          <label key={day.value} className="schema-form__choice">
            <input
              type="checkbox"
              checked={value.days.includes(day.value)}
              onChange={(event) =>
                props.onChange({
                  days: event.target.checked
                    ? [...value.days, day.value].sort((a, b) => a - b)
                    : value.days.filter((candidate) => candidate !== day.value),
                })
              }
            />
            {day.label}
          </label>
        ))}
      </fieldset>
      <div className="wf-hours__times">
        <TextField
          label="Opens at"
          type="time"
          value={value.start}
          error={props.errors['runningHours.start']}
          onChange={(event) => props.onChange({ start: event.target.value })}
        />
        <TextField
          label="Closes at"
          type="time"
          hint="At or before the opening time: the window ends the next day."
          value={value.end}
          error={props.errors['runningHours.end']}
          onChange={(event) => props.onChange({ end: event.target.value })}
        />
      </div>
    </div>
  );
}
