import { useId } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { z } from 'zod';
import { isFinalRunStatus, type RunDetailsResponse } from '@wap/contracts';
import {
  Button,
  ConfirmButton,
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
} from '../../../components';
import { ApiError } from '../../../lib/api';
import { useWorkspaceId } from '../../../lib/routing';
import {
  useCancelRun,
  useRetryRun,
  useRun,
  type Run,
  type StepRun,
  type Workflow,
} from '../api/workflows-api';
import {
  creditsText,
  formatDateTime,
  formatDuration,
  runDuration,
  STEP_STATUS_LABELS,
  stepTypeLabel,
  triggerLabel,
} from '../shared/labels';
import {
  JsonBlock,
  RunStatusBadge,
  StatusBadge,
  WorkflowFrame,
  workflowPaths,
  WorkflowTabs,
  type BadgeTone,
} from '../shared/workflow-frame';
import { branchLabel, calledRunOf, iterationsOf, nestingOf } from './control-results';
import '../workflows.css';

/** One run: its status, credits, trigger body, and each step's input, output, error and duration. */
export function RunPage() {
  return <WorkflowFrame>{({ workflow }) => <RunDetails workflow={workflow} />}</WorkflowFrame>;
}

function RunDetails(props: { workflow: Workflow }) {
  const { workflow } = props;
  const { runId = '' } = useParams();
  const workspaceId = useWorkspaceId();
  const run = useRun(runId);
  const runsLink = (
    <Link to={workflowPaths.runs(workspaceId, workflow.id)}>All runs of {workflow.name}</Link>
  );
  if (run.isPending) return <LoadingState label="Loading the run…" />;
  if (run.isError) {
    if (run.error instanceof ApiError && run.error.status === 404) {
      return (
        <EmptyState title="Run not found" action={runsLink}>
          <p>It may be older than the run history keeps.</p>
        </EmptyState>
      );
    }
    return <ErrorMessage error={run.error} />;
  }
  const details = run.data.run;
  return (
    <>
      <PageHeader
        title={`Run of ${workflow.name}`}
        description={
          <>
            <RunStatusBadge status={details.status} /> {triggerLabel(details.trigger)},{' '}
            {formatDateTime(details.created_at)}
          </>
        }
      />
      <WorkflowTabs workflowId={workflow.id} />
      <p className="wf-breadcrumb">{runsLink}</p>
      <RunSummary run={details} />
      <RunRetries retries={run.data.retries} workflowId={workflow.id} />
      {/* An iteration is retried with its loop's run. */}
      {isFinalRunStatus(details.status) && details.trigger.type !== 'for_each' && (
        <RetryRun run={details} workflowId={workflow.id} />
      )}
      {details.status === 'waiting_approval' && (
        <p className="notice wf-notice">
          This run waits for a reviewer.{' '}
          <Link to={workflowPaths.approvals(workspaceId)}>Open the approvals inbox</Link> to approve
          or reject it.
        </p>
      )}
      {!isFinalRunStatus(details.status) && (
        <>
          <p className="field__hint" role="status">
            This page follows the run until it ends.
          </p>
          <CancelRun run={details} />
        </>
      )}
      <Panel title="Input" description="The trigger's JSON body: the Custom Webhook values.">
        <JsonBlock label="Input body" value={details.input} />
      </Panel>
      <section className="wf-run-steps" aria-labelledby="run-steps-title">
        <h2 id="run-steps-title">Steps</h2>
        {details.steps.length === 0 ? (
          <p>This workflow had no steps.</p>
        ) : (
          <ol className="wf-run-steps__list">
            {details.steps.map((step) => (
              <StepResult
                key={step.index}
                step={step}
                steps={details.steps}
                workflowId={details.workflow_id}
              />
            ))}
          </ol>
        )}
      </section>
    </>
  );
}

