import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every metric of the platform, in one registry per process. On the embedded runtime all the
 * services share it (one process, one scrape); in the distributed runtime each process serves
 * its own at `/metrics` on its health port. Labels hold route templates, subjects, stream and
 * consumer names and closed sets of outcomes: never an id, so the series stay bounded.
 */
export const metricsRegistry = new Registry();

interface LagWatch {
  labels: { stream: string; consumer: string };
  /** Readers of every consume call of this durable in the process; the newest one answers. */
  readers: Set<() => Promise<number>>;
}
/** Durable consumers of this process whose lag is read at scrape time, by stream and consumer. */
const lagWatches = new Map<string, LagWatch>();
/** Bounds one lag read, so that a scrape during a NATS outage still answers in time. */
const LAG_READ_TIMEOUT_MS = 2_000;

function readWithin<T>(read: () => Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    read(),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('lag read timed out')), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
}

const durationBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const longDurationBuckets = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];
const registers = [metricsRegistry];

export const metrics = {
  /** Gateway HTTP requests by method, route template (e.g. `/workflows/:id`) and status. */
  httpRequestDuration: new Histogram({
    name: 'wap_http_request_duration_seconds',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: durationBuckets,
    registers,
  }),
  /**
   * Bus requests by subject (its template, without the namespace or a per-request suffix),
   * side (`client` sent it, `server` answered it) and outcome (`ok`, `user_error`, `error`,
   * `timeout`, `no_responders`).
   */
  busRequestDuration: new Histogram({
    name: 'wap_bus_request_duration_seconds',
    help: 'Bus requests by subject, side and outcome',
    labelNames: ['subject', 'side', 'outcome'] as const,
    buckets: durationBuckets,
    registers,
  }),
  /**
   * Bus requests this service refused before any handler ran, by subject template and reason
   * (`missing`, `bad_signature`, `expired`, `audience`, `replayed`, `caller`, `user_required`...).
   */
  busRefused: new Counter({
    name: 'wap_bus_refused_total',
    help: 'Bus requests refused by the trust layer, by subject and reason',
    labelNames: ['subject', 'reason'] as const,
    registers,
  }),
  /** Stream messages handled by a durable consumer, by outcome (`acked`, `retried`, `dropped`). */
  streamMessages: new Counter({
    name: 'wap_stream_messages_total',
    help: 'Stream messages handled by a durable consumer, by outcome',
    labelNames: ['stream', 'consumer', 'outcome'] as const,
    registers,
  }),
  /**
   * Stream messages a durable consumer gave up on and moved to DEAD_LETTERS, by reason
   * (`unparsable`, `failed`; decision 125).
   */
  deadLetters: new Counter({
    name: 'wap_dead_letters_total',
    help: 'Stream messages moved to the dead-letter stream, by stream, consumer and reason',
    labelNames: ['stream', 'consumer', 'reason'] as const,
    registers,
  }),
  /** Stream messages delivered more than once to a durable consumer. */
  streamRedeliveries: new Counter({
    name: 'wap_stream_redeliveries_total',
    help: 'Stream messages delivered again to a durable consumer (after a nak, a timeout or a crash)',
    labelNames: ['stream', 'consumer'] as const,
    registers,
  }),
  /**
   * Messages a durable consumer has not been delivered yet, read from the stream at scrape time
   * (JetStream consumer info, or the embedded durable log). A consumer whose read fails (NATS
   * unreachable) has no sample in that scrape rather than a stale one.
   */
  streamConsumerLag: new Gauge({
    name: 'wap_stream_consumer_pending_messages',
    help: 'Messages of the stream not yet delivered to the durable consumer',
    labelNames: ['stream', 'consumer'] as const,
    registers,
    async collect() {
      this.reset();
      await Promise.all(
        [...lagWatches.values()].map(async ({ labels, readers }) => {
          const read = [...readers].at(-1);
          if (!read) return;
          try {
            this.set(labels, await readWithin(read, LAG_READ_TIMEOUT_MS));
          } catch {
            // No sample: an absent series says "unknown", a zero would say "caught up".
          }
        }),
      );
    },
  }),
  /** Workflow runs that ended, by final status, with their duration from start to end. */
  runDuration: new Histogram({
    name: 'wap_workflow_run_duration_seconds',
    help: 'Workflow runs ended, by final status',
    labelNames: ['status'] as const,
    buckets: longDurationBuckets,
    registers,
  }),
  /** Workflow runs started, by what started them (`webhook`, `schedule`, `manual`, ...). */
  runsStarted: new Counter({
    name: 'wap_workflow_runs_started_total',
    help: 'Workflow runs started, by trigger kind',
    labelNames: ['trigger'] as const,
    registers,
  }),
  /**
   * Webhook requests by entry (`custom`, `stripe`, `github`, `linear`, `slack`), outcome
   * (`accepted`, `skipped`, `refused`) and reason (an error code, `duplicate`, `ok`, ...).
   */
  webhookRequests: new Counter({
    name: 'wap_webhook_requests_total',
    help: 'Webhook requests by entry, outcome and reason',
    labelNames: ['entry', 'outcome', 'reason'] as const,
    registers,
  }),
  /** MCP server syncs (tool list refreshes) by outcome (`ok`, `failed`). */
  mcpSyncs: new Counter({
    name: 'wap_mcp_syncs_total',
    help: 'MCP server tool syncs by outcome',
    labelNames: ['outcome'] as const,
    registers,
  }),
  /** MCP tool calls by outcome (`ok`, `tool_error`, `failed`, `cancelled`, `denied`). */
  mcpToolCallDuration: new Histogram({
    name: 'wap_mcp_tool_call_duration_seconds',
    help: 'MCP tool calls by outcome',
    labelNames: ['outcome'] as const,
    buckets: longDurationBuckets,
    registers,
  }),
  /** Chat assistant turns ended, by final status (`completed`, `stopped`, `failed`). */
  chatTurnDuration: new Histogram({
    name: 'wap_chat_turn_duration_seconds',
    help: 'Chat assistant turns ended, by final status',
    labelNames: ['status'] as const,
    buckets: longDurationBuckets,
    registers,
  }),
  /**
   * Chat stops asked for, by kind (`turn`, `tool`) and outcome (`stopped`; `already_ended`: nothing
   * left to stop; `refused`: not the turn's user, or no such turn).
   */
  chatCancels: new Counter({
    name: 'wap_chat_cancels_total',
    help: 'Chat stops asked for, by kind and outcome',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  }),
};

