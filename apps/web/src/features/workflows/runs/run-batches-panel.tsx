import { useState } from 'react';
import {
  isFinalRunStatus,
  MAX_RUN_BATCH,
  RUN_BATCH_LIST_SIZE,
  RUN_COUNT_CAP,
  RunStatus,
  type RunBatchItemStatus,
  type RunCounts,
  type RunFilter,
} from '@wap/contracts';
import {
  Button,
  ConfirmButton,
  ErrorMessage,
  Panel,
  SelectField,
  StatusMessage,
} from '../../../components';
import {
  useRunBatches,
  useStartRunBatch,
  useStopRunBatch,
  type BulkAction,
  type RunBatch,
} from '../api/run-batches-api';
import { formatShortDateTime } from '../shared/labels';

const REPLAY_FROM_OPTIONS = [
  { value: 'failed_step', label: 'Each run’s failed step' },
  { value: 'start', label: 'The start' },
];

/** How many of the runs the filter keeps have ended, and how many have not. */
export function matchingRuns(
  filter: RunFilter,
  counts: RunCounts,
): { ended: number; open: number } {
  const statuses = filter.status ? [filter.status] : RunStatus.options;
  let ended = 0;
  let open = 0;
  for (const status of statuses) {
    if (isFinalRunStatus(status)) ended += counts.by_status[status];
    else open += counts.by_status[status];
  }
  return { ended, open };
}

/** "12 runs", or "up to 1,000 of 4,500 runs" when more match than one batch takes. */
export function batchSizeText(count: number): string {
  const runs = count === 1 ? 'run' : 'runs';
  if (count <= MAX_RUN_BATCH) return `${count.toLocaleString()} ${runs}`;
  const matched =
    count >= RUN_COUNT_CAP ? `${RUN_COUNT_CAP.toLocaleString()}+` : count.toLocaleString();
  return `up to ${MAX_RUN_BATCH.toLocaleString()} of ${matched} ${runs}`;
}

/**
 * Replays or cancels every run the list's filters keep, as one batch the runner works through
 * at a pace; its progress is shown below, where it can be stopped.
 */
export function BulkRunActions(props: {
  workflowId: string;
  filter: RunFilter;
  counts: RunCounts;
}) {
  const { workflowId, filter } = props;
  const [from, setFrom] = useState<'failed_step' | 'start'>('failed_step');
  const start = useStartRunBatch(workflowId);
  const { ended, open } = matchingRuns(filter, props.counts);
  if (ended === 0 && open === 0) return null;
  const run = (action: BulkAction) => start.mutate({ action, filter });
  const started = start.data?.batch;
  return (
    <Panel
      title="Act on the matching runs"
      description={`A replay retries each ended run as a new run; a cancel stops each run not ended. Either takes the newest ${MAX_RUN_BATCH.toLocaleString()} at most.`}
    >
      {ended > 0 && (
        <div className="wf-bulk-actions">
          <SelectField
            label="Replay from"
            options={REPLAY_FROM_OPTIONS}
            value={from}
            onChange={(event) => setFrom(event.target.value === 'start' ? 'start' : 'failed_step')}
          />
          <Button busy={start.isPending} onClick={() => run({ kind: 'replay', from })}>
            Replay {batchSizeText(ended)} that ended
          </Button>
        </div>
      )}
      {open > 0 && (
        <div className="wf-bulk-actions">
          <ConfirmButton
            label={`Cancel ${batchSizeText(open)} not ended`}
            action="Cancel every matching run not ended"
            busy={start.isPending}
            onConfirm={() => run({ kind: 'cancel' })}
          />
        </div>
      )}
      {started && !start.isPending && (
        <StatusMessage>
          {started.kind === 'replay' ? 'Replay' : 'Cancel'} started for{' '}
          {started.total === 1 ? '1 run' : `${started.total.toLocaleString()} runs`}: its progress
          is under Replays and bulk cancels.
        </StatusMessage>
      )}
      {start.isError && <ErrorMessage error={start.error} />}
    </Panel>
  );
}

const BATCH_STATUS_LABELS: Record<RunBatch['status'], string> = {
  running: 'Running',
  succeeded: 'Done',
  failed: 'Failed',
  cancelled: 'Stopped',
};
const ITEM_LABELS: Record<Exclude<RunBatchItemStatus, 'pending'>, string> = {
  started: 'started',
  cancelled: 'cancelled',
  cancel_requested: 'being stopped',
  already_ended: 'had ended',
  failed: 'failed',
  skipped: 'skipped',
};

function batchTitle(batch: RunBatch): string {
  if (batch.kind === 'cancel') return 'Cancel';
  if (batch.source === 'test_events') return 'Replay of test events';
  return batch.from === 'start' ? 'Replay from the start' : 'Replay from the failed step';
}

/** "118 started, 2 failed": what became of the items the batch reached. */
export function batchProgressText(batch: RunBatch): string {
  const parts = (Object.keys(ITEM_LABELS) as (keyof typeof ITEM_LABELS)[])
    .filter((status) => batch.progress[status] > 0)
    .map((status) => `${batch.progress[status].toLocaleString()} ${ITEM_LABELS[status]}`);
  const done = batch.total - batch.progress.pending;
  const reached = `${done.toLocaleString()} of ${batch.total.toLocaleString()} done`;
  return parts.length > 0 ? `${reached}: ${parts.join(', ')}` : reached;
}

function BatchEntry(props: { batch: RunBatch; workflowId: string }) {
  const { batch } = props;
  const stop = useStopRunBatch(props.workflowId);
  const title = batchTitle(batch);
  return (
    <li className="wf-batch">
      <p className="wf-batch__title">
        <strong>{title}</strong> · {formatShortDateTime(batch.created_at)} ·{' '}
        {BATCH_STATUS_LABELS[batch.status]}
      </p>
      <progress
        className="wf-batch__progress"
        value={batch.total - batch.progress.pending}
        max={Math.max(batch.total, 1)}
        aria-label={`${title}: progress`}
      />
      <p className="field__hint">{batchProgressText(batch)}</p>
      {batch.more_matched && (
        <p className="field__hint">
          More runs matched than one batch takes: act again once it is done for the rest.
        </p>
      )}
      {batch.error && <p className="notice notice--error">{batch.error}</p>}
      {batch.status === 'running' && (
        <Button
          busy={stop.isPending}
          aria-label={`Stop: ${title}`}
          onClick={() => stop.mutate(batch.id)}
        >
          Stop
        </Button>
      )}
      {stop.isError && <ErrorMessage error={stop.error} />}
    </li>
  );
}

/** The workflow's newest replays and bulk cancels, with their progress while they run. */
export function RunBatchesPanel(props: { workflowId: string }) {
  const batches = useRunBatches(props.workflowId);
  if (batches.isError) return <ErrorMessage error={batches.error} />;
  const listed = batches.data?.batches ?? [];
  if (listed.length === 0) return null;
  return (
    <Panel
      title="Replays and bulk cancels"
      description={`The newest ${RUN_BATCH_LIST_SIZE}, newest first.`}
    >
      <ul className="wf-batches" aria-label="Replays and bulk cancels">
        {listed.map((batch) => (
          <BatchEntry key={batch.id} batch={batch} workflowId={props.workflowId} />
        ))}
      </ul>
    </Panel>
  );
}
