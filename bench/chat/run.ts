// `npm run bench:chat`: the assistant's latency through the distributed platform (gateway, chat,
// storage and mcp-registry as processes on NATS and PostgreSQL) against the scripted provider
// called straight with the same official client, in one run:
// 1. time to the first token and to the last, one turn at a time, then 100 turns at once:
//    through the platform from `POST .../messages` to the delta on the turn's event stream;
//    directly from `chat.completions.create` to the client's chunk;
// 2. the time from `POST /brain/cancel` to the provider seeing its stream closed;
// 3. turns per second at saturation (200 turns kept in flight) with one chat replica, then two.
// The same measures 1 and 2 are then taken on the embedded runtime (`npm start`, one process).
// Targets (issue 29): the first token adds at most 15 ms at p50 one at a time and at most 100 ms
// at p99 with 100 at once, on both runtimes; a stop closes the provider stream within 50 ms at
// p99; a second chat replica gives at least 1.7 times the turns per second of one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import { z } from 'zod';
import { mintSessionToken } from '@wap/auth';
import { openEventStream, startChatCompletionsProvider, type ScriptedReply } from '@wap/testing';
import { buildBundles, percentile, runBench, type OnCleanup } from '../shared/harness';
import { startBenchPlatform } from '../shared/platform';

const BenchEnv = z.object({
  /** Turns measured one at a time (each way). */
  BENCH_SEQUENTIAL_TURNS: z.coerce.number().int().positive().default(50),
  /** Rounds of 100 concurrent turns (each way). */
  BENCH_CONCURRENT_ROUNDS: z.coerce.number().int().positive().default(3),
  /** Stops measured, one at a time. */
  BENCH_CANCELS: z.coerce.number().int().positive().default(30),
  /** Seconds of saturated load with one chat replica, and again with two. */
  BENCH_SATURATION_S: z.coerce.number().positive().default(15),
  /** When set, the gateway and the services write V8 CPU profiles (.cpuprofile) into this folder. */
  BENCH_CPU_PROF_DIR: z.string().optional(),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
});

const CONCURRENCY = 100;
/** Turns kept in flight to saturate the chat replicas. */
const SATURATION_IN_FLIGHT = 200;
const SESSION_SECRET = 'bench-chat-session-secret-0123456789abcdef';
const MODEL = 'bench-model';
const MAX_ADDED_FIRST_P50_MS = 15;
const MAX_ADDED_FIRST_P99_CONCURRENT_MS = 100;
const MAX_CANCEL_P99_MS = 50;
const MIN_SECOND_REPLICA_GAIN = 1.7;

/** A reply of 20 pieces sent back to back: a short answer. */
const ANSWER: ScriptedReply = {
  text: Array.from({ length: 20 }, (_, index) => `token${index} `),
};
/** A reply that streams for 30 s unless stopped. */
const ENDLESS: ScriptedReply = {
  text: Array.from({ length: 3000 }, (_, index) => `w${index} `),
  chunkDelayMs: 10,
};

interface Timing {
  firstMs: number;
  lastMs: number;
}