/**
 * The sink a metered platform (`withMetrics` of `@wap/platform`) reports its bus and stream
 * traffic to: the same catalog, so one scrape holds it.
 */
export const platformMetrics = {
  busRequest(
    labels: { subject: string; side: 'client' | 'server'; outcome: string },
    seconds: number,
  ): void {
    metrics.busRequestDuration.observe(labels, seconds);
  },
  busRefused(labels: { subject: string; reason: string }): void {
    metrics.busRefused.inc(labels);
  },
  streamMessage(labels: { stream: string; consumer: string; outcome: string }): void {
    metrics.streamMessages.inc(labels);
  },
  streamRedelivery(labels: { stream: string; consumer: string }): void {
    metrics.streamRedeliveries.inc(labels);
  },
  watchConsumerLag(
    labels: { stream: string; consumer: string },
    read: () => Promise<number>,
  ): () => void {
    const key = `${labels.stream}/${labels.consumer}`;
    const watch = lagWatches.get(key) ?? { labels, readers: new Set() };
    lagWatches.set(key, watch);
    // Each consume call brings its own reader, so that stopping one member keeps the others'.
    const reader = () => read();
    watch.readers.add(reader);
    return () => {
      watch.readers.delete(reader);
      if (watch.readers.size === 0 && lagWatches.get(key) === watch) lagWatches.delete(key);
    };
  },
};

let processMetricsStarted = false;

/**
 * Adds the process metrics (CPU, memory, event loop lag, handles) and a `service` label on every
 * series; once per process, by its composition root.
 */
export function collectProcessMetrics(serviceName: string): void {
  if (processMetricsStarted) return;
  processMetricsStarted = true;
  metricsRegistry.setDefaultLabels({ service: serviceName });
  collectDefaultMetrics({ register: metricsRegistry });
}

/** The Prometheus text exposition of every metric, and its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
