import { useRef, useState, type RefObject } from 'react';
import { Button, Panel, SelectField } from '../../../components';
import type { Run, StepTypeInfo, TestEvent } from '../api/workflows-api';
import {
  creditsText,
  formatDateTime,
  runCostSentence,
  STEP_TYPE_TEXT,
  stepTypeLabel,
} from '../shared/labels';
import { StepCard, type FocusRequest } from './step-card';
import { variableGroupsFor } from './variable-sources';
import {
  draftCreditCost,
  moveStep,
  newStep,
  type DraftErrors,
  type WorkflowDraft,
} from './workflow-draft';

type Steps = WorkflowDraft['steps'];

/** A saved workflow's test events (newest first) and last run: their fields become variables. */
export interface VariableSources {
  testEvents: readonly TestEvent[];
  lastRun: Run | null | undefined;
}

const STEPS_DESCRIPTION = (
  <>
    Steps run in order. In a setting, <code>{'{{Custom Webhook.order.id}}'}</code> is a value of the
    webhook&apos;s body and <code>{'{{steps.<step name>.<path>}}'}</code> the output of an earlier
    step; <code>{'{{= webhook.order.total * 1.2 }}'}</code> computes one (a CEL expression over{' '}
    <code>webhook</code> and <code>steps</code>, as <code>{'steps["fetch order"].body.id'}</code>).
  </>
);

/**
 * The workflow's steps in order, each a card of its settings, and the step types to add. Moving
 * a step keeps the focus on the control that moved it; removing one puts it on the type picker.
 */
export function StepsPanel(props: {
  steps: Steps;
  stepTypes: readonly StepTypeInfo[];
  workspaceId: string;
  /** The workflow being edited; undefined for a new one. */
  workflowId: string | undefined;
  errors: DraftErrors['steps'];
  variableSources: VariableSources | undefined;
  onStepsChange: (steps: Steps) => void;
  /** A JSON setting (`<step key>:<path>`) became valid or not; `prefix` covers a whole step. */
  onJsonValidityChange: (path: string, valid: boolean, prefix?: boolean) => void;
}) {
  const { steps, stepTypes, variableSources: sources } = props;
  const [chosenEventId, setChosenEventId] = useState<string | null>(null);
  const [justAdded, setJustAdded] = useState<string | null>(null);
  const [focusRequest, setFocusRequest] = useState<FocusRequest | null>(null);
  const addStepRef = useRef<HTMLDivElement>(null);

  const add = (stepType: StepTypeInfo) => {
    const step = newStep(stepType, steps);
    setJustAdded(step.key);
    props.onStepsChange([...steps, step]);
  };
  const move = (index: number, delta: -1 | 1) => {
    const step = steps[index];
    if (!step) return;
    props.onStepsChange(moveStep(steps, index, delta));
    setJustAdded(null);
    const control = delta === -1 ? 'up' : 'down';
    setFocusRequest({ key: step.key, control, nonce: (focusRequest?.nonce ?? 0) + 1 });
  };
  const remove = (index: number) => {
    const step = steps[index];
    props.onStepsChange(steps.filter((_, at) => at !== index));
    if (step) props.onJsonValidityChange(`${step.key}:`, true, true);
    addStepRef.current?.querySelector('select')?.focus();
  };

  const testEvent =
    sources?.testEvents.find((event) => event.id === chosenEventId) ?? sources?.testEvents[0];
  const variablesOfStep = (index: number) =>
    sources
      ? variableGroupsFor(
          { testEvent, lastRun: sources.lastRun },
          steps.slice(0, index).map((step) => step.name.trim()),
        )
      : [];

  return (
    <Panel title="Steps" description={STEPS_DESCRIPTION}>
      <p className="wf-credit-cost">
        {runCostSentence(draftCreditCost(steps, stepTypes))} The workspace&apos;s balance must stay
        above zero for runs to start.
      </p>
      {sources && (
        <TestEventChoice sources={sources} chosen={testEvent} onChoose={setChosenEventId} />
      )}
      <StepList
        steps={steps}
        stepTypes={stepTypes}
        workspaceId={props.workspaceId}
        workflowId={props.workflowId}
        errors={props.errors}
        variablesOfStep={variablesOfStep}
        justAdded={justAdded}
        focusRequest={focusRequest}
        onStepsChange={props.onStepsChange}
        onMove={move}
        onRemove={remove}
        onJsonValidityChange={props.onJsonValidityChange}
      />
      <AddStep
        stepTypes={stepTypes}
        full={steps.length >= 100}
        containerRef={addStepRef}
        onAdd={add}
      />
    </Panel>
  );
}