function summary(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

/** One runtime's HTTP front door and a session on it. */
interface Front {
  url: string;
  cookie: string;
}

async function sessionOn(url: string, email: string): Promise<Front> {
  const cookie = `session=${await mintSessionToken({
    secret: SESSION_SECRET,
    sub: `bench|${email}`,
    email,
    name: 'Bench',
  })}`;
  return { url, cookie };
}

async function post(front: Front, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${front.url}${path}`, {
    method: 'POST',
    headers: { cookie: front.cookie, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** A new chat in the session's own workspace, made once per front. */
async function chatMaker(front: Front): Promise<() => Promise<string>> {
  const workspace = (await post(front, '/workspaces', { name: 'bench' }))['workspace'] as {
    id: string;
  };
  return async () =>
    (
      (await post(front, '/ai-chat/conversations', { workspaceId: workspace.id }))[
        'conversation'
      ] as { id: string }
    ).id;
}

/** One turn through the platform, timed from the POST to its first and last delta. */
async function platformTurn(front: Front, chatId: string, content = 'hello'): Promise<Timing> {
  const started = performance.now();
  const { requestId } = (await post(front, `/ai-chat/conversations/${chatId}/messages`, {
    content,
  })) as { requestId: string };
  const stream = await openEventStream(`${front.url}/brain/turns/${requestId}/events`, {
    cookie: front.cookie,
  });
  let firstMs = Number.NaN;
  let lastMs = Number.NaN;
  await stream.waitFor((event) => {
    if (event.event === 'delta') {
      lastMs = performance.now() - started;
      if (Number.isNaN(firstMs)) firstMs = lastMs;
    }
    return event.event === 'status' && event.data['status'] !== 'running';
  }, 60_000);
  stream.close();
  return { firstMs, lastMs };
}

type Provider = Awaited<ReturnType<typeof startChatCompletionsProvider>>;

interface TurnFigures {
  sequential: { platform: Timing[]; direct: Timing[] };
  concurrent: { platform: Timing[]; direct: Timing[] };
  cancelMs: number[];
}

/**
 * Measures 1 and 2 through one runtime, each platform turn beside the same request made straight
 * to the provider with the same official client.
 */
async function measureTurns(
  front: Front,
  provider: Provider,
  env: z.infer<typeof BenchEnv>,
): Promise<TurnFigures> {
  const newChat = await chatMaker(front);
  const direct = new OpenAI({ baseURL: provider.baseUrl, apiKey: 'bench', maxRetries: 0 });
  async function directTurn(): Promise<Timing> {
    const started = performance.now();
    const stream = await direct.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
    });
    let firstMs = Number.NaN;
    let lastMs = Number.NaN;
    for await (const chunk of stream) {
      if (!chunk.choices[0]?.delta.content) continue;
      lastMs = performance.now() - started;
      if (Number.isNaN(firstMs)) firstMs = lastMs;
    }
    return { firstMs, lastMs };
  }

  // Warm-up: connections, pools, JIT, on both paths.
  const warmChats = await Promise.all(Array.from({ length: 10 }, () => newChat()));
  await Promise.all(warmChats.map((chatId) => platformTurn(front, chatId)));
  await Promise.all(warmChats.map(() => directTurn()));

  const sequential = { platform: [] as Timing[], direct: [] as Timing[] };
  for (let turn = 0; turn < env.BENCH_SEQUENTIAL_TURNS; turn += 1) {
    sequential.direct.push(await directTurn());
    sequential.platform.push(await platformTurn(front, await newChat()));
  }
  const concurrent = { platform: [] as Timing[], direct: [] as Timing[] };
  for (let round = 0; round < env.BENCH_CONCURRENT_ROUNDS; round += 1) {
    const chats = await Promise.all(Array.from({ length: CONCURRENCY }, () => newChat()));
    concurrent.direct.push(...(await Promise.all(chats.map(() => directTurn()))));
    concurrent.platform.push(
      ...(await Promise.all(chats.map((chatId) => platformTurn(front, chatId)))),
    );
  }

  const cancelMs: number[] = [];
  for (let stop = 0; stop < env.BENCH_CANCELS; stop += 1) {
    const chatId = await newChat();
    const requestsBefore = provider.requests.length;
    const { requestId } = (await post(front, `/ai-chat/conversations/${chatId}/messages`, {
      content: 'endless',
    })) as { requestId: string };
    const providerRequest = await provider.waitForRequest(requestsBefore + 1);
    const stream = await openEventStream(`${front.url}/brain/turns/${requestId}/events`, {
      cookie: front.cookie,
    });
    await stream.waitFor((event) => event.event === 'delta', 30_000);
    const started = performance.now();
    await post(front, '/brain/cancel', { requestId });
    const closedAt = await provider.waitForClientClose(providerRequest.index);
    cancelMs.push(closedAt - started);
    stream.close();
  }
  return { sequential, concurrent, cancelMs };
}

/** Turns per second with SATURATION_IN_FLIGHT turns kept in flight for `durationS`. */
async function turnsPerSecond(front: Front, chats: readonly string[], durationS: number) {
  const started = performance.now();
  const end = started + durationS * 1000;
  let completed = 0;
  await Promise.all(
    chats.map(async (chatId) => {
      while (performance.now() < end) {
        await platformTurn(front, chatId);
        completed += 1;
      }
    }),
  );
  return completed / ((performance.now() - started) / 1000);
}

const verdict = (ok: boolean) => (ok ? 'holds' : 'MISSES');

/** Prints one runtime's table and its targets; true when they hold. */
function report(runtime: string, figures: TurnFigures): boolean {
  const { sequential, concurrent } = figures;
  const firstSequentialDirect = summary(sequential.direct.map((t) => t.firstMs));
  const firstSequentialPlatform = summary(sequential.platform.map((t) => t.firstMs));
  const firstConcurrentDirect = summary(concurrent.direct.map((t) => t.firstMs));
  const firstConcurrentPlatform = summary(concurrent.platform.map((t) => t.firstMs));
  const cancels = summary(figures.cancelMs);
  const rows: Array<[string, { p50: number; p99: number }]> = [
    ['first token, one at a time, direct', firstSequentialDirect],
    ['first token, one at a time, platform', firstSequentialPlatform],
    ['last token, one at a time, direct', summary(sequential.direct.map((t) => t.lastMs))],
    ['last token, one at a time, platform', summary(sequential.platform.map((t) => t.lastMs))],
    ['first token, 100 at once, direct', firstConcurrentDirect],
    ['first token, 100 at once, platform', firstConcurrentPlatform],
    ['last token, 100 at once, direct', summary(concurrent.direct.map((t) => t.lastMs))],
    ['last token, 100 at once, platform', summary(concurrent.platform.map((t) => t.lastMs))],
    ['POST /brain/cancel to provider stream closed', cancels],
  ];
  console.log(`\nbench:chat, ${runtime} (ms)`);
  console.log(`${'measure'.padEnd(48)} ${'p50'.padStart(9)} ${'p99'.padStart(9)}`);
  for (const [name, { p50, p99 }] of rows) {
    console.log(`${name.padEnd(48)} ${p50.toFixed(1).padStart(9)} ${p99.toFixed(1).padStart(9)}`);
  }
  const addedFirstP50 = firstSequentialPlatform.p50 - firstSequentialDirect.p50;
  const addedFirstP99Concurrent = firstConcurrentPlatform.p99 - firstConcurrentDirect.p99;
  const targets: Array<[string, number, number]> = [
    ['first token added at p50, one at a time', addedFirstP50, MAX_ADDED_FIRST_P50_MS],
    [
      'first token added at p99, 100 at once',
      addedFirstP99Concurrent,
      MAX_ADDED_FIRST_P99_CONCURRENT_MS,
    ],
    ['stop to provider stream closed at p99', cancels.p99, MAX_CANCEL_P99_MS],
  ];
  for (const [name, value, limit] of targets) {
    console.log(`${name}: ${value.toFixed(1)} ms (target <= ${limit}): ${verdict(value <= limit)}`);
  }
  return targets.every(([, value, limit]) => value <= limit);
}

async function main(onCleanup: OnCleanup): Promise<void> {
  const env = BenchEnv.parse(process.env);
  buildBundles(['gateway', 'storage', 'mcp-registry', 'chat', 'embedded']);
  // Removed after the processes stop (cleanups run in reverse).
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-chat-embedded-'));
  onCleanup(async () => rmSync(dataDir, { recursive: true, force: true }));
  const provider = await startChatCompletionsProvider({ fallback: ANSWER });
  onCleanup(() => provider.stop());
  provider.respondWith((request) =>
    JSON.stringify(request.body.messages).includes('endless') ? ENDLESS : ANSWER,
  );
  const { databaseUrl, launch } = await startBenchPlatform(onCleanup, {
    natsUrl: env.NATS_URL,
    adminDatabaseUrl: env.DATABASE_URL,
    cpuProfileDir: env.BENCH_CPU_PROF_DIR,
  });
  const common = { DATABASE_URL: databaseUrl };
  const chatSettings = {
    ...common,
    LLM_BASE_URL: provider.baseUrl,
    LLM_MODEL: MODEL,
    // One person sends every turn of the bench, faster than the per-person limit allows.
    CHAT_MESSAGES_PER_MINUTE_PER_USER: '1000000',
    CHAT_MESSAGES_PER_MINUTE_PER_WORKSPACE: '1000000',
  };
  await launch.service('storage', 'storage', common);
  await launch.service('mcp-registry', 'mcp-registry', common);
  await launch.service('chat', 'chat', chatSettings);
  const gateway = await launch.gateway(SESSION_SECRET);
  const distributed = await sessionOn(gateway.url, 'bench-chat@example.com');
  const distributedFigures = await measureTurns(distributed, provider, env);

  const newChat = await chatMaker(distributed);
  const saturationChats = await Promise.all(
    Array.from({ length: SATURATION_IN_FLIGHT }, () => newChat()),
  );
  await turnsPerSecond(distributed, saturationChats, 3);
  const oneReplica = await turnsPerSecond(distributed, saturationChats, env.BENCH_SATURATION_S);
  await launch.service('chat-2', 'chat', chatSettings);
  await turnsPerSecond(distributed, saturationChats, 3);
  const twoReplicas = await turnsPerSecond(distributed, saturationChats, env.BENCH_SATURATION_S);

  const embedded = await launch.embedded(SESSION_SECRET, dataDir, {
    LLM_BASE_URL: provider.baseUrl,
    LLM_MODEL: MODEL,
    CHAT_MESSAGES_PER_MINUTE_PER_USER: '1000000',
    CHAT_MESSAGES_PER_MINUTE_PER_WORKSPACE: '1000000',
  });
  const embeddedFigures = await measureTurns(
    await sessionOn(embedded.url, 'bench-chat@example.com'),
    provider,
    env,
  );

  const distributedHolds = report(
    'distributed runtime (gateway, chat, storage, mcp-registry)',
    distributedFigures,
  );
  const gain = twoReplicas / oneReplica;
  console.log(
    `\nturns/s with ${SATURATION_IN_FLIGHT} in flight: one chat replica ${oneReplica.toFixed(1)}, two ${twoReplicas.toFixed(1)}: ${gain.toFixed(2)} times (target >= ${MIN_SECOND_REPLICA_GAIN}): ${verdict(gain >= MIN_SECOND_REPLICA_GAIN)}`,
  );
  const embeddedHolds = report('embedded runtime (npm start, one process)', embeddedFigures);
  if (!distributedHolds || !embeddedHolds || gain < MIN_SECOND_REPLICA_GAIN) process.exitCode = 1;
}

runBench(main);
