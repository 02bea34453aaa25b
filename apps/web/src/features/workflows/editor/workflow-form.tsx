import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Workflow } from '@wap/contracts';
import { Button, ErrorMessage, StatusMessage } from '../../../components';
import { ApiError } from '../../../lib/api';
import type { StepTypeInfo } from '../api/workflows-api';
import { FailureAlertsPanel } from './failure-alerts-panel';
import { RunningHoursPanel } from './running-hours-panel';
import { StepsPanel, useInvalidJsonSettings, type VariableSources } from './steps-panel';
import { TriggerPanel } from './trigger-panel';
import {
  errorsFromResponse,
  hasErrors,
  NO_ERRORS,
  savedDraft,
  toRequest,
  validateDraft,
  type DraftErrors,
  type WorkflowDraft,
  type WorkflowFields,
} from './workflow-draft';

export type { WorkflowFields } from './workflow-draft';

export interface WorkflowFormProps {
  initial: WorkflowDraft;
  stepTypes: readonly StepTypeInfo[];
  workspaceId: string;
  /** The workflow being edited; undefined while a new one is drafted. */
  workflowId?: string;
  submitLabel: string;
  /** Sends the fields; resolves with the saved workflow, rejects with the service's error. */
  save: (fields: WorkflowFields) => Promise<Workflow>;
  /** Told whether the form holds changes that are not saved. */
  onDirtyChange?: (dirty: boolean) => void;
  /** Shown after a save that worked; null shows nothing. */
  savedMessage?: string | null;
  /** A saved workflow's test events (newest first) and last run: their fields become variables. */
  variableSources?: VariableSources;
}

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
  const { invalidJson, setJsonValidity } = useInvalidJsonSettings();
  const formRef = useRef<HTMLFormElement>(null);

  const dirty = JSON.stringify(toRequest(draft, stepTypes)) !== baseline;
  const { onDirtyChange } = props;
  useEffect(() => onDirtyChange?.(dirty), [dirty, onDirtyChange]);

  const update = (change: Partial<WorkflowDraft>) => {
    setSaved(false);
    setDraft((current) => ({ ...current, ...change }));
  };
  const panel = { draft, errors, update };
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

  return (
    <form ref={formRef} className="wf-form" noValidate onSubmit={(event) => void submit(event)}>
      <TriggerPanel {...panel} />
      <StepsPanel
        steps={draft.steps}
        stepTypes={stepTypes}
        workspaceId={props.workspaceId}
        workflowId={props.workflowId}
        errors={errors.steps}
        variableSources={props.variableSources}
        onStepsChange={(steps) => update({ steps })}
        onJsonValidityChange={setJsonValidity}
      />
      <RunningHoursPanel {...panel} />
      <FailureAlertsPanel {...panel} workspaceId={props.workspaceId} />
      <SaveBar
        errors={errors}
        saveError={saveError}
        savedMessage={saved ? props.savedMessage : null}
        submitLabel={props.submitLabel}
        saving={saving}
        dirty={dirty}
      />
    </form>
  );
}

/** What stops a save or came of the last one, and the save button. */
function SaveBar(props: {
  errors: DraftErrors;
  saveError: unknown;
  savedMessage: string | null | undefined;
  submitLabel: string;
  saving: boolean;
  dirty: boolean;
}) {
  const { errors, saveError } = props;
  const problems = hasErrors(errors);
  return (
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
      {props.savedMessage && <StatusMessage>{props.savedMessage}</StatusMessage>}
      <div className="button-row">
        <Button type="submit" variant="primary" busy={props.saving}>
          {props.submitLabel}
        </Button>
        {props.dirty && <span className="wf-save-bar__note">Unsaved changes</span>}
      </div>
    </div>
  );
}
