// Runs a team operates, under faults (issue 42): http_request steps whose retry backoff is cut by
// `kill -9` of every runner, and a bulk cancel whose runner dies part way. Afterwards each step
// must have been attempted as its policy says and never more (each request the receiver got is a
// recorded attempt, or the one resend of an attempt the crash cut off), and every cancelled run
// must have ended without its later step.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Run, RunBatch } from '@wap/contracts';
import type { GatewayCall } from './mixed-load';

/** Runs whose step fails twice (503) before it succeeds, under a policy of three attempts. */
const RETRY_RUNS = 30;
const RETRY_ATTEMPTS = 3;
const FAILURES_BEFORE_SUCCESS = 2;
/** Longer than the time it takes to start the runs, so that the kill falls in their backoff. */
export const BACKOFF_MS = 5_000;
/** Runs asleep in a long delay, cancelled by one bulk cancel. */
const WAITING_RUNS = 200;
/** How long the checks wait for the runs and the batch to end once the faults are over. */
const SETTLE_DEADLINE_MS = 120_000;

/** A local server the steps call: per Idempotency-Key, two 503s then 200s; every request counted. */
export async function startRunReceiver() {
  const byKey = new Map<string, number[]>();
  let afterTheWait = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    if (req.url === '/after-the-wait') {
      afterTheWait += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    const key = String(req.headers['idempotency-key'] ?? '');
    const times = [...(byKey.get(key) ?? []), Date.now()];
    byKey.set(key, times);
    const status = times.length > FAILURES_BEFORE_SUCCESS ? 200 : 503;
    res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requestsOf: (key: string) => byKey.get(key) ?? [],
    afterTheWait: () => afterTheWait,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
export type RunReceiver = Awaited<ReturnType<typeof startRunReceiver>>;

export interface RunOperationFindings {
  retries: {
    runs: number;
    /** Runs not succeeded at the deadline, with their status. */
    notSucceeded: string[];
    /** Runs whose step got more requests than its recorded attempts (and their resends). */
    overAttempted: string[];
    /** Runs whose step got fewer requests than its recorded attempts, or more attempts than the policy's. */
    miscounted: string[];
    /** Runs whose next attempt came before the backoff had passed. */
    early: string[];
    /** Attempts made again after a crash cut them off. */
    resent: number;
  };
  cancel: {
    runs: number;
    batch: string;
    progress: RunBatch['progress'] | undefined;
    /** Runs not cancelled at the deadline, with their status. */
    notCancelled: string[];
    /** Requests made by the step after the delay: a cancelled run must never reach it. */
    laterSteps: number;
    /** Runs charged anything: the delay is free and the step after it never started. */
    charged: string[];
  };
}

export function runOperations(call: GatewayCall, workspaceId: string, receiver: RunReceiver) {
  const ok = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await call(method, path, body);
    if (answer.status < 200 || answer.status >= 300) {
      throw new Error(
        `${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
      );
    }
    return answer.body as T;
  };
  const workflowOf = async (name: string, steps: unknown[]) =>
    (
      await ok<{ workflow: { id: string } }>('POST', '/workflows', {
        workspaceId,
        name,
        trigger: { type: 'custom_webhook' },
        steps,
      })
    ).workflow.id;
  const startRuns = async (workflowId: string, count: number) => {
    const runIds: string[] = [];
    for (let started = 0; started < count; started += 10) {
      const batch = Array.from({ length: Math.min(10, count - started) }, () =>
        ok<{ runId: string }>('POST', `/workflows/${workflowId}/run`).then((r) => r.runId),
      );
      runIds.push(...(await Promise.all(batch)));
    }
    return runIds;
  };
  const runOf = async (runId: string) => (await ok<{ run: Run }>('GET', `/runs/${runId}`)).run;
  const until = async (what: string, holds: () => Promise<boolean>, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await holds())) {
      if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
      await sleep(250);
    }
  };

  let retryRunIds: string[] = [];
  let waitingWorkflowId = '';
  let waitingRunIds: string[] = [];
  let batchId = '';

  return {
    /** Credits for the runs, and the two workflows. */
    async prepare(): Promise<void> {
      await ok('POST', `/workspaces/${workspaceId}/credits/grants`, {
        amount: 1_000,
        reason: 'cluster run operations',
      });
      waitingWorkflowId = await workflowOf('Waits, then calls', [
        { type: 'delay', name: 'long wait', settings: { seconds: 3_600 } },
        {
          type: 'http_request',
          name: 'after the wait',
          settings: { method: 'POST', url: `${receiver.origin}/after-the-wait` },
        },
      ]);
    },

    /** Runs whose first attempt has failed: each is in its backoff when this returns. */
    async startRetryingRuns(): Promise<void> {
      const workflowId = await workflowOf('Retries a flaky call', [
        {
          type: 'http_request',
          name: 'flaky call',
          settings: { method: 'POST', url: `${receiver.origin}/flaky` },
          retry: { attempts: RETRY_ATTEMPTS, backoff: 'fixed', delayMs: BACKOFF_MS, jitter: false },
        },
      ]);
      retryRunIds = await startRuns(workflowId, RETRY_RUNS);
      await until('every retrying run made its first attempt', async () =>
        retryRunIds.every((runId) => receiver.requestsOf(`${runId}:0:0`).length > 0),
      );
      const second = retryRunIds.filter((id) => receiver.requestsOf(`${id}:0:0`).length > 1);
      console.log(
        `  runs past their first backoff at the fault: ${second.length} of ${RETRY_RUNS}`,
      );
    },

    /** Runs asleep in their delay, then a bulk cancel of them seen part way (paced by the runner). */
    async startBulkCancel(): Promise<void> {
      waitingRunIds = await startRuns(waitingWorkflowId, WAITING_RUNS);
      await until('every waiting run asleep in its delay', async () => {
        const { counts } = await ok<{ counts: { by_status: Record<string, number> } }>(
          'GET',
          `/workflows/${waitingWorkflowId}/runs?limit=1`,
        );
        return counts.by_status.running === WAITING_RUNS;
      });
      const { batch } = await ok<{ batch: RunBatch }>(
        'POST',
        `/workflows/${waitingWorkflowId}/runs/cancel`,
        { key: 'cluster-bulk-cancel' },
      );
      batchId = batch.id;
      await until('the bulk cancel part way', async () => {
        const { batch: now } = await ok<{ batch: RunBatch }>('GET', `/run-batches/${batchId}`);
        if (now.status !== 'running') {
          throw new Error(`the bulk cancel ended (${now.status}) before the fault: pace it slower`);
        }
        if (now.progress.pending === now.total) return false;
        console.log(
          `  bulk cancel at the fault: ${now.total - now.progress.pending} of ${now.total} settled`,
        );
        return true;
      });
    },

    async check(): Promise<RunOperationFindings> {
      const deadline = Date.now() + SETTLE_DEADLINE_MS;
      const ended = async (runIds: string[], status: string) => {
        const runs = new Map<string, Run>();
        for (;;) {
          for (const runId of runIds) {
            if (runs.get(runId)?.status !== status) runs.set(runId, await runOf(runId));
          }
          if ([...runs.values()].every((run) => run.status === status)) break;
          if (Date.now() > deadline) break;
          await sleep(1_000);
        }
        return runs;
      };
      const retried = await ended(retryRunIds, 'succeeded');
      const retries: RunOperationFindings['retries'] = {
        runs: retryRunIds.length,
        notSucceeded: [],
        overAttempted: [],
        miscounted: [],
        early: [],
        resent: 0,
      };
      for (const [runId, run] of retried) {
        if (run.status !== 'succeeded') retries.notSucceeded.push(`${runId} ${run.status}`);
        const attempts = run.steps[0]?.attempts ?? [];
        const resends = attempts.filter((attempt) => attempt.resumed).length;
        retries.resent += resends;
        const requests = receiver.requestsOf(`${runId}:0:0`);
        if (requests.length > attempts.length + resends) retries.overAttempted.push(runId);
        else if (requests.length < attempts.length || attempts.length > RETRY_ATTEMPTS) {
          retries.miscounted.push(runId);
        }
        // Without a resend, each request after the first is an attempt made after its backoff.
        const gaps = requests.slice(1).map((at, index) => at - (requests[index] ?? at));
        if (resends === 0 && gaps.some((gap) => gap < BACKOFF_MS)) retries.early.push(runId);
      }

      const cancelled = await ended(waitingRunIds, 'cancelled');
      let batch: RunBatch | undefined;
      do {
        batch = (await ok<{ batch: RunBatch }>('GET', `/run-batches/${batchId}`)).batch;
        if (batch.status !== 'running') break;
        await sleep(1_000);
      } while (Date.now() < deadline);
      return {
        retries,
        cancel: {
          runs: waitingRunIds.length,
          batch: batch.status,
          progress: batch.progress,
          notCancelled: [...cancelled]
            .filter(([, run]) => run.status !== 'cancelled')
            .map(([runId, run]) => `${runId} ${run.status}`),
          laterSteps: receiver.afterTheWait(),
          charged: [...cancelled]
            .filter(([, run]) => run.credits_charged !== 0)
            .map(([runId]) => runId),
        },
      };
    },
  };
}
