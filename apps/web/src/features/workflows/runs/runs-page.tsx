import { Link, useSearchParams } from 'react-router';
import { Button, EmptyState, ErrorMessage, LoadingState, PageHeader } from '../../../components';
import { useWorkspaceId } from '../../../lib/routing';
import { useRuns, type RunFilter, type Workflow } from '../api/workflows-api';
import {
  creditsText,
  formatShortDateTime,
  formatDuration,
  runDuration,
  triggerLabel,
} from '../shared/labels';
import {
  RunStatusBadge,
  WorkflowFrame,
  workflowPaths,
  WorkflowTabs,
} from '../shared/workflow-frame';
import '../workflows.css';
import { BulkRunActions, RunBatchesPanel } from './run-batches-panel';
import { filterOfSearch, RunCountsLine, RunsFilterForm, searchOfFilter } from './runs-filter';

/** A workflow's runs, newest first, a page at a time, by status, trigger, time and event. */
export function RunsPage() {
  return (
    <WorkflowFrame>
      {({ workflow }) => <RunsList key={workflow.id} workflow={workflow} />}
    </WorkflowFrame>
  );
}

function RunsList(props: { workflow: Workflow }) {
  const { workflow } = props;
  // The filter lives in the address, so a reload or a shared link keeps it.
  const [searchParams, setSearchParams] = useSearchParams();
  const filter = filterOfSearch(searchParams);
  const runs = useRuns(workflow.id, filter);
  const loaded = runs.data?.pages.flatMap((page) => page.runs) ?? [];
  const counts = runs.data?.pages[0]?.counts;
  const filtered = Object.keys(filter).length > 0;

  const choose = (next: RunFilter) => setSearchParams(searchOfFilter(next), { replace: true });
  return (
    <>
      <PageHeader
        title={`Runs of ${workflow.name}`}
        description="Newest first. Open a run for each step's input, output, error and duration."
      />
      <WorkflowTabs workflowId={workflow.id} />
      <RunsFilterForm filter={filter} onChange={choose} />
      {counts && (
        <RunCountsLine counts={counts} onStatus={(status) => choose({ ...filter, status })} />
      )}
      {counts && <BulkRunActions workflowId={workflow.id} filter={filter} counts={counts} />}
      <RunBatchesPanel workflowId={workflow.id} />
      {runs.isPending && <LoadingState label="Loading the runs…" />}
      {runs.isError && <ErrorMessage error={runs.error} />}
      {runs.data && loaded.length === 0 && (
        <EmptyState title={filtered ? 'No runs match these filters' : 'No runs yet'}>
          <p>
            {filtered
              ? 'Change a filter, or clear them.'
              : 'Run the workflow from its editor, or call its webhook address once it is live.'}
          </p>
        </EmptyState>
      )}
      {loaded.length > 0 && (
        <RunsTable workflowId={workflow.id} runs={loaded} filtered={filtered} />
      )}
      {runs.hasNextPage && (
        <p className="wf-load-more">
          <Button busy={runs.isFetchingNextPage} onClick={() => void runs.fetchNextPage()}>
            Load more
          </Button>
        </p>
      )}
      {runs.data && loaded.length > 0 && (
        <p className="wf-count" role="status">
          Showing {loaded.length === 1 ? '1 run' : `${loaded.length} runs`}
          {runs.hasNextPage ? '; more are older.' : '.'}
        </p>
      )}
    </>
  );
}

/** A run as the list reads it. */
type ListedRun = NonNullable<ReturnType<typeof useRuns>['data']>['pages'][number]['runs'][number];

function RunsTable(props: { workflowId: string; runs: readonly ListedRun[]; filtered: boolean }) {
  const { workflowId, runs, filtered } = props;
  const workspaceId = useWorkspaceId();
  return (
    // Focusable, so that the table scrolls sideways with the keyboard on a phone.
    <div className="wf-table-wrap" tabIndex={0} role="region" aria-label="Runs">
      <table className="data-table wf-runs">
        <caption className="visually-hidden">
          Runs{filtered ? ' matching the filters' : ''}, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Status</th>
            <th scope="col">Trigger</th>
            <th scope="col">Credits</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id}>
              <td>
                <Link to={workflowPaths.run(workspaceId, workflowId, run.id)}>
                  {formatShortDateTime(run.started_at ?? run.created_at)}
                </Link>
              </td>
              <td>
                <RunStatusBadge status={run.status} />
              </td>
              <td>{triggerLabel(run.trigger)}</td>
              <td>{creditsText(run.credits_charged)}</td>
              <td>{formatDuration(runDuration(run))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
