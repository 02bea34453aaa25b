import type { ReactNode } from 'react';
import { Link, NavLink, useParams } from 'react-router';
import { EmptyState, ErrorMessage, LoadingState } from '../../../components';
import { ApiError } from '../../../lib/api';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useWorkflow, type WorkflowWithAddress } from '../api/workflows-api';
import { RUN_STATUS_LABELS } from './labels';
import type { RunStatus } from '../api/workflows-api';

export function useWorkflowId(): string {
  const { workflowId } = useParams();
  if (!workflowId) throw new Error('useWorkflowId is used outside a workflow route');
  return workflowId;
}

/** Addresses of the feature's pages inside the workspace. */
export const workflowPaths = {
  list: (workspaceId: string) => appPaths.workspace(workspaceId, 'workflows'),
  create: (workspaceId: string) => appPaths.workspace(workspaceId, 'workflows/new'),
  editor: (workspaceId: string, workflowId: string) =>
    appPaths.workspace(workspaceId, `workflows/${encodeURIComponent(workflowId)}`),
  runs: (workspaceId: string, workflowId: string) =>
    appPaths.workspace(workspaceId, `workflows/${encodeURIComponent(workflowId)}/runs`),
  run: (workspaceId: string, workflowId: string, runId: string) =>
    appPaths.workspace(
      workspaceId,
      `workflows/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`,
    ),
  schedule: (workspaceId: string, workflowId: string) =>
    appPaths.workspace(workspaceId, `workflows/${encodeURIComponent(workflowId)}/schedule`),
  history: (workspaceId: string, workflowId: string) =>
    appPaths.workspace(workspaceId, `workflows/${encodeURIComponent(workflowId)}/history`),
  approvals: (workspaceId: string) => appPaths.workspace(workspaceId, 'approvals'),
};

/**
 * The pages of one workflow: loads it, says so while loading or when it is gone, and gives
 * the page the workflow with the links between its editor, runs and schedule.
 */
export function WorkflowFrame(props: { children: (loaded: WorkflowWithAddress) => ReactNode }) {
  const workspaceId = useWorkspaceId();
  const workflowId = useWorkflowId();
  const workflow = useWorkflow(workflowId);
  if (workflow.isPending) return <LoadingState label="Loading the workflow…" />;
  if (workflow.isError) {
    if (workflow.error instanceof ApiError && workflow.error.status === 404) {
      return (
        <EmptyState
          title="Workflow not found"
          action={<Link to={workflowPaths.list(workspaceId)}>Open the workflows</Link>}
        >
          <p>It was deleted, or it belongs to a workspace you are not in.</p>
        </EmptyState>
      );
    }
    return <ErrorMessage error={workflow.error} />;
  }
  return (
    <>
      <p className="wf-breadcrumb">
        <Link to={workflowPaths.list(workspaceId)}>All workflows</Link>
      </p>
      {props.children(workflow.data)}
    </>
  );
}

/** The links between a workflow's editor, runs, schedule and history. */
export function WorkflowTabs(props: { workflowId: string }) {
  const workspaceId = useWorkspaceId();
  const links = [
    { label: 'Editor', to: workflowPaths.editor(workspaceId, props.workflowId), end: true },
    { label: 'Runs', to: workflowPaths.runs(workspaceId, props.workflowId), end: false },
    { label: 'Schedule', to: workflowPaths.schedule(workspaceId, props.workflowId), end: true },
    { label: 'History', to: workflowPaths.history(workspaceId, props.workflowId), end: true },
  ];
  return (
    <nav className="wf-tabs" aria-label="Workflow">
      <ul>
        {links.map((link) => (
          <li key={link.label}>
            <NavLink to={link.to} end={link.end}>
              {link.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A short status word with its colour; the word alone carries the meaning. */
export function StatusBadge(props: { tone: BadgeTone; children: ReactNode }) {
  return <span className={`wf-badge wf-badge--${props.tone}`}>{props.children}</span>;
}

export type BadgeTone = 'neutral' | 'active' | 'success' | 'danger' | 'waiting';

const RUN_TONES: Record<RunStatus, BadgeTone> = {
  queued: 'neutral',
  running: 'active',
  waiting_approval: 'waiting',
  succeeded: 'success',
  failed: 'danger',
  cancelled: 'neutral',
};

export function RunStatusBadge(props: { status: RunStatus }) {
  return (
    <StatusBadge tone={RUN_TONES[props.status]}>{RUN_STATUS_LABELS[props.status]}</StatusBadge>
  );
}

export function WorkflowStatusBadge(props: { status: 'draft' | 'live' }) {
  return props.status === 'live' ? (
    <StatusBadge tone="success">Live</StatusBadge>
  ) : (
    <StatusBadge tone="neutral">Draft</StatusBadge>
  );
}

/** JSON shown as it is, captioned, in a block that keyboard users can scroll too. */
export function JsonBlock(props: { value: unknown; label: string }) {
  return (
    <figure className="wf-json">
      <figcaption className="wf-json__caption">{props.label}</figcaption>
      <pre className="wf-json__code" tabIndex={0}>
        {props.value === undefined ? '—' : JSON.stringify(props.value, null, 2)}
      </pre>
    </figure>
  );
}
