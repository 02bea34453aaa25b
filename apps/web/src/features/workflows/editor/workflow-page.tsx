import { useCallback, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import {
  Button,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  StatusMessage,
} from '../../../components';
import { useWorkspaceId } from '../../../lib/routing';
import {
  useDeleteWorkflow,
  useDuplicateWorkflow,
  useLastRun,
  useRunWorkflow,
  useSetLive,
  useStepTypes,
  useTestEvents,
  useUpdateWorkflow,
  type Workflow,
  type WorkflowWithAddress,
} from '../api/workflows-api';
import { runCostSentence } from '../shared/labels';
import {
  WorkflowFrame,
  workflowPaths,
  WorkflowStatusBadge,
  WorkflowTabs,
} from '../shared/workflow-frame';
import '../workflows.css';
import { RunsAsPanel } from './runs-as-panel';
import { RunOutcome, TestEventsPanel, type RunRequest } from './test-events-panel';
import { WebhookPanel } from './webhook-panel';
import { draftOf } from './workflow-draft';
import { WorkflowForm } from './workflow-form';

/** What the page that sent the person here wants said (a new workflow, a copy). */
interface ArrivalState {
  created?: boolean;
  duplicatedFrom?: string;
}

/** A workflow: its actions, webhook address, test events and the editor of its steps. */
export function WorkflowPage() {
  // Keyed: a copy opened from here starts with none of the original's messages.
  return (
    <WorkflowFrame>
      {(loaded) => <WorkflowEditor key={loaded.workflow.id} loaded={loaded} />}
    </WorkflowFrame>
  );
}

function WorkflowEditor(props: { loaded: WorkflowWithAddress }) {
  const { workflow } = props.loaded;
  const workspaceId = useWorkspaceId();
  const navigate = useNavigate();
  const arrival = (useLocation().state ?? {}) as ArrivalState;
  const setLive = useSetLive(workflow.id);
  const duplicate = useDuplicateWorkflow(workflow.id);
  const run = useRunWorkflow(workflow.id);
  const [runRequest, setRunRequest] = useState<RunRequest | null>(null);
  const [dirty, setDirty] = useState(false);

  const startRun = (testEventId: string | undefined) => {
    setRunRequest({ testEventId, status: 'pending' });
    run.mutate(testEventId, {
      onSuccess: ({ runId }) => setRunRequest({ testEventId, status: 'started', runId }),
      onError: (error) => setRunRequest({ testEventId, status: 'failed', error }),
    });
  };
  const copy = () =>
    duplicate.mutate(undefined, {
      onSuccess: (created) =>
        void navigate(workflowPaths.editor(workspaceId, created.workflow.id), {
          state: { duplicatedFrom: workflow.name } satisfies ArrivalState,
        }),
    });
  const isLive = workflow.status === 'live';
  const unpublished =
    isLive && workflow.live_version !== null && workflow.live_version !== workflow.version
      ? workflow.version
      : null;
  return (
    <>
      <PageHeader
        title={workflow.name}
        description={
          <>
            <WorkflowStatusBadge status={workflow.status} />{' '}
            {isLive
              ? 'Each call of the webhook address starts a run.'
              : 'Calls of the webhook address are kept as test events. Run it once, then set it live.'}{' '}
            {unpublished !== null &&
              `Calls run version ${workflow.live_version ?? ''}; Run runs version ${unpublished}, which is not published yet. `}
            {runCostSentence(workflow.credit_cost)}
          </>
        }
        actions={
          <WorkflowActions
            isLive={isLive}
            unpublished={unpublished}
            running={run.isPending && runRequest?.testEventId === undefined}
            onRun={() => startRun(undefined)}
            setLive={setLive}
            duplicating={duplicate.isPending}
            onDuplicate={copy}
          />
        }
      />
      <WorkflowTabs workflowId={workflow.id} />
      <WorkflowFeedback
        workflowId={workflow.id}
        arrival={arrival}
        dirty={dirty}
        setLive={setLive}
        duplicate={duplicate}
        runRequest={runRequest}
      />
      <RunsAsPanel workflow={workflow} workspaceId={workspaceId} />
      <WebhookPanel loaded={props.loaded} />
      <TestEventsPanel
        workflowId={workflow.id}
        runRequest={runRequest}
        onRun={(testEventId) => startRun(testEventId)}
      />
      <StepsEditor workflow={workflow} workspaceId={workspaceId} onDirtyChange={setDirty} />
      <DeleteWorkflow workflow={workflow} />
    </>
  );
}

/**
 * Run now, set live or back to draft, publish the newest version of a live workflow, duplicate.
 * Run runs the newest version; live traffic runs the published one (decision 163).
 */
function WorkflowActions(props: {
  isLive: boolean;
  /** The newest version, when live traffic runs an older one. */
  unpublished: number | null;
  running: boolean;
  onRun: () => void;
  setLive: ReturnType<typeof useSetLive>;
  duplicating: boolean;
  onDuplicate: () => void;
}) {
  return (
    <>
      <Button variant="primary" busy={props.running} onClick={props.onRun}>
        Run
      </Button>
      {props.unpublished !== null && (
        <Button busy={props.setLive.isPending} onClick={() => props.setLive.mutate(true)}>
          Publish version {props.unpublished}
        </Button>
      )}
      {props.isLive ? (
        <Button busy={props.setLive.isPending} onClick={() => props.setLive.mutate(false)}>
          Back to draft
        </Button>
      ) : (
        <Button busy={props.setLive.isPending} onClick={() => props.setLive.mutate(true)}>
          Set live
        </Button>
      )}
      <Button busy={props.duplicating} onClick={props.onDuplicate}>
        Duplicate
      </Button>
    </>
  );
}

/** What the last action came to, and what the page that sent the person here wants said. */
function WorkflowFeedback({
  workflowId,
  arrival,
  dirty,
  setLive,
  duplicate,
  runRequest,
}: {
  workflowId: string;
  arrival: ArrivalState;
  dirty: boolean;
  setLive: ReturnType<typeof useSetLive>;
  duplicate: ReturnType<typeof useDuplicateWorkflow>;
  runRequest: RunRequest | null;
}) {
  return (
    <div className="wf-feedback">
      {arrival.created && (
        <StatusMessage>
          Workflow created in draft. Call its webhook address to capture a test event.
        </StatusMessage>
      )}
      {arrival.duplicatedFrom && (
        <StatusMessage>
          This is a copy of {arrival.duplicatedFrom}, in draft, with its own webhook address.
        </StatusMessage>
      )}
      {dirty && (
        <p className="wf-unsaved">
          You have unsaved changes: Run and Set live use the saved workflow.
        </p>
      )}
      {setLive.isError && (
        <ErrorMessage
          error={setLive.error}
          title={setLive.variables ? 'Could not set it live' : 'Could not put it back to draft'}
        />
      )}
      {setLive.isSuccess && (
        <StatusMessage>
          {setLive.data.workflow.status === 'live'
            ? 'The workflow is live.'
            : 'The workflow is back in draft.'}
        </StatusMessage>
      )}
      {duplicate.isError && <ErrorMessage error={duplicate.error} title="Could not duplicate" />}
      {runRequest?.testEventId === undefined && (
        <RunOutcome request={runRequest} workflowId={workflowId} />
      )}
    </div>
  );
}

/** The form of the workflow's steps, once the step types are known, with its test events' fields. */
function StepsEditor({
  workflow,
  workspaceId,
  onDirtyChange,
}: {
  workflow: Workflow;
  workspaceId: string;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const stepTypes = useStepTypes();
  const update = useUpdateWorkflow(workflow.id);
  const testEvents = useTestEvents(workflow.id);
  const lastRun = useLastRun(workflow.id);
  const save = useCallback(
    async (fields: Parameters<typeof update.mutateAsync>[0]) =>
      (await update.mutateAsync(fields)).workflow,
    [update],
  );
  return (
    <>
      <h2 className="wf-section-title">Edit the workflow</h2>
      {stepTypes.isPending && <LoadingState label="Loading the step types…" />}
      {stepTypes.isError && <ErrorMessage error={stepTypes.error} />}
      {stepTypes.data && (
        <WorkflowForm
          key={workflow.id}
          initial={draftOf(workflow)}
          stepTypes={stepTypes.data.step_types}
          workspaceId={workspaceId}
          workflowId={workflow.id}
          submitLabel="Save workflow"
          savedMessage="Saved."
          save={save}
          onDirtyChange={onDirtyChange}
          variableSources={{ testEvents: testEvents.data?.events ?? [], lastRun: lastRun.data }}
        />
      )}
    </>
  );
}

function DeleteWorkflow(props: { workflow: Workflow }) {
  const workspaceId = useWorkspaceId();
  const navigate = useNavigate();
  const remove = useDeleteWorkflow(props.workflow);
  const [confirming, setConfirming] = useState(false);
  return (
    <Panel
      title="Delete"
      description="Its webhook address stops working at once; its runs stay readable."
    >
      {remove.isError && <ErrorMessage error={remove.error} />}
      {confirming ? (
        <div className="button-row" role="group" aria-label="Confirm deletion">
          <Button
            variant="danger"
            busy={remove.isPending}
            onClick={() =>
              remove.mutate(undefined, {
                onSuccess: () =>
                  void navigate(workflowPaths.list(workspaceId), {
                    state: { deleted: props.workflow.name },
                  }),
              })
            }
          >
            Delete {props.workflow.name} for good
          </Button>
          <Button onClick={() => setConfirming(false)}>Keep it</Button>
        </div>
      ) : (
        <Button variant="danger" onClick={() => setConfirming(true)}>
          Delete workflow
        </Button>
      )}
    </Panel>
  );
}
