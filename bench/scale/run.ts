// `npm run bench:scale`: does the cost of a request grow with the data behind it? Each hot path
// is measured through the gateway on the distributed runtime twice in one run: on a store holding
// only what the paths read, then after filling it with 1,000,000 runs (with their steps and test
// events; 100,000 of them the measured workflow's own history), 100,000 chat messages in 1,000
// conversations, 100,000 notes on 1,000 contacts and 100,000 rows in 100 tables. The measured
// records stay the same between the two measurements. The runs are of three triggers, one in 50
// failed, so the filtered run lists (issue 42 item 7) read a real mix. Target (issue 29 item 4): each path's
// requests/s on the full store at least 0.8 of its figure on the empty one. Requests are sent
// one after another, so the figures are each request's own cost, not the machine's saturation.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { mintSessionToken } from '@wap/auth';
import { buildBundles, percentile, runBench, sql, type OnCleanup } from '../shared/harness';
import { startBenchPlatform } from '../shared/platform';

const BenchEnv = z.object({
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Requests measured per path (split-name: a tenth of it). */
  BENCH_REQUESTS: z.coerce.number().int().positive().default(300),
  /** When set, the services write V8 CPU profiles (.cpuprofile) into this folder. */
  BENCH_CPU_PROF_DIR: z.string().optional(),
});

const MIN_RATIO = 0.8;
const RUNS_OF_MEASURED_WORKFLOW = 100_000;
const OTHER_WORKFLOWS = 18_000;
const RUNS_PER_OTHER_WORKFLOW = 50;
const CONVERSATIONS = 1_000;
const MESSAGES_PER_CONVERSATION = 100;
const CONTACTS = 1_000;
const NOTES_PER_CONTACT = 100;
const TABLES = 100;
const ROWS_PER_TABLE = 1_000;
/** What the measured records hold in both measurements. */
const MEASURED_MESSAGES = 20;
const MEASURED_NOTES = 20;
const MEASURED_ROWS = 1_000;

interface Path {
  name: string;
  requests: number;
  send(index: number): Promise<Response>;
}

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
}

async function measure(path: Path): Promise<Figures> {
  const once = async (index: number) => {
    const response = await path.send(index);
    await response.arrayBuffer();
    if (response.status >= 300) throw new Error(`${path.name} answered ${response.status}`);
  };
  for (let index = 0; index < Math.max(5, path.requests / 10); index += 1) await once(index);
  const samples: number[] = [];
  const started = performance.now();
  for (let index = 0; index < path.requests; index += 1) {
    const sent = performance.now();
    await once(index);
    samples.push(performance.now() - sent);
  }
  const elapsed = performance.now() - started;
  samples.sort((a, b) => a - b);
  return {
    perSecond: (path.requests / elapsed) * 1000,
    p50: percentile(samples, 0.5),
    p99: percentile(samples, 0.99),
  };
}

