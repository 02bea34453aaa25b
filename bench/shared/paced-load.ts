import { Pool } from 'undici';

export interface PacedLoadOptions {
  /** Requests go to these in turn (replicas of one entry, as a load balancer would spread them). */
  urls: readonly string[];
  /** Requests sent per second, on a fixed schedule, whether or not earlier ones were answered. */
  ratePerSec: number;
  durationS: number;
  /** Keep-alive connections at most, over all the URLs; a request due while all are busy waits. */
  connections: number;
  headers: Record<string, string>;
  body: () => string;
  /** Every answer, with its latency counted from the moment the request was due. */
  onResponse: (statusCode: number, latencyMs: number, body: string) => void;
}

export interface PacedLoadResult {
  sent: number;
  answered: number;
  errors: number;
  /** How far behind its schedule the generator itself fell at worst (ms). */
  maxLagMs: number;
}

/**
 * An open-loop load: requests leave on a fixed schedule, so a slow answer does not hold back the
 * next request (autocannon's rate limit sends each second's requests in one burst, and its
 * closed loop makes the latency at saturation the connections divided by the throughput).
 * Latency counts from when a request was due, so the generator falling behind is not hidden.
 */
export async function runPacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const targets = options.urls.map((url) => {
    const target = new URL(url);
    return {
      path: `${target.pathname}${target.search}`,
      pool: new Pool(target.origin, {
        connections: Math.max(1, Math.floor(options.connections / options.urls.length)),
        pipelining: 1,
      }),
    };
  });
  const intervalMs = 1000 / options.ratePerSec;
  const total = Math.round(options.ratePerSec * options.durationS);
  const result: PacedLoadResult = { sent: 0, answered: 0, errors: 0, maxLagMs: 0 };
  const pending = new Set<Promise<void>>();
  const startedAt = performance.now();

  // A failed request counts as an error; a failure in onResponse is the bench's own and ends it.
  const send = (dueAt: number, target: (typeof targets)[number]) => {
    const request = (async () => {
      let answer: { statusCode: number; body: string };
      try {
        const response = await target.pool.request({
          path: target.path,
          method: 'POST',
          headers: options.headers,
          body: options.body(),
        });
        answer = { statusCode: response.statusCode, body: await response.body.text() };
      } catch {
        result.errors += 1;
        return;
      }
      result.answered += 1;
      options.onResponse(answer.statusCode, performance.now() - dueAt, answer.body);
    })().finally(() => pending.delete(request));
    pending.add(request);
  };

  await new Promise<void>((resolve) => {
    const sendDue = () => {
      const now = performance.now();
      while (result.sent < total) {
        const dueAt = startedAt + result.sent * intervalMs;
        if (dueAt > now) break;
        result.maxLagMs = Math.max(result.maxLagMs, now - dueAt);
        send(dueAt, targets[result.sent % targets.length] as (typeof targets)[number]);
        result.sent += 1;
      }
      if (result.sent >= total) resolve();
      // Timers fire no sooner than 1 ms: every tick sends all that fell due meanwhile.
      else setTimeout(sendDue, Math.max(0, startedAt + result.sent * intervalMs - now));
    };
    sendDue();
  });
  await Promise.all(pending);
  await Promise.all(targets.map((target) => target.pool.close()));
  return result;
}
