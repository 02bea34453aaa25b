import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { PROVIDERS, type Provider, type Workflow } from '@wap/contracts';
import {
  Button,
  ErrorMessage,
  Panel,
  SelectField,
  StatusMessage,
  Switch,
  TextField,
} from '../../../components';
import { ApiError } from '../../../lib/api';
import type { Run, StepTypeInfo, TestEvent } from '../api/workflows-api';
import {
  creditsText,
  formatDateTime,
  PROVIDER_LABELS,
  runCostSentence,
  STEP_TYPE_TEXT,
  stepTypeLabel,
} from '../shared/labels';
import { timezoneOptions } from '../shared/timezones';
import { variableGroupsFor } from './variable-sources';
import { StepCard, type FocusRequest } from './step-card';
import {
  draftCreditCost,
  errorsFromResponse,
  hasErrors,
  moveStep,
  newStep,
  NO_ERRORS,
  savedDraft,
  toRequest,
  validateDraft,
  type DraftErrors,
  type RunningHoursDraft,
  type WorkflowDraft,
  type WorkflowFields,
} from './workflow-draft';

export type { WorkflowFields } from './workflow-draft';

export interface WorkflowFormProps {
  initial: WorkflowDraft;
  stepTypes: readonly StepTypeInfo[];
  workspaceId: string;
  submitLabel: string;
  /** Sends the fields; resolves with the saved workflow, rejects with the service's error. */
  save: (fields: WorkflowFields) => Promise<Workflow>;
  /** Told whether the form holds changes that are not saved. */
  onDirtyChange?: (dirty: boolean) => void;
  /** Shown after a save that worked; null shows nothing. */
  savedMessage?: string | null;
  /** A saved workflow's test events (newest first) and last run: their fields become variables. */
  variableSources?: { testEvents: readonly TestEvent[]; lastRun: Run | null | undefined };
}

const DAYS = [
  { value: 1, label: 'Monday' },
  { value: 2, label: 'Tuesday' },
  { value: 3, label: 'Wednesday' },
  { value: 4, label: 'Thursday' },
  { value: 5, label: 'Friday' },
  { value: 6, label: 'Saturday' },
  { value: 7, label: 'Sunday' },
];

/**
 * A workflow's name, Custom Webhook trigger, steps and running hours. Each step's settings are
 * a form generated from its type's JSON Schema; everything is checked with the contracts'
 * schemas before it is sent, and the service's own objections land next to their fields.
 */
