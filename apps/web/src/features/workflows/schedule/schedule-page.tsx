import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import {
  Button,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  RadioGroup,
  SelectField,
  StatusMessage,
  Switch,
  TextField,
} from '../../../components';
import { ApiError } from '../../../lib/api';
import type { FieldErrors } from '../../../lib/forms';
import { useWorkspaceId } from '../../../lib/routing';
import {
  useSaveSchedule,
  useSchedule,
  useScheduleFires,
  type ScheduleFire,
  type ScheduleResponse,
  type Workflow,
} from '../api/workflows-api';
import { localTimezone } from '../editor/workflow-draft';
import { formatDateTime } from '../shared/labels';
import { timezoneOptions } from '../shared/timezones';
import { WorkflowFrame, workflowPaths, WorkflowTabs } from '../shared/workflow-frame';
import '../workflows.css';
import {
  CRON_HELP,
  scheduleDraftOf,
  scheduleErrorsFromResponse,
  validateSchedule,
  type ScheduleDraft,
} from './schedule-draft';

const TYPE_OPTIONS = [
  { value: 'cron', label: 'On a cron expression' },
  { value: 'interval', label: 'At a fixed interval' },
];

/** Spec endpoint 9: when the workflow runs by itself. */
export function SchedulePage() {
  return (
    <WorkflowFrame>
      {({ workflow }) => <ScheduleEditor key={workflow.id} workflow={workflow} />}
    </WorkflowFrame>
  );
}

function ScheduleEditor(props: { workflow: Workflow }) {
  const { workflow } = props;
  const schedule = useSchedule(workflow.id);
  return (
    <>
      <PageHeader
        title={`Schedule of ${workflow.name}`}
        description="Runs the workflow by itself while it is live."
      />
      <WorkflowTabs workflowId={workflow.id} />
      {schedule.isPending && <LoadingState label="Loading the schedule…" />}
      {schedule.isError && <ErrorMessage error={schedule.error} />}
      {schedule.data && (
        <ScheduleForm key={workflow.id} workflow={workflow} saved={schedule.data} />
      )}
      <RecentFires workflow={workflow} />
    </>
  );
}

function nextRunSentence(answer: ScheduleResponse, workflow: Workflow): string {
  if (!answer.hasSchedule || !answer.schedule) return 'No schedule yet.';
  if (!answer.schedule.is_enabled) return 'The schedule is off.';
  const next = answer.nextFireAt
    ? `Next run: ${formatDateTime(answer.nextFireAt)}.`
    : 'It does not fire again.';
  return workflow.status === 'live'
    ? next
    : `${next} The workflow is in draft: set it live for the schedule to start runs.`;
}

function ScheduleForm(props: { workflow: Workflow; saved: ScheduleResponse }) {
  const { workflow } = props;
  const [draft, setDraft] = useState<ScheduleDraft>(() =>
    scheduleDraftOf(props.saved, workflow, localTimezone()),
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const [general, setGeneral] = useState<string[]>([]);
  const save = useSaveSchedule(workflow.id);
  const formRef = useRef<HTMLFormElement>(null);
  const set = (change: Partial<ScheduleDraft>) => {
    save.reset();
    setDraft((current) => ({ ...current, ...change }));
  };
  const focusFirstProblem = () =>
    requestAnimationFrame(() =>
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(),
    );

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setGeneral([]);
    const checked = validateSchedule(draft);
    if (!checked.ok) {
      setErrors(checked.errors);
      focusFirstProblem();
      return;
    }
    setErrors({});
    save.mutate(checked.body, {
      onError: (error) => {
        if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
          const mapped = scheduleErrorsFromResponse(error, draft);
          setErrors(mapped.fields);
          setGeneral(mapped.general);
          focusFirstProblem();
        }
      },
    });
  };
  const refusedFields = Object.keys(errors).length > 0;
  const pause = (save.data ?? props.saved).pausedForFailures;
  return (
    <Panel title="Schedule" description={nextRunSentence(save.data ?? props.saved, workflow)}>
      {pause && <PauseNotice pause={pause} />}
      <form ref={formRef} onSubmit={submit} noValidate>
        <Switch
          label="Run on this schedule"
          description="Off keeps the settings and starts nothing."
          checked={draft.is_enabled}
          onChange={(is_enabled) => set({ is_enabled })}
        />
        <ScheduleTiming draft={draft} errors={errors} set={set} />
        <Switch
          label="Queue runs outside running hours"
          description="They start when the workflow's next running-hours window opens. Off: they are dropped. The same setting as in the editor."
          checked={draft.queue_outside_window}
          onChange={(queue_outside_window) => set({ queue_outside_window })}
        />
        <FailureSettings draft={draft} errors={errors} set={set} />
        <SaveOutcome
          refusedFields={refusedFields}
          general={general}
          save={save}
          workflow={workflow}
        />
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save schedule
        </Button>
      </form>
    </Panel>
  );
}

/** Why the schedule stopped firing by itself (decision 160). */
function PauseNotice({ pause }: { pause: NonNullable<ScheduleResponse['pausedForFailures']> }) {
  return (
    <div className="notice notice--error" role="status">
      <p>
        Paused by itself on {formatDateTime(pause.pausedAt)}. {pause.reason}
      </p>
      <p>Turn it on and save it to resume.</p>
    </div>
  );
}

