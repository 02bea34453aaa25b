import { Link, useLocation } from 'react-router';
import {
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  StatusMessage,
} from '../../../components';
import { useWorkspaceId } from '../../../lib/routing';
import { useWorkflows } from '../api/workflows-api';
import { creditsText, formatDateTime } from '../shared/labels';
import { workflowPaths, WorkflowStatusBadge } from '../shared/workflow-frame';
import '../workflows.css';
import { PermissionsPanel } from './permissions-panel';

/** The workspace's workflows, newest first, each with its status and what a run costs. */
export function WorkflowsPage() {
  const workspaceId = useWorkspaceId();
  const workflows = useWorkflows(workspaceId);
  const deleted = (useLocation().state as { deleted?: string } | null)?.deleted;
  const newLink = (
    <Link className="button button--primary" to={workflowPaths.create(workspaceId)}>
      New workflow
    </Link>
  );
  return (
    <>
      <PageHeader
        title="Workflows"
        description="A workflow runs its steps each time its webhook address is called, on its schedule, or when you Run it."
        actions={workflows.data && workflows.data.workflows.length > 0 ? newLink : undefined}
      />
      {deleted && <StatusMessage>Deleted {deleted}.</StatusMessage>}
      {workflows.isPending && <LoadingState label="Loading the workflows…" />}
      {workflows.isError && <ErrorMessage error={workflows.error} />}
      {workflows.data && workflows.data.workflows.length === 0 && (
        <EmptyState title="No workflows yet" action={newLink}>
          <p>
            Create one: give it steps, call its webhook address to capture a test event, Run it.
          </p>
        </EmptyState>
      )}
      {workflows.data && workflows.data.workflows.length > 0 && (
        <ul className="wf-list" aria-label="Workflows">
          {workflows.data.workflows.map((workflow) => (
            <li key={workflow.id} className="wf-list__item">
              <h2 className="wf-list__name">
                <Link to={workflowPaths.editor(workspaceId, workflow.id)}>{workflow.name}</Link>
              </h2>
              <p className="wf-list__meta">
                <WorkflowStatusBadge status={workflow.status} />
                <span>
                  {workflow.steps.length === 1 ? '1 step' : `${workflow.steps.length} steps`}
                </span>
                <span>
                  {workflow.credit_cost === 0
                    ? 'Free to run'
                    : `${creditsText(workflow.credit_cost)} per run`}
                </span>
                <span>Changed {formatDateTime(workflow.updated_at)}</span>
              </p>
              <p className="wf-list__links">
                <Link
                  to={workflowPaths.runs(workspaceId, workflow.id)}
                  aria-label={`Runs of ${workflow.name}`}
                >
                  Runs
                </Link>
                <Link
                  to={workflowPaths.schedule(workspaceId, workflow.id)}
                  aria-label={`Schedule of ${workflow.name}`}
                >
                  Schedule
                </Link>
              </p>
            </li>
          ))}
        </ul>
      )}
      <PermissionsPanel workspaceId={workspaceId} />
    </>
  );
}