/** The runs that retried this one, each linked, oldest first. */
function RunRetries(props: {
  retries: z.infer<typeof RunDetailsResponse>['retries'];
  workflowId: string;
}) {
  const workspaceId = useWorkspaceId();
  if (props.retries.length === 0) return null;
  return (
    <section className="wf-run-retries" aria-labelledby="run-retries-title">
      <h2 id="run-retries-title">Retried as</h2>
      <ul>
        {props.retries.map((retry) => (
          <li key={retry.id}>
            <Link to={workflowPaths.run(workspaceId, props.workflowId, retry.id)}>
              Attempt {retry.attempt}
            </Link>{' '}
            <RunStatusBadge status={retry.status} /> {formatDateTime(retry.created_at)}
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * Runs an ended run again as a new run, linked to this one: from its failed step (the steps
 * that succeeded keep their outputs and are not charged again) or from the start.
 */
function RetryRun(props: { run: Run; workflowId: string }) {
  const retry = useRetryRun(props.run.id);
  const navigate = useNavigate();
  const workspaceId = useWorkspaceId();
  const hasFailedStep = props.run.steps.some((step) => step.status !== 'succeeded');
  const start = (from: 'failed_step' | 'start') =>
    retry.mutate(from, {
      onSuccess: ({ runId }) => {
        void navigate(workflowPaths.run(workspaceId, props.workflowId, runId));
      },
    });
  return (
    <div className="button-row wf-run-cancel">
      {hasFailedStep && (
        <Button busy={retry.isPending} onClick={() => start('failed_step')}>
          Retry from the failed step
        </Button>
      )}
      <Button variant="secondary" busy={retry.isPending} onClick={() => start('start')}>
        Retry from the start
      </Button>
      {retry.isError && <ErrorMessage error={retry.error} />}
    </div>
  );
}

/** Stops the run: its running step is stopped and no later step runs. */
function CancelRun(props: { run: Run }) {
  const cancel = useCancelRun(props.run.id);
  return (
    <div className="wf-run-cancel">
      {props.run.cancel_requested_at ? (
        <p className="field__hint">Cancelling: the running step is being stopped.</p>
      ) : (
        <ConfirmButton
          label="Cancel run"
          action="Cancel this run"
          busy={cancel.isPending}
          onConfirm={() => cancel.mutate()}
        />
      )}
      {cancel.isError && <ErrorMessage error={cancel.error} />}
    </div>
  );
}

function RunSummary(props: { run: Run }) {
  const { run } = props;
  const workspaceId = useWorkspaceId();
  return (
    <Panel title="Summary">
      {run.error && (
        <div className="notice notice--error">
          <p>{run.error}</p>
        </div>
      )}
      <dl className="wf-facts">
        <div>
          <dt>Status</dt>
          <dd>
            <RunStatusBadge status={run.status} />
          </dd>
        </div>
        <div>
          <dt>Credits charged</dt>
          <dd>{creditsText(run.credits_charged)}</dd>
        </div>
        <div>
          <dt>Trigger</dt>
          <dd>
            {triggerLabel(run.trigger)}
            {run.trigger.parent_run_id && <ParentRunLink runId={run.trigger.parent_run_id} />}
          </dd>
        </div>
        {run.retry_of && (
          <div>
            <dt>Attempt</dt>
            <dd>
              {run.attempt}, a retry of{' '}
              <Link to={workflowPaths.run(workspaceId, run.workflow_id, run.retry_of)}>
                the run before
              </Link>
            </dd>
          </div>
        )}
        <div>
          <dt>Created</dt>
          <dd>{formatDateTime(run.created_at)}</dd>
        </div>
        {run.not_before && !run.started_at && (
          <div>
            <dt>Waits until</dt>
            <dd>{formatDateTime(run.not_before)}</dd>
          </div>
        )}
        <div>
          <dt>Started</dt>
          <dd>{formatDateTime(run.started_at)}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{formatDateTime(run.finished_at)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{formatDuration(runDuration(run))}</dd>
        </div>
      </dl>
    </Panel>
  );
}

const STEP_TONES: Record<StepRun['status'], BadgeTone> = {
  pending: 'neutral',
  running: 'active',
  waiting: 'waiting',
  succeeded: 'success',
  failed: 'danger',
  skipped: 'neutral',
};

/** Where a step of a branch is, and what a loop or a call started: the path the run took. */
function StepPlace(props: { step: StepRun; steps: readonly StepRun[]; workflowId: string }) {
  const { step, steps } = props;
  const workspaceId = useWorkspaceId();
  const parent = step.parent_index === null ? undefined : steps[step.parent_index];
  const iterations = step.type === 'for_each' ? iterationsOf(step.output) : [];
  const called = step.type === 'call_workflow' ? calledRunOf(step.output) : undefined;
  const shown = iterations.slice(0, ITERATIONS_SHOWN);
  return (
    <>
      {parent && step.branch && (
        <p className="wf-list__meta">
          In the {branchLabel(step.branch)} branch of {parent.index + 1}. {parent.name}
        </p>
      )}
      {shown.length > 0 && (
        <nav aria-label={`Iterations of ${step.name}`} className="wf-run-step__iterations">
          {shown.map((iteration) => (
            <Link
              key={iteration.runId}
              to={workflowPaths.run(workspaceId, props.workflowId, iteration.runId)}
            >
              Item {iteration.index + 1}
            </Link>
          ))}
          {iterations.length > shown.length && (
            <span>and {iterations.length - shown.length} more</span>
          )}
        </nav>
      )}
      {called && <CalledRunLink runId={called} />}
    </>
  );
}

/** The links a loop's step shows before "and N more". */
const ITERATIONS_SHOWN = 50;

/** The run whose loop or call started this one (it may be another workflow's). */
function ParentRunLink(props: { runId: string }) {
  const workspaceId = useWorkspaceId();
  const { data } = useRun(props.runId);
  if (!data) return null;
  return (
    <>
      {', of '}
      <Link to={workflowPaths.run(workspaceId, data.run.workflow_id, props.runId)}>
        the run that started it
      </Link>
    </>
  );
}

/** A called run belongs to the called workflow: its page is reached through the run itself. */
function CalledRunLink(props: { runId: string }) {
  const workspaceId = useWorkspaceId();
  const { data } = useRun(props.runId);
  if (!data) return null;
  return (
    <p className="wf-list__meta">
      Ran{' '}
      <Link to={workflowPaths.run(workspaceId, data.run.workflow_id, props.runId)}>
        the called workflow's run
      </Link>
    </p>
  );
}

function StepResult(props: { step: StepRun; steps: readonly StepRun[]; workflowId: string }) {
  const headingId = useId();
  const { step } = props;
  const depth = nestingOf(props.steps, step.index);
  return (
    <li
      className={depth > 0 ? `wf-run-step wf-run-step--depth-${Math.min(depth, 4)}` : 'wf-run-step'}
    >
      <section className="wf-run-step__card" aria-labelledby={headingId}>
        <div className="wf-step__header">
          <h3 id={headingId} className="wf-step__title">
            {step.index + 1}. {step.name}
          </h3>
          <StatusBadge tone={STEP_TONES[step.status]}>
            {STEP_STATUS_LABELS[step.status]}
          </StatusBadge>
        </div>
        <p className="wf-list__meta">
          <span>{stepTypeLabel(step.type)}</span>
          <span>Duration {formatDuration(step.duration_ms)}</span>
          <span>{creditsText(step.credits_charged)}</span>
          {step.attempts.length > 1 && <span>{step.attempts.length} attempts</span>}
        </p>
        <StepPlace step={step} steps={props.steps} workflowId={props.workflowId} />
        {step.resumed && (
          <p className="notice wf-notice" role="note">
            Resumed after a restart: the platform stopped during this step and made it again, with
            the same idempotency key <code>{step.idempotency_key}</code>.
          </p>
        )}
        {step.next_attempt_at && (
          <p className="field__hint" role="status">
            Next attempt at {formatDateTime(step.next_attempt_at)}.
          </p>
        )}
        {step.error && (
          <div className="notice notice--error">
            <p className="notice__title">Error</p>
            <p>{step.error}</p>
          </div>
        )}
        <div className="wf-run-step__io">
          <JsonBlock label="Input" value={step.input} />
          <JsonBlock label="Output" value={step.output} />
        </div>
        {step.attempts.length > 1 || step.attempts.some((attempt) => attempt.resumed) ? (
          <StepAttempts attempts={step.attempts} />
        ) : null}
      </section>
    </li>
  );
}

/** Every attempt of a retried or resumed step: when, how long, and how it ended. */
function StepAttempts(props: { attempts: StepRun['attempts'] }) {
  return (
    <table className="wf-run-step__attempts">
      <caption>Attempts</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Started</th>
          <th scope="col">Duration</th>
          <th scope="col">Outcome</th>
        </tr>
      </thead>
      <tbody>
        {props.attempts.map((attempt) => (
          <tr key={attempt.number}>
            <td>{attempt.number}</td>
            <td>{formatDateTime(attempt.started_at)}</td>
            <td>{formatDuration(attempt.duration_ms)}</td>
            <td>
              {attempt.error ?? 'Succeeded'}
              {attempt.resumed && ' (resumed after a restart)'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
