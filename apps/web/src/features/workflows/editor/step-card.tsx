import { useEffect, useId, useRef } from 'react';
import { literalSecretHeaders } from '@wap/contracts';
import { Button, TextField } from '../../../components';
import type { StepTypeInfo } from '../api/workflows-api';
import type { JsonSchema } from '../schema-form/json-schema';
import { SchemaForm } from '../schema-form/schema-form';
import type { VariableGroup } from '../schema-form/template-variables';
import { TemplateVariablesContext } from '../schema-form/variable-picker';
import { creditsText, STEP_TYPE_TEXT, stepTypeLabel } from '../shared/labels';
import { McpToolSettings } from './mcp-tool-settings';
import { ReviewerPicker } from './reviewer-picker';
import { TableRowSettings } from './table-row-settings';
import { StepPolicyPanel } from './step-policy-panel';
import { nestedStepCount, type DraftErrors, type DraftStep } from './workflow-draft';

/** Which of a step's move buttons should have the focus after it moved. */
export interface FocusRequest {
  key: string;
  control: 'up' | 'down';
  nonce: number;
}

export interface StepCardProps {
  step: DraftStep;
  index: number;
  count: number;
  stepType: StepTypeInfo | undefined;
  workspaceId: string;
  /** What its text settings can insert: the test event's fields and earlier steps' outputs. */
  variables: readonly VariableGroup[];
  errors: DraftErrors['steps'][string] | undefined;
  /** The workflow being edited; undefined for a new one. */
  workflowId: string | undefined;
  /** True right after the person added this step: its name field takes the focus. */
  justAdded: boolean;
  focusRequest: FocusRequest | null;
  onChange: (step: DraftStep) => void;
  onMove: (delta: -1 | 1) => void;
  onRemove: () => void;
  onJsonValidityChange: (path: string, valid: boolean) => void;
}

/** One step of the editor: its name, its settings form generated from the type's schema, and its order. */
/** An if's, a switch's or a loop's own steps: kept as saved (the editor does not show them yet). */
function NestedStepsNote({ nested }: { nested: DraftStep['nested'] }) {
  if (!nested) return null;
  return (
    <p className="field__hint">
      Holds {nestedStepCount(nested)} steps of its own, kept as they are when you save.
    </p>
  );
}

export function StepCard(props: StepCardProps) {
  const headingId = useId();
  const upRef = useRef<HTMLButtonElement>(null);
  const downRef = useRef<HTMLButtonElement>(null);
  const { step, index, count, stepType, focusRequest } = props;

  useEffect(() => {
    if (!focusRequest || focusRequest.key !== step.key) return;
    const wanted = focusRequest.control === 'up' ? upRef.current : downRef.current;
    const other = focusRequest.control === 'up' ? downRef.current : upRef.current;
    (wanted && !wanted.disabled ? wanted : other)?.focus();
  }, [focusRequest, step.key]);

  const label = stepTypeLabel(step.type);
  const position = `step ${index + 1}`;
  const price = stepType?.credit_price;
  return (
    <li className="wf-step">
      <div className="wf-step__card" role="group" aria-labelledby={headingId}>
        <div className="wf-step__header">
          <h3 id={headingId} className="wf-step__title">
            Step {index + 1} · {label}
          </h3>
          {price !== undefined && (
            <span className="wf-step__cost">
              {price === 0 ? 'Free' : `${creditsText(price)} per run`}
            </span>
          )}
        </div>
        {STEP_TYPE_TEXT[step.type] && (
          <p className="wf-step__description">{STEP_TYPE_TEXT[step.type]?.description}</p>
        )}
        <TextField
          label="Step name"
          hint="Later steps use its output as {{steps.<step name>.<path>}}."
          value={step.name}
          error={props.errors?.name}
          autoFocus={props.justAdded}
          maxLength={100}
          onChange={(event) => props.onChange({ ...step, name: event.target.value })}
        />
        {step.type === 'http_request' && <LiteralSecretNotice settings={step.settings} />}
        <NestedStepsNote nested={step.nested} />
        <TemplateVariablesContext.Provider value={props.variables}>
          {stepType ? (
            <StepSettings {...props} stepType={stepType} />
          ) : (
            <p>This platform no longer offers steps of this type: remove the step.</p>
          )}
        </TemplateVariablesContext.Provider>
        <StepPolicy {...props} />
        <div className="button-row wf-step__actions">
          {/* Native buttons: the focus comes back to them after the step moved. */}
          <button
            ref={upRef}
            type="button"
            className="button button--secondary"
            aria-label={`Move up ${position}`}
            disabled={index === 0}
            onClick={() => props.onMove(-1)}
          >
            Move up
          </button>
          <button
            ref={downRef}
            type="button"
            className="button button--secondary"
            aria-label={`Move down ${position}`}
            disabled={index === count - 1}
            onClick={() => props.onMove(1)}
          >
            Move down
          </button>
          <Button variant="danger" aria-label={`Remove ${position}`} onClick={props.onRemove}>
            Remove
          </Button>
        </div>
      </div>
    </li>
  );
}

function StepPolicy(props: StepCardProps) {
  const { step } = props;
  return (
    <StepPolicyPanel
      type={step.type}
      policy={step.policy}
      errors={props.errors?.policy ?? {}}
      workspaceId={props.workspaceId}
      workflowId={props.workflowId}
      onChange={(policy) => props.onChange({ ...step, policy })}
    />
  );
}

/** Flags credential headers written into the workflow, where every member reads them. */
function LiteralSecretNotice(props: { settings: Record<string, unknown> }) {
  const headers = literalSecretHeaders(props.settings);
  if (headers.length === 0) return null;
  return (
    <p className="wf-step__notice" role="note">
      {headers.length === 1 ? 'The header ' : 'The headers '}
      {headers.map((name, index) => (
        <span key={name}>
          {index > 0 && ', '}
          <code>{name}</code>
        </span>
      ))}{' '}
      {headers.length === 1 ? 'holds a secret' : 'hold secrets'} in the workflow itself, which every
      member can read. Save it under Credentials and write <code>{'{{credentials.NAME}}'}</code>{' '}
      instead.
    </p>
  );
}

/** The settings form of a step: chosen tools and tables get their own, the rest the schema's. */
function StepSettings(props: StepCardProps & { stepType: StepTypeInfo }) {
  const { step } = props;
  const settingsErrors = props.errors?.settings ?? {};
  const onSettings = (settings: Record<string, unknown>) => props.onChange({ ...step, settings });
  if (step.type === 'mcp_tool') {
    return (
      <McpToolSettings
        workspaceId={props.workspaceId}
        settings={step.settings}
        errors={settingsErrors}
        onChange={onSettings}
        onJsonValidityChange={props.onJsonValidityChange}
      />
    );
  }
  if (step.type === 'table_row') {
    return (
      <TableRowSettings
        workspaceId={props.workspaceId}
        settings={step.settings}
        errors={settingsErrors}
        onChange={onSettings}
      />
    );
  }
  return (
    <SchemaForm
      schema={props.stepType.settings_schema as JsonSchema}
      value={step.settings}
      errors={settingsErrors}
      onChange={onSettings}
      onJsonValidityChange={props.onJsonValidityChange}
      overrides={
        step.type === 'approval'
          ? {
              reviewerIds: (field) => <ReviewerPicker {...field} workspaceId={props.workspaceId} />,
            }
          : undefined
      }
    />
  );
}
