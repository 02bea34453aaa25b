import { z } from 'zod';
import { decodeJson, encodeJson, type Bus } from '@wap/platform';
import type { AdminContext } from '../operator';

/** One consumer of a stream, as JetStream reports it. */
export interface ConsumerState {
  name: string;
  filterSubject: string | null;
  /** Messages of the stream not yet delivered to it: its lag. */
  pending: number;
  /** Delivered and not yet acknowledged. */
  ackPending: number;
  redelivered: number;
  /** Pull requests waiting for messages. */
  waiting: number;
}

export interface StreamState {
  /** The JetStream name (with the namespace prefix), as `nats stream info` takes it. */
  name: string;
  kind: 'stream' | 'kv' | 'objects';
  subjects: string[];
  messages: number;
  bytes: number;
  firstSeq: number;
  lastSeq: number;
  consumers: ConsumerState[];
}

const JetStreamError = z.object({
  error: z.object({ code: z.number(), description: z.string() }),
});
const StreamListPage = z.object({
  total: z.number(),
  streams: z
    .array(
      z.object({
        config: z.object({ name: z.string(), subjects: z.array(z.string()).optional() }),
        state: z.object({
          messages: z.number(),
          bytes: z.number(),
          first_seq: z.number(),
          last_seq: z.number(),
        }),
      }),
    )
    .nullable(),
});
const ConsumerListPage = z.object({
  total: z.number(),
  consumers: z
    .array(
      z.object({
        name: z.string(),
        config: z.object({ filter_subject: z.string().optional() }),
        num_pending: z.number(),
        num_ack_pending: z.number(),
        num_redelivered: z.number(),
        num_waiting: z.number(),
      }),
    )
    .nullable(),
});

/**
 * One request to the JetStream API, which is request/reply over NATS like any service's: the
 * CLI needs no client of its own for it, only the bus outside the namespace.
 */
export async function jetStreamApi<Schema extends z.ZodType>(
  bus: Bus,
  subject: string,
  payload: unknown,
  schema: Schema,
  timeoutMs: number,
): Promise<z.infer<Schema>> {
  const reply = decodeJson((await bus.request(subject, encodeJson(payload), { timeoutMs })).data);
  const failure = JetStreamError.safeParse(reply);
  if (failure.success) {
    const { code, description } = failure.data.error;
    throw new Error(`JetStream ${subject}: ${description} (${code})`);
  }
  return schema.parse(reply);
}

/** Reads every page of a JetStream list (the server answers at most a page at a time). */
async function listAll<Item>(read: (offset: number) => Promise<{ total: number; items: Item[] }>) {
  const items: Item[] = [];
  for (;;) {
    const page = await read(items.length);
    items.push(...page.items);
    if (page.items.length === 0 || items.length >= page.total) return items;
  }
}

function kindOf(name: string): StreamState['kind'] {
  if (name.startsWith('KV_')) return 'kv';
  if (name.startsWith('OBJ_')) return 'objects';
  return 'stream';
}

/** Whether the stream belongs to the namespace (see withNamespace: `NS_x`, `KV_ns_x`, `OBJ_ns_x`). */
function inNamespace(name: string, namespace: string | undefined): boolean {
  if (namespace === undefined) return true;
  return (
    name.startsWith(`${namespace.toUpperCase()}_`) ||
    name.startsWith(`KV_${namespace}_`) ||
    name.startsWith(`OBJ_${namespace}_`)
  );
}

/** `streams`: every stream, KV and object bucket of the deployment, each with its consumers. */
export async function streamStates(context: AdminContext): Promise<StreamState[]> {
  const { bus } = context.server;
  const streams = await listAll(async (offset) => {
    const page = await jetStreamApi(
      bus,
      '$JS.API.STREAM.LIST',
      { offset },
      StreamListPage,
      context.timeoutMs,
    );
    return { total: page.total, items: page.streams ?? [] };
  });
  const states: StreamState[] = [];
  for (const stream of streams) {
    const name = stream.config.name;
    if (!inNamespace(name, context.namespace)) continue;
    const consumers = await listAll(async (offset) => {
      const page = await jetStreamApi(
        bus,
        `$JS.API.CONSUMER.LIST.${name}`,
        { offset },
        ConsumerListPage,
        context.timeoutMs,
      );
      return { total: page.total, items: page.consumers ?? [] };
    });
    states.push({
      name,
      kind: kindOf(name),
      subjects: stream.config.subjects ?? [],
      messages: stream.state.messages,
      bytes: stream.state.bytes,
      firstSeq: stream.state.first_seq,
      lastSeq: stream.state.last_seq,
      consumers: consumers
        .map((consumer) => ({
          name: consumer.name,
          filterSubject: consumer.config.filter_subject ?? null,
          pending: consumer.num_pending,
          ackPending: consumer.num_ack_pending,
          redelivered: consumer.num_redelivered,
          waiting: consumer.num_waiting,
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    });
  }
  return states.sort((a, b) => a.name.localeCompare(b.name));
}
