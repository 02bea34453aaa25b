import { useId } from 'react';
import { RETRYABLE_FAILURES } from '@wap/contracts';
import { SelectField, Switch, TextField } from '../../../components';
import { useWorkflows } from '../api/workflows-api';
import {
  FAILURE_CHOICES,
  FAILURE_LABELS,
  takesFailureRoute,
  takesRetries,
  type FailureChoice,
  type PolicyErrors,
  type StepPolicyDraft,
} from './step-policy-draft';

/**
 * A step's retries, timeout and what its failure does, folded under the settings: most steps
 * keep the defaults. A step that waits (a delay, an approval) has only the failure route.
 */
export function StepPolicyPanel(props: {
  type: string;
  policy: StepPolicyDraft;
  errors: PolicyErrors;
  workspaceId: string;
  /** The workflow being edited: it cannot be its own failure workflow. */
  workflowId: string | undefined;
  onChange: (policy: StepPolicyDraft) => void;
}) {
  const { policy, errors } = props;
  const change = (fields: Partial<StepPolicyDraft>) => props.onChange({ ...policy, ...fields });
  const hasErrors = Object.values(errors).some((message) => message !== undefined);
  const callsOut = takesRetries(props.type);
  if (!callsOut && !takesFailureRoute(props.type)) return null;
  return (
    <details className="wf-step__policy" open={hasErrors || undefined}>
      <summary>{callsOut ? 'Retries, timeout and failure' : 'When it fails'}</summary>
      {callsOut && (
        <>
          <RetryFields policy={policy} errors={errors} change={change} />
          <TextField
            label="Timeout per attempt (seconds)"
            hint="Empty: the platform's limit for this kind of step."
            inputMode="decimal"
            value={policy.timeoutSeconds}
            error={errors.timeoutSeconds}
            onChange={(event) => change({ timeoutSeconds: event.target.value })}
          />
          {props.type === 'http_request' && (
            <p className="field__hint">
              Every request carries an <code>Idempotency-Key</code> header made of the run, the step
              and the iteration: the same on each retry and after a restart of the platform, so the
              receiving service can recognise a repeat. A key the step sets itself is kept.
            </p>
          )}
        </>
      )}
      <FailureRoute {...props} change={change} />
    </details>
  );
}

function RetryFields(props: {
  policy: StepPolicyDraft;
  errors: PolicyErrors;
  change: (fields: Partial<StepPolicyDraft>) => void;
}) {
  const { policy, errors, change } = props;
  return (
    <>
      <Switch
        label="Retry when it fails"
        description="Each wait is kept by the platform: a restart neither skips nor repeats an attempt."
        checked={policy.retryEnabled}
        onChange={(retryEnabled) => change({ retryEnabled })}
      />
      {policy.retryEnabled && (
        <div className="wf-step__retry">
          <TextField
            label="Attempts in all"
            inputMode="numeric"
            value={policy.attempts}
            error={errors.attempts}
            onChange={(event) => change({ attempts: event.target.value })}
          />
          <SelectField
            label="Wait between attempts"
            value={policy.backoff}
            options={[
              { value: 'exponential', label: 'Doubling each time' },
              { value: 'fixed', label: 'The same each time' },
            ]}
            onChange={(event) =>
              change({ backoff: event.target.value === 'fixed' ? 'fixed' : 'exponential' })
            }
          />
          <TextField
            label="First wait (seconds)"
            inputMode="decimal"
            value={policy.delaySeconds}
            error={errors.delaySeconds}
            onChange={(event) => change({ delaySeconds: event.target.value })}
          />
          {policy.backoff === 'exponential' && (
            <TextField
              label="Longest wait (seconds)"
              hint="Empty: up to a day."
              inputMode="decimal"
              value={policy.maxDelaySeconds}
              error={errors.maxDelaySeconds}
              onChange={(event) => change({ maxDelaySeconds: event.target.value })}
            />
          )}
          <Switch
            label="Spread the waits"
            description="Each wait is drawn between half of it and all of it, so that many runs do not retry at once."
            checked={policy.jitter}
            onChange={(jitter) => change({ jitter })}
          />
          <RetriedFailures {...props} />
        </div>
      )}
    </>
  );
}

/** Which failures a retry answers. */
function RetriedFailures(props: {
  policy: StepPolicyDraft;
  errors: PolicyErrors;
  change: (fields: Partial<StepPolicyDraft>) => void;
}) {
  const { policy, errors, change } = props;
  const failuresId = useId();
  return (
    <fieldset className="schema-form__group" aria-describedby={errors.on ? failuresId : undefined}>
      <legend className="field__label">Retry when</legend>
      {errors.on && (
        <p className="field__error" id={failuresId}>
          {errors.on}
        </p>
      )}
      {RETRYABLE_FAILURES.map((failure) => (
        <label key={failure} className="schema-form__choice">
          <input
            type="checkbox"
            checked={policy.on.includes(failure)}
            onChange={(event) =>
              change({
                on: event.target.checked
                  ? [...policy.on, failure]
                  : policy.on.filter((candidate) => candidate !== failure),
              })
            }
          />
          {FAILURE_LABELS[failure]}
        </label>
      ))}
    </fieldset>
  );
}

function FailureRoute(props: {
  policy: StepPolicyDraft;
  errors: PolicyErrors;
  workspaceId: string;
  workflowId: string | undefined;
  change: (fields: Partial<StepPolicyDraft>) => void;
}) {
  const { policy, errors, change } = props;
  return (
    <>
      <SelectField
        label="If it still fails"
        value={policy.onFailure}
        options={FAILURE_CHOICES}
        error={errors.onFailure}
        onChange={(event) => change({ onFailure: event.target.value as FailureChoice })}
      />
      {policy.onFailure === 'run_workflow' && <FailureWorkflowPicker {...props} />}
    </>
  );
}

/** The workflow a failure starts: the workspace's others, read only once the choice is made. */
function FailureWorkflowPicker(props: {
  policy: StepPolicyDraft;
  errors: PolicyErrors;
  workspaceId: string;
  workflowId: string | undefined;
  change: (fields: Partial<StepPolicyDraft>) => void;
}) {
  const workflows = useWorkflows(props.workspaceId);
  const others = (workflows.data?.workflows ?? []).filter(
    (workflow) => workflow.id !== props.workflowId,
  );
  return (
    <>
      <SelectField
        label="Workflow to start"
        value={props.policy.failureWorkflowId}
        options={[
          { value: '', label: workflows.isPending ? 'Loading workflows…' : 'Choose a workflow' },
          ...others.map((workflow) => ({ value: workflow.id, label: workflow.name })),
        ]}
        error={props.errors.failureWorkflowId}
        onChange={(event) => props.change({ failureWorkflowId: event.target.value })}
      />
      <p className="field__hint">
        It reads the failure as <code>{'{{Custom Webhook.error}}'}</code> and the failed run as{' '}
        <code>{'{{Custom Webhook.run.id}}'}</code>.
      </p>
    </>
  );
}