function StepList(props: {
  steps: Steps;
  stepTypes: readonly StepTypeInfo[];
  workspaceId: string;
  workflowId: string | undefined;
  errors: DraftErrors['steps'];
  variablesOfStep: (index: number) => ReturnType<typeof variableGroupsFor>;
  justAdded: string | null;
  focusRequest: FocusRequest | null;
  onStepsChange: (steps: Steps) => void;
  onMove: (index: number, delta: -1 | 1) => void;
  onRemove: (index: number) => void;
  onJsonValidityChange: (path: string, valid: boolean) => void;
}) {
  const { steps, stepTypes } = props;
  return steps.length === 0 ? (
    <p className="wf-steps__empty">No steps yet: add the first one below.</p>
  ) : (
    <ol className="wf-steps">
      {steps.map((step, index) => (
        <StepCard
          key={step.key}
          step={step}
          index={index}
          count={steps.length}
          stepType={stepTypes.find((info) => info.type === step.type)}
          workspaceId={props.workspaceId}
          workflowId={props.workflowId}
          variables={props.variablesOfStep(index)}
          errors={props.errors[step.key]}
          justAdded={props.justAdded === step.key}
          focusRequest={props.focusRequest}
          onChange={(changed) =>
            props.onStepsChange(
              steps.map((candidate) => (candidate.key === changed.key ? changed : candidate)),
            )
          }
          onMove={(delta) => props.onMove(index, delta)}
          onRemove={() => props.onRemove(index)}
          onJsonValidityChange={(path, valid) =>
            props.onJsonValidityChange(`${step.key}:${path}`, valid)
          }
        />
      ))}
    </ol>
  );
}

/** Which test event's fields the steps' variable pickers offer. */
function TestEventChoice(props: {
  sources: VariableSources;
  chosen: TestEvent | undefined;
  onChoose: (eventId: string) => void;
}) {
  if (props.sources.testEvents.length === 0) {
    return (
      <p className="field__hint">
        Fields become selectable once a test event was captured: call the webhook address.
      </p>
    );
  }
  if (!props.chosen) return null;
  return (
    <SelectField
      label="Fields from the test event"
      value={props.chosen.id}
      options={props.sources.testEvents.map((event) => ({
        value: event.id,
        label: `Received ${formatDateTime(event.received_at)}`,
      }))}
      onChange={(event) => props.onChoose(event.target.value)}
    />
  );
}

const STEPS_HOLDING_STEPS: readonly string[] = ['if', 'switch', 'for_each'];

function AddStep({
  stepTypes,
  full,
  containerRef,
  onAdd,
}: {
  stepTypes: readonly StepTypeInfo[];
  /** The workflow has as many steps as it may. */
  full: boolean;
  containerRef: RefObject<HTMLDivElement | null>;
  onAdd: (stepType: StepTypeInfo) => void;
}) {
  // Steps that hold steps of their own are built through the API until the editor shows
  // branches and loops as lanes.
  const addable = stepTypes.filter((info) => !STEPS_HOLDING_STEPS.includes(info.type));
  const [newStepType, setNewStepType] = useState(addable[0]?.type ?? '');
  const add = () => {
    const stepType = addable.find((info) => info.type === newStepType);
    if (stepType) onAdd(stepType);
  };
  return (
    <>
      <div className="wf-add-step" ref={containerRef}>
        <SelectField
          label="Step type"
          options={addable.map((info) => ({
            value: info.type,
            label: `${stepTypeLabel(info.type)} (${info.credit_price === 0 ? 'free' : creditsText(info.credit_price)})`,
          }))}
          value={newStepType}
          onChange={(event) => setNewStepType(event.target.value)}
        />
        <Button onClick={add} disabled={full}>
          Add step
        </Button>
      </div>
      {STEP_TYPE_TEXT[newStepType] && (
        <p className="field__hint">{STEP_TYPE_TEXT[newStepType]?.description}</p>
      )}
    </>
  );
}

/** The JSON settings (`<step key>:<path>`) that do not parse yet, and how steps report them. */
export function useInvalidJsonSettings() {
  const [invalidJson, setInvalidJson] = useState<ReadonlySet<string>>(new Set());
  const setJsonValidity = (path: string, valid: boolean, prefix = false) =>
    setInvalidJson((current) => {
      const next = new Set(
        [...current].filter((entry) => (prefix ? !entry.startsWith(path) : entry !== path)),
      );
      if (!valid) next.add(path);
      return next;
    });
  return { invalidJson, setJsonValidity };
}