async function main(onCleanup: OnCleanup): Promise<void> {
  const env = BenchEnv.parse(process.env);
  buildBundles(['gateway', 'storage', 'chat', 'workflow-runner', 'webhook-ingest']);
  const { databaseUrl, launch } = await startBenchPlatform(onCleanup, {
    natsUrl: env.NATS_URL,
    adminDatabaseUrl: env.DATABASE_URL,
    cpuProfileDir: env.BENCH_CPU_PROF_DIR,
  });
  const common = { DATABASE_URL: databaseUrl };
  await launch.service('storage', 'storage', common);
  await launch.service('chat', 'chat', common);
  await launch.service('workflow-runner', 'workflow-runner', common);
  await launch.service('webhook-ingest', 'webhook-ingest', {
    ...common,
    WEBHOOK_RATE_LIMIT_PER_SECOND: '1000000',
    WEBHOOK_RATE_LIMIT_BURST: '1000000',
  });
  const sessionSecret = randomBytes(32).toString('hex');
  const gateway = await launch.gateway(sessionSecret);

  const cookie = `session=${await mintSessionToken({
    secret: sessionSecret,
    sub: 'bench|scale@example.com',
    email: 'scale@example.com',
    name: 'Bench',
    platformAdmin: true,
    expiresInSec: 7200,
  })}`;
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${gateway.url}${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await send(method, path, body);
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };

  // What the paths read, the same in both measurements.
  const { user } = await call<{ user: { id: string } }>('GET', '/me');
  const { workspace } = await call<{ workspace: { id: string } }>('POST', '/workspaces', {
    name: 'Scale',
  });
  // A balance above zero: the free step costs nothing, but an empty workspace runs nothing.
  await call('POST', `/workspaces/${workspace.id}/credits/grants`, { amount: 1, reason: 'bench' });
  const { workflow, webhook } = await call<{ workflow: { id: string }; webhook: { id: string } }>(
    'POST',
    '/workflows',
    {
      workspaceId: workspace.id,
      name: 'Orders',
      trigger: { type: 'custom_webhook' },
      steps: [{ type: 'delay', name: 'free step', settings: { seconds: 0 } }],
    },
  );
  const { runId } = await call<{ runId: string }>('POST', `/workflows/${workflow.id}/run`);
  for (;;) {
    const { run } = await call<{ run: { status: string } }>('GET', `/runs/${runId}`);
    if (run.status === 'succeeded') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await call('POST', `/workflows/${workflow.id}/live`);
  const { conversation } = await call<{ conversation: { id: string } }>(
    'POST',
    '/ai-chat/conversations',
    { workspaceId: workspace.id },
  );
  await sql(
    databaseUrl,
    `insert into chat.messages (id, conversation_id, role, user_id, content, tool_calls, created_at, updated_at)
     select gen_random_uuid(), $1, case when i % 2 = 0 then 'user' else 'assistant' end,
            case when i % 2 = 0 then $2::uuid end, 'message ' || i, '[]'::jsonb, now(), now()
     from generate_series(1, $3) as i`,
    [conversation.id, user.id, MEASURED_MESSAGES],
  );
  const { contact } = await call<{ contact: { id: string } }>('POST', '/contacts', {
    workspaceId: workspace.id,
    name: 'Ada Lovelace',
  });
  const notesOf = (contactIds: string, perContact: number) =>
    sql(
      databaseUrl,
      `insert into storage.contact_notes (id, workspace_id, contact_id, title, content, tags, created_by, created_at, updated_at)
       select gen_random_uuid(), $1, c.id, 'Note ' || i, 'What was said, ' || i, '{}', $2, now(), now()
       from (${contactIds}) as c, generate_series(1, $3) as i`,
      [workspace.id, user.id, perContact],
    );
  await notesOf(`select '${contact.id}'::uuid as id`, MEASURED_NOTES);
  const { table } = await call<{ table: { id: string } }>('POST', '/tables', {
    workspaceId: workspace.id,
    name: 'People',
  });
  const property = async (name: string) =>
    (
      await call<{ property: { id: string } }>('POST', `/tables/${table.id}/properties`, {
        name,
        type: 'text',
      })
    ).property.id;
  const source = await property('Full name');
  const target = await property('Last name');
  const rowsOf = (tableIds: string, perTable: number) =>
    sql(
      databaseUrl,
      `insert into storage.table_rows (id, table_id, cells, created_at, updated_at)
       select gen_random_uuid(), t.id, jsonb_build_object($1::text, 'Ada' || i || ' Lovelace' || i), now(), now()
       from (${tableIds}) as t, generate_series(1, $2) as i`,
      [source, perTable],
    );
  await rowsOf(`select '${table.id}'::uuid as id`, MEASURED_ROWS);

  const hour = 3_600_000;
  const lastNight = {
    from: new Date(Date.now() - 12 * hour).toISOString(),
    to: new Date(Date.now() - 4 * hour).toISOString(),
  };
  /** A webhook event of the measured workflow, found once the webhook path has made runs. */
  let eventId: string | undefined;
  const paths: Path[] = [
    {
      name: 'a webhook (POST /webhooks/{id})',
      requests: env.BENCH_REQUESTS,
      send: (index) => send('POST', `/webhooks/${webhook.id}`, { order: { id: index } }),
    },
    {
      name: 'the run list page',
      requests: env.BENCH_REQUESTS,
      send: () => send('GET', `/workflows/${workflow.id}/runs`),
    },
    {
      name: "the run list: last night's failed webhook runs",
      requests: env.BENCH_REQUESTS,
      send: () =>
        send(
          'GET',
          `/workflows/${workflow.id}/runs?status=failed&trigger=custom_webhook&created_after=${lastNight.from}&created_before=${lastNight.to}`,
        ),
    },
    {
      name: 'the run list: a rare trigger',
      requests: env.BENCH_REQUESTS,
      send: () => send('GET', `/workflows/${workflow.id}/runs?trigger=manual`),
    },
    {
      name: 'the run list: the run of one event',
      requests: env.BENCH_REQUESTS,
      send: async () => {
        eventId ??= (
          await call<{ runs: { trigger: { event_id: string } }[] }>(
            'GET',
            `/workflows/${workflow.id}/runs?trigger=custom_webhook&limit=1`,
          )
        ).runs[0]?.trigger.event_id;
        return send('GET', `/workflows/${workflow.id}/runs?event_id=${eventId}`);
      },
    },
    {
      name: 'the chat list',
      requests: env.BENCH_REQUESTS,
      send: () => send('GET', `/ai-chat/conversations?workspaceId=${workspace.id}`),
    },
    {
      name: 'opening a chat (its messages)',
      requests: env.BENCH_REQUESTS,
      send: () => send('GET', `/ai-chat/conversations/${conversation.id}/messages`),
    },
    {
      name: "a contact's notes page",
      requests: env.BENCH_REQUESTS,
      send: () => send('GET', `/contacts/${contact.id}/notes`),
    },
    {
      name: `split-name of a ${MEASURED_ROWS}-row table`,
      requests: Math.max(10, Math.round(env.BENCH_REQUESTS / 10)),
      send: () =>
        send('POST', `/tables/${table.id}/split-name`, {
          sourcePropertyId: source,
          targetPropertyId: target,
        }),
    },
  ];

  const empty = new Map<string, Figures>();
  for (const path of paths) empty.set(path.name, await measure(path));

  const fillStarted = performance.now();
  const otherWorkflow = `md5('workflow-' || (i % ${OTHER_WORKFLOWS}))::uuid`;
  const otherWorkspace = `md5('workspace-' || (i % 100))::uuid`;
  const otherRuns = OTHER_WORKFLOWS * RUNS_PER_OTHER_WORKFLOW;
  // One run in 50 failed; 1 in 100 run by hand, 1 in 10 by a schedule, the rest by webhooks.
  const triggerOf = `case when i % 100 = 7 then 'manual' when i % 10 = 3 then 'schedule' else 'custom_webhook' end`;
  await sql(
    databaseUrl,
    `with created as (
       insert into workflow_runner.runs (id, workflow_id, workspace_id, status, trigger_type, event_id,
         input, acting_user_id, stop_on_node_failure, credit_cost, credits_charged, created_at, started_at, finished_at)
       select gen_random_uuid(),
              case when i <= $1 then $2::uuid else ${otherWorkflow} end,
              case when i <= $1 then $3::uuid else ${otherWorkspace} end,
              case when i % 50 = 0 then 'failed' else 'succeeded' end,
              ${triggerOf},
              case when ${triggerOf} = 'custom_webhook' then gen_random_uuid() end,
              jsonb_build_object('order', i), $4, true, 0, 0,
              now() - make_interval(secs => i), now() - make_interval(secs => i), now() - make_interval(secs => i)
       from generate_series(1, $5) as i
       returning id, created_at
     )
     insert into workflow_runner.run_steps (run_id, step_index, name, type, settings, status, input,
       output, started_at, finished_at, duration_ms)
     select id, 0, 'free step', 'delay', '{"seconds":0}'::jsonb, 'succeeded', '{}'::jsonb,
            '{}'::jsonb, created_at, created_at, 0
     from created`,
    [
      RUNS_OF_MEASURED_WORKFLOW,
      workflow.id,
      workspace.id,
      user.id,
      RUNS_OF_MEASURED_WORKFLOW + otherRuns,
    ],
  );
  await sql(
    databaseUrl,
    `insert into workflow_runner.test_events (id, workflow_id, workspace_id, webhook_id, received_at, body, headers)
     select gen_random_uuid(), ${otherWorkflow}, ${otherWorkspace}, md5('webhook-' || (i % ${OTHER_WORKFLOWS}))::uuid,
            now() - make_interval(secs => i), jsonb_build_object('order', i), '{}'::jsonb
     from generate_series(1, $1) as i`,
    [otherRuns],
  );
  await sql(
    databaseUrl,
    `with created as (
       insert into chat.conversations (id, workspace_id, user_id, access_type, is_archived,
         last_activity_at, created_at, updated_at)
       select gen_random_uuid(), $1, $2, 'private', false, now() - make_interval(secs => i),
              now() - make_interval(secs => i), now()
       from generate_series(1, $3) as i
       returning id
     )
     insert into chat.messages (id, conversation_id, role, user_id, content, tool_calls, created_at, updated_at)
     select gen_random_uuid(), created.id, case when i % 2 = 0 then 'user' else 'assistant' end,
            case when i % 2 = 0 then $2::uuid end, 'message ' || i, '[]'::jsonb, now(), now()
     from created, generate_series(1, $4) as i`,
    [workspace.id, user.id, CONVERSATIONS, MESSAGES_PER_CONVERSATION],
  );
  await sql(
    databaseUrl,
    `insert into storage.contacts (id, workspace_id, name, created_by, created_at, updated_at)
     select gen_random_uuid(), $1, 'Contact ' || i, $2, now() - make_interval(secs => i), now()
     from generate_series(1, $3) as i`,
    [workspace.id, user.id, CONTACTS],
  );
  await notesOf(
    `select id from storage.contacts where workspace_id = '${workspace.id}' and id <> '${contact.id}'`,
    NOTES_PER_CONTACT,
  );
  await sql(
    databaseUrl,
    `insert into storage.tables (id, workspace_id, name, created_by, created_at, updated_at)
     select gen_random_uuid(), $1, 'Table ' || i, $2, now() - make_interval(secs => i), now()
     from generate_series(1, $3) as i`,
    [workspace.id, user.id, TABLES],
  );
  await rowsOf(
    `select id from storage.tables where workspace_id = '${workspace.id}' and id <> '${table.id}'`,
    ROWS_PER_TABLE,
  );
  // What autovacuum does after a million inserts: statistics, and the visibility map that lets
  // the runs list's counts read their index alone.
  await sql(databaseUrl, 'vacuum analyze');
  const [counts] = await sql<Record<string, string>>(
    databaseUrl,
    `select (select count(*) from workflow_runner.runs) as runs,
            (select count(*) from workflow_runner.run_steps) as steps,
            (select count(*) from workflow_runner.test_events) as test_events,
            (select count(*) from chat.messages) as messages,
            (select count(*) from storage.contact_notes) as notes,
            (select count(*) from storage.table_rows) as rows`,
  );
  console.log(
    `filled in ${((performance.now() - fillStarted) / 1000).toFixed(0)} s: ${Object.entries(
      counts ?? {},
    )
      .map(([name, count]) => `${count} ${name.replace('_', ' ')}`)
      .join(', ')}`,
  );

  const full = new Map<string, Figures>();
  for (const path of paths) full.set(path.name, await measure(path));

  const width = Math.max(...paths.map((path) => path.name.length));
  console.log(
    `${'path'.padEnd(width)}  empty req/s  p50 ms  p99 ms   full req/s  p50 ms  p99 ms  full/empty`,
  );
  let missed = 0;
  for (const path of paths) {
    const before = empty.get(path.name) as Figures;
    const after = full.get(path.name) as Figures;
    const ratio = after.perSecond / before.perSecond;
    if (ratio < MIN_RATIO) missed += 1;
    console.log(
      `${path.name.padEnd(width)}  ${before.perSecond.toFixed(0).padStart(11)}  ${before.p50.toFixed(2).padStart(6)}  ${before.p99.toFixed(2).padStart(6)}  ${after.perSecond.toFixed(0).padStart(11)}  ${after.p50.toFixed(2).padStart(6)}  ${after.p99.toFixed(2).padStart(6)}  ${ratio.toFixed(2).padStart(10)}`,
    );
  }
  console.log(
    `${missed === 0 ? 'holds' : 'MISSED'}: every path on the full store at ≥ ${MIN_RATIO} of its requests/s on the empty one (${paths.length - missed} of ${paths.length})`,
  );
}

runBench(main);
