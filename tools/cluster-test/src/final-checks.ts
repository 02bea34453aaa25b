// After the faults: is everything the platform acknowledged there, once, and readable?
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { FINAL_RUN_STATUSES } from '@wap/contracts';
import type { Acknowledged, GatewayCall } from './mixed-load';

export interface Findings {
  webhooks: {
    acknowledged: number;
    withoutRun: string[];
    /** eventIds whose run is still queued or running at the deadline. */
    unfinished: string[];
    /** eventIds with more than one run (any of the workflow's, acknowledged or not). */
    duplicated: string[];
    runStatuses: Record<string, number>;
    /** Seconds from the end of the load until every acknowledged request had an ended run. */
    settledAfterS: number;
  };
  tasks: { acknowledged: number; unreadable: string[] };
  turns: {
    acknowledged: number;
    notFound: string[];
    /** Still `running` at the deadline: no replica ended them. */
    stuck: string[];
    statuses: Record<string, number>;
  };
}

/** Runs of a killed runner come back after the stream's ack wait (30 s) and the run lease. */
const RUNS_DEADLINE_MS = 90_000;
/** A turn whose replica died ends as failed once its lease (5 s here) passes unrenewed. */
const TURNS_DEADLINE_MS = 60_000;
const READ_CONCURRENCY = 8;
const ENDED_RUN_STATUSES = new Set<string>(FINAL_RUN_STATUSES);

async function inBatches<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: READ_CONCURRENCY }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await work(item);
      }
    }),
  );
}

/** An answer that is not a 5xx or a transport failure, retried a few times: these reads come after recovery. */
async function settledCall(call: GatewayCall, path: string) {
  let answer = await call('GET', path);
  for (
    let attempt = 0;
    attempt < 3 && (answer.status === 0 || answer.status >= 500);
    attempt += 1
  ) {
    await sleep(500);
    answer = await call('GET', path);
  }
  return answer;
}

export async function checkAcknowledged(options: {
  databaseUrl: string;
  workflowId: string;
  call: GatewayCall;
  acknowledged: Acknowledged;
  loadEndedAt: number;
}): Promise<Findings> {
  const { acknowledged, call } = options;
  const db = new Client({ connectionString: options.databaseUrl });
  await db.connect();
  try {
    const runsOf = async () => {
      const { rows } = await db.query<{ event_id: string; status: string; runs: string }>(
        `select event_id, min(status) as status, count(*) as runs from workflow_runner.runs
          where workflow_id = $1 and event_id is not null group by event_id`,
        [options.workflowId],
      );
      return new Map(rows.map((row) => [row.event_id, row]));
    };
    let runs = await runsOf();
    const missing = () => acknowledged.eventIds.filter((id) => !runs.has(id));
    const unfinished = () =>
      acknowledged.eventIds.filter((id) => {
        const status = runs.get(id)?.status;
        return status !== undefined && !ENDED_RUN_STATUSES.has(status);
      });
    while (
      (missing().length > 0 || unfinished().length > 0) &&
      Date.now() - options.loadEndedAt < RUNS_DEADLINE_MS
    ) {
      await sleep(500);
      runs = await runsOf();
    }
    const settledAfterS = (Date.now() - options.loadEndedAt) / 1000;
    const runStatuses: Record<string, number> = {};
    for (const id of acknowledged.eventIds) {
      const status = runs.get(id)?.status;
      if (status) runStatuses[status] = (runStatuses[status] ?? 0) + 1;
    }

    const unreadable: string[] = [];
    await inBatches(acknowledged.tasks, async (task) => {
      const answer = await settledCall(call, `/tasks/${task.id}`);
      const title = (answer.body as { task?: { title?: string } } | undefined)?.task?.title;
      if (answer.status !== 200 || title !== task.title) unreadable.push(task.id);
    });

    const notFound: string[] = [];
    const turnStatus = new Map<string, string>();
    const turnsDeadline = Date.now() + TURNS_DEADLINE_MS;
    let open = [...acknowledged.turns];
    while (open.length > 0) {
      const stillRunning: string[] = [];
      await inBatches(open, async (requestId) => {
        const answer = await settledCall(call, `/brain/turns/${requestId}`);
        const status = (answer.body as { status?: string } | undefined)?.status;
        if (answer.status !== 200 || !status) notFound.push(requestId);
        else if (status === 'running') stillRunning.push(requestId);
        else turnStatus.set(requestId, status);
      });
      open = stillRunning;
      if (open.length === 0 || Date.now() > turnsDeadline) break;
      await sleep(1_000);
    }
    const statuses: Record<string, number> = {};
    for (const status of turnStatus.values()) statuses[status] = (statuses[status] ?? 0) + 1;

    return {
      webhooks: {
        acknowledged: acknowledged.eventIds.length,
        withoutRun: missing(),
        unfinished: unfinished(),
        duplicated: [...runs.values()]
          .filter((row) => Number(row.runs) > 1)
          .map((row) => row.event_id),
        runStatuses,
        settledAfterS,
      },
      tasks: { acknowledged: acknowledged.tasks.length, unreadable },
      turns: { acknowledged: acknowledged.turns.length, notFound, stuck: open, statuses },
    };
  } finally {
    await db.end();
  }
}