/** What a failing step does to its run, and when failures in a row pause the schedule. */
function FailureSettings({
  draft,
  errors,
  set,
}: {
  draft: ScheduleDraft;
  errors: FieldErrors;
  set: (change: Partial<ScheduleDraft>) => void;
}) {
  return (
    <>
      <Switch
        label="Stop the run when a step fails"
        description="Off: the failure is recorded and the next steps run. The same setting as in the editor."
        checked={draft.stop_on_node_failure}
        onChange={(stop_on_node_failure) => set({ stop_on_node_failure })}
      />
      <TextField
        label="Pause after failed runs in a row"
        hint="Empty: never. The schedule turns itself off after this many scheduled runs fail one after another, and the failure alert says so."
        type="number"
        inputMode="numeric"
        min={1}
        value={draft.pause_after_failures}
        error={errors['pause_after_failures']}
        onChange={(event) => set({ pause_after_failures: event.target.value })}
      />
    </>
  );
}

/** Why the schedule was not saved, or when it runs next now that it is. */
function SaveOutcome({
  refusedFields,
  general,
  save,
  workflow,
}: {
  refusedFields: boolean;
  general: readonly string[];
  save: ReturnType<typeof useSaveSchedule>;
  workflow: Workflow;
}) {
  return (
    <>
      {refusedFields && (
        <div className="notice notice--error" role="alert">
          <p>The schedule was not saved: fix the marked fields.</p>
          {general.length > 0 && (
            <ul>
              {general.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {save.isError && !refusedFields && <ErrorMessage error={save.error} />}
      {save.isSuccess && (
        <StatusMessage>Schedule saved. {nextRunSentence(save.data, workflow)}</StatusMessage>
      )}
    </>
  );
}

/** When the schedule fires: a cron expression or an interval, its timezone, its daily cap. */
function ScheduleTiming({
  draft,
  errors,
  set,
}: {
  draft: ScheduleDraft;
  errors: FieldErrors;
  set: (change: Partial<ScheduleDraft>) => void;
}) {
  return (
    <>
      <RadioGroup
        legend="Repeat"
        options={TYPE_OPTIONS}
        value={draft.schedule_type}
        onChange={(value) => set({ schedule_type: value === 'interval' ? 'interval' : 'cron' })}
      />
      {draft.schedule_type === 'cron' ? (
        <TextField
          label="Cron expression"
          hint={`${CRON_HELP} Times are in the timezone below.`}
          className="wf-mono"
          autoComplete="off"
          spellCheck={false}
          value={draft.cron_expression}
          error={errors['cron_expression']}
          onChange={(event) => set({ cron_expression: event.target.value })}
        />
      ) : (
        <TextField
          label="Interval in minutes"
          hint="1 to 43,200 (30 days), counted from when you save."
          type="number"
          inputMode="numeric"
          min={1}
          max={43_200}
          value={draft.interval_minutes}
          error={errors['interval_minutes']}
          onChange={(event) => set({ interval_minutes: event.target.value })}
        />
      )}
      <SelectField
        label="Timezone"
        options={timezoneOptions(draft.timezone)}
        value={draft.timezone}
        error={errors['timezone']}
        onChange={(event) => set({ timezone: event.target.value })}
      />
      <TextField
        label="Max runs per day"
        hint="Empty: no limit. Counted by the calendar day of the timezone."
        type="number"
        inputMode="numeric"
        min={1}
        value={draft.max_runs_per_day}
        error={errors['max_runs_per_day']}
        onChange={(event) => set({ max_runs_per_day: event.target.value })}
      />
    </>
  );
}

const OUTCOME_LABELS: Record<ScheduleFire['outcome'], string> = {
  started: 'Started a run',
  queued_for_window: 'Queued for running hours',
  dropped_outside_window: 'Dropped: outside running hours',
  skipped_running: 'Skipped: the last run was still going',
  skipped_daily_limit: 'Skipped: daily limit reached',
  skipped_draft: 'Skipped: workflow in draft',
  refused_credits: 'Refused: not enough credits',
};

function RecentFires(props: { workflow: Workflow }) {
  const workspaceId = useWorkspaceId();
  const fires = useScheduleFires(props.workflow.id);
  return (
    <Panel
      title="Recent fires"
      description="What became of the schedule's latest fires, newest first."
    >
      {fires.isPending && <LoadingState label="Loading the fires…" />}
      {fires.isError && <ErrorMessage error={fires.error} />}
      {fires.data && fires.data.fires.length === 0 && (
        <p className="wf-empty-line">The schedule has not fired yet.</p>
      )}
      {fires.data && fires.data.fires.length > 0 && (
        <div className="wf-table-wrap" tabIndex={0} role="region" aria-label="Recent fires">
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col">Due</th>
                <th scope="col">Outcome</th>
                <th scope="col">Run</th>
              </tr>
            </thead>
            <tbody>
              {fires.data.fires.map((fire) => (
                <tr key={`${fire.fire_at}-${fire.recorded_at}`}>
                  <td>{formatDateTime(fire.fire_at)}</td>
                  <td>
                    {OUTCOME_LABELS[fire.outcome]}
                    {fire.detail ? `: ${fire.detail}` : ''}
                    {fire.missed_before > 0 ? ` (replaces ${fire.missed_before} missed)` : ''}
                  </td>
                  <td>
                    {fire.run_id ? (
                      <Link to={workflowPaths.run(workspaceId, props.workflow.id, fire.run_id)}>
                        Open the run
                      </Link>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}