export function WorkflowForm(props: WorkflowFormProps) {
  const { stepTypes } = props;
  const [draft, setDraft] = useState(props.initial);
  const [baseline, setBaseline] = useState(() =>
    JSON.stringify(toRequest(props.initial, stepTypes)),
  );
  const [errors, setErrors] = useState<DraftErrors>(NO_ERRORS);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [newStepType, setNewStepType] = useState(stepTypes[0]?.type ?? '');
  const [justAdded, setJustAdded] = useState<string | null>(null);
  const [focusRequest, setFocusRequest] = useState<FocusRequest | null>(null);
  const [invalidJson, setInvalidJson] = useState<ReadonlySet<string>>(new Set());
  const [chosenEventId, setChosenEventId] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const addSelectRef = useRef<HTMLDivElement>(null);

  const dirty = JSON.stringify(toRequest(draft, stepTypes)) !== baseline;
  const { onDirtyChange } = props;
  useEffect(() => onDirtyChange?.(dirty), [dirty, onDirtyChange]);

  const update = (change: Partial<WorkflowDraft>) => {
    setSaved(false);
    setDraft((current) => ({ ...current, ...change }));
  };
  const updateHours = (change: Partial<RunningHoursDraft>) =>
    update({ runningHours: { ...draft.runningHours, ...change } });

  const addStep = () => {
    const stepType = stepTypes.find((info) => info.type === newStepType);
    if (!stepType) return;
    const step = newStep(stepType, draft.steps);
    setJustAdded(step.key);
    update({ steps: [...draft.steps, step] });
  };
  const move = (index: number, delta: -1 | 1) => {
    const step = draft.steps[index];
    if (!step) return;
    update({ steps: moveStep(draft.steps, index, delta) });
    setJustAdded(null);
    setFocusRequest({
      key: step.key,
      control: delta === -1 ? 'up' : 'down',
      nonce: (focusRequest?.nonce ?? 0) + 1,
    });
  };
  const remove = (index: number) => {
    const step = draft.steps[index];
    update({ steps: draft.steps.filter((_, at) => at !== index) });
    if (step) setJsonValidity(`${step.key}:`, true, true);
    addSelectRef.current?.querySelector('select')?.focus();
  };
  const setJsonValidity = (path: string, valid: boolean, prefix = false) =>
    setInvalidJson((current) => {
      const next = new Set(
        [...current].filter((entry) => (prefix ? !entry.startsWith(path) : entry !== path)),
      );
      if (!valid) next.add(path);
      return next;
    });

  const focusFirstProblem = () =>
    requestAnimationFrame(() => {
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    });

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(false);
    setSaveError(null);
    const found = validateDraft(draft, stepTypes);
    if (invalidJson.size > 0) {
      found.general.push('A JSON setting is not valid JSON yet: fix the marked field.');
    }
    setErrors(found);
    if (hasErrors(found)) {
      focusFirstProblem();
      return;
    }
    setSaving(true);
    try {
      const workflow = await props.save(toRequest(draft, stepTypes));
      const next = savedDraft(workflow, draft);
      setDraft(next);
      setBaseline(JSON.stringify(toRequest(next, stepTypes)));
      setSaved(true);
    } catch (error) {
      setSaveError(error);
      if (error instanceof ApiError && error.code === 'VALIDATION_ERROR') {
        setErrors(errorsFromResponse(error, draft));
        focusFirstProblem();
      }
    } finally {
      setSaving(false);
    }
  };

  const sources = props.variableSources;
  const testEvent =
    sources?.testEvents.find((event) => event.id === chosenEventId) ?? sources?.testEvents[0];
  const variablesOfStep = (index: number) =>
    sources
      ? variableGroupsFor(
          { testEvent, lastRun: sources.lastRun },
          draft.steps.slice(0, index).map((step) => step.name.trim()),
        )
      : [];

  const creditCost = draftCreditCost(draft.steps, stepTypes);
  const problems = hasErrors(errors);
  return (
    <form ref={formRef} className="wf-form" noValidate onSubmit={(event) => void submit(event)}>
      <Panel title="Name and trigger">
        <TextField
          label="Workflow name"
          value={draft.name}
          error={errors.fields['name']}
          maxLength={200}
          onChange={(event) => update({ name: event.target.value })}
        />
        <p>
          <strong>Trigger: Custom Webhook.</strong> A POST with a JSON body to the workflow&apos;s
          webhook address starts it; its body is <code>{'{{Custom Webhook.<key>}}'}</code> in the
          steps&apos; settings.
        </p>
        <Switch
          label="Answer webhook calls with a custom response"
          description="Off: callers get the standard JSON answer."
          checked={draft.customResponseEnabled}
          onChange={(checked) => update({ customResponseEnabled: checked })}
        />
        {draft.customResponseEnabled && (
          <TextAreaField
            label="Response body"
            hint='JSON or text. {{body.<key>}} is replaced by a value of the request; empty sends {"status": "ok"}.'
            value={draft.customResponseBody}
            error={errors.fields['customResponseBody']}
            onChange={(customResponseBody) => update({ customResponseBody })}
          />
        )}
        <Switch
          label="Also start on provider events"
          description="Deliveries of the provider account connected under Provider events start it, their body as the Custom Webhook variables."
          checked={draft.providerEventsEnabled}
          onChange={(providerEventsEnabled) => update({ providerEventsEnabled })}
        />
        {draft.providerEventsEnabled && (
          <div className="wf-provider-events">
            <SelectField
              label="Provider"
              options={PROVIDERS.map((provider) => ({
                value: provider,
                label: PROVIDER_LABELS[provider],
              }))}
              value={draft.provider}
              onChange={(event) => update({ provider: event.target.value as Provider })}
            />
            <TextField
              label="Events"
              hint="Separated by commas: pull_request.opened takes that action, issues every action of issues, * every event."
              value={draft.providerEventsText}
              error={errors.fields['providerEvents']}
              autoComplete="off"
              spellCheck={false}
              onChange={(event) => update({ providerEventsText: event.target.value })}
            />
          </div>
        )}
      </Panel>

      <Panel
        title="Steps"
        description={
          <>
            Steps run in order. In a setting, <code>{'{{Custom Webhook.order.id}}'}</code> is a
            value of the webhook&apos;s body and <code>{'{{steps.<step name>.<path>}}'}</code> the
            output of an earlier step.
          </>
        }
      >
        <p className="wf-credit-cost">
          {runCostSentence(creditCost)} The workspace&apos;s balance must stay above zero for runs
          to start.
        </p>
        {sources && sources.testEvents.length === 0 && (
          <p className="field__hint">
            Fields become selectable once a test event was captured: call the webhook address.
          </p>
        )}
        {sources && testEvent && (
          <SelectField
            label="Fields from the test event"
            value={testEvent.id}
            options={sources.testEvents.map((event) => ({
              value: event.id,
              label: `Received ${formatDateTime(event.received_at)}`,
            }))}
            onChange={(event) => setChosenEventId(event.target.value)}
          />
        )}
        {draft.steps.length === 0 ? (
          <p className="wf-steps__empty">No steps yet: add the first one below.</p>
        ) : (
          <ol className="wf-steps">
            {draft.steps.map((step, index) => (
              <StepCard
                key={step.key}
                step={step}
                index={index}
                count={draft.steps.length}
                stepType={stepTypes.find((info) => info.type === step.type)}
                workspaceId={props.workspaceId}
                variables={variablesOfStep(index)}
                errors={errors.steps[step.key]}
                justAdded={justAdded === step.key}
                focusRequest={focusRequest}
                onChange={(changed) =>
                  update({
                    steps: draft.steps.map((candidate) =>
                      candidate.key === changed.key ? changed : candidate,
                    ),
                  })
                }
                onMove={(delta) => move(index, delta)}
                onRemove={() => remove(index)}
                onJsonValidityChange={(path, valid) =>
                  setJsonValidity(`${step.key}:${path}`, valid)
                }
              />
            ))}
          </ol>
        )}
        <div className="wf-add-step" ref={addSelectRef}>
          <SelectField
            label="Step type"
            options={stepTypes.map((info) => ({
              value: info.type,
              label: `${stepTypeLabel(info.type)} (${info.credit_price === 0 ? 'free' : creditsText(info.credit_price)})`,
            }))}
            value={newStepType}
            onChange={(event) => setNewStepType(event.target.value)}
          />
          <Button onClick={addStep} disabled={draft.steps.length >= 100}>
            Add step
          </Button>
        </div>
        {STEP_TYPE_TEXT[newStepType] && (
          <p className="field__hint">{STEP_TYPE_TEXT[newStepType]?.description}</p>
        )}
      </Panel>

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

      <div className="wf-save-bar">
        {problems && (
          <div className="notice notice--error" role="alert">
            <p className="notice__title">Some values need fixing: they are marked.</p>
            {errors.general.length > 0 && (
              <ul>
                {errors.general.map((message) => (
                  <li key={message}>{message}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        {saveError !== null && !problems && <ErrorMessage error={saveError} />}
        {saved && props.savedMessage && <StatusMessage>{props.savedMessage}</StatusMessage>}
        <div className="button-row">
          <Button type="submit" variant="primary" busy={saving}>
            {props.submitLabel}
          </Button>
          {dirty && <span className="wf-save-bar__note">Unsaved changes</span>}
        </div>
      </div>
    </form>
  );
}

function TextAreaField(props: {
  label: string;
  hint?: string;
  value: string;
  error?: string;
  onChange: (value: string) => void;
}) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {props.label}
      </label>
      {props.hint && (
        <p className="field__hint" id={hintId}>
          {props.hint}
        </p>
      )}
      <textarea
        id={id}
        className="field__input field__input--multiline schema-form__mono"
        rows={4}
        value={props.value}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
        onChange={(event) => props.onChange(event.target.value)}
      />
      {props.error && (
        <p className="field__error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
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
