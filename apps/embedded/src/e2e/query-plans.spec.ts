import { Client, type Pool, type QueryConfig } from 'pg';
import { eventually } from '@wap/testing';
import { http, newWorkspaceOwner, startStack, type TestStack, type WorkspaceOwner } from './stack';

interface RecordedQuery {
  text: string;
  values: unknown[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Schema?: string;
  Plans?: PlanNode[];
}

/** Statements that read no table of ours, or that EXPLAIN cannot take. */
const NOT_PLANNED =
  /^\s*(begin|commit|rollback|savepoint|release|set|select pg_|select 1\b|select \$1|lock |listen|notify)/i;

/** The tables each plan reads without an index, as `schema.table`. */
function sequentialScans(node: PlanNode, found: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) {
    found.push(`${node.Schema ?? ''}.${node['Relation Name']}`);
  }
  for (const child of node.Plans ?? []) sequentialScans(child, found);
  return found;
}

/**
 * Issue 29 item 4: every query of the hot paths uses an index. Each path runs through the
 * gateway on the distributed runtime while every statement the services send to PostgreSQL is
 * recorded; each one is then planned again (EXPLAIN, with its own parameters) with sequential
 * scans made the last resort (`enable_seqscan = off`), so that a sequential scan in the plan
 * means no index can serve that query, whatever the size of the test's tables.
 */
describe('query plans of the hot paths on the distributed runtime', () => {
  let stack: TestStack;
  let owner: WorkspaceOwner;
  let recording = false;
  const recorded: RecordedQuery[] = [];
  const originalQuery = Client.prototype.query;

  beforeAll(async () => {
    stack = await startStack('distributed');
    owner = await newWorkspaceOwner(stack, 'plans');
    const admin = await stack.cookieFor('plans-admin@example.com', { platformAdmin: true });
    const granted = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits/grants`, {
      method: 'POST',
      cookie: admin,
      body: { amount: 100, reason: 'e2e' },
    });
    expect(granted.status).toBe(201);
    // Every statement of every service goes through a pg Client of this process.
    (Client.prototype as { query: unknown }).query = function recordingQuery(
      this: Client,
      ...args: unknown[]
    ) {
      const [first, second] = args;
      if (recording) {
        // query(text, values), query(config) or, as drizzle calls it, query(config, values).
        const config = (typeof first === 'string' ? { text: first } : (first ?? {})) as QueryConfig;
        const values = Array.isArray(second) ? second : config.values;
        if (typeof config.text === 'string') {
          recorded.push({ text: config.text, values: Array.isArray(values) ? values : [] });
        }
      }
      return (originalQuery as (...parameters: unknown[]) => unknown).apply(this, args);
    };
  }, 60_000);
  afterAll(async () => {
    Client.prototype.query = originalQuery;
    await stack?.stop();
  });

  async function during(path: () => Promise<void>): Promise<RecordedQuery[]> {
    recorded.length = 0;
    recording = true;
    try {
      await path();
    } finally {
      recording = false;
    }
    return [...recorded];
  }

  async function call(method: string, path: string, body?: unknown) {
    const response = await http(`${stack.url}${path}`, { method, cookie: owner.cookie, body });
    expect(response.status).toBeLessThan(300);
    return response.body as Record<string, unknown>;
  }

  /**
   * Each distinct statement planned again (after recording stopped: these are not recorded);
   * answers those whose plan scans a table whole.
   */
  async function withoutIndex(
    queries: RecordedQuery[],
  ): Promise<{ planned: number; findings: string[] }> {
    const pool = (stack.platform.sql.db as unknown as { $client: Pool }).$client;
    const client = await pool.connect();
    const findings: string[] = [];
    const seen = new Set<string>();
    try {
      for (const query of queries) {
        if (NOT_PLANNED.test(query.text) || seen.has(query.text)) continue;
        seen.add(query.text);
        await client.query('BEGIN');
        try {
          await client.query('SET LOCAL enable_seqscan = off');
          const result = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>({
            text: `EXPLAIN (FORMAT JSON, VERBOSE) ${query.text}`,
            values: query.values,
          });
          const plan = result.rows[0]?.['QUERY PLAN'][0]?.Plan;
          const scans = plan ? sequentialScans(plan) : [];
          if (scans.length > 0) findings.push(`${scans.join(', ')} ← ${query.text}`);
        } finally {
          await client.query('ROLLBACK');
        }
      }
    } finally {
      client.release();
    }
    return { planned: seen.size, findings };
  }

  test('the check finds a query no index serves', async () => {
    const unindexed = 'select id from storage.table_rows where cells ? $1';
    expect(await withoutIndex([{ text: unindexed, values: ['name'] }])).toEqual({
      planned: 1,
      findings: [`storage.table_rows ← ${unindexed}`],
    });
  });

  test('a webhook request, the run it starts, and the run list page', async () => {
    const created = await call('POST', '/workflows', {
      workspaceId: owner.workspaceId,
      name: 'Planned',
      trigger: { type: 'custom_webhook' },
      steps: [{ type: 'delay', name: 'pause', settings: { seconds: 0 } }],
    });
    const workflowId = (created['workflow'] as { id: string }).id;
    const webhookId = (created['webhook'] as { id: string }).id;
    const firstRun = await call('POST', `/workflows/${workflowId}/run`);
    const runStatus = async (runId: string) =>
      ((await call('GET', `/runs/${runId}`))['run'] as { status: string }).status;
    await eventually(async () =>
      expect(await runStatus(firstRun['runId'] as string)).toBe('succeeded'),
    );
    await call('POST', `/workflows/${workflowId}/live`);

    const queries = await during(async () => {
      const answer = await http(`${stack.url}/webhooks/${webhookId}`, {
        method: 'POST',
        body: { order: { id: 1 } },
      });
      expect(answer.status).toBe(200);
      await eventually(async () => {
        const { runs } = (await call('GET', `/workflows/${workflowId}/runs`)) as {
          runs: Array<{ status: string }>;
        };
        expect(runs.filter((run) => run.status === 'succeeded')).toHaveLength(2);
      });
    });
    const { planned, findings } = await withoutIndex(queries);
    // The answer's statements and the run's: a check of none would prove nothing.
    expect(planned).toBeGreaterThanOrEqual(5);
    expect(findings).toEqual([]);
  }, 60_000);

  test('opening a chat: the list of chats and its messages', async () => {
    const created = await call('POST', '/ai-chat/conversations', {
      workspaceId: owner.workspaceId,
    });
    const conversationId = (created['conversation'] as { id: string }).id;
    const queries = await during(async () => {
      await call('GET', `/ai-chat/conversations?workspaceId=${owner.workspaceId}`);
      await call('GET', `/ai-chat/conversations/${conversationId}`);
      await call('GET', `/ai-chat/conversations/${conversationId}/messages`);
    });
    const { planned, findings } = await withoutIndex(queries);
    expect(planned).toBeGreaterThanOrEqual(3);
    expect(findings).toEqual([]);
  });

  test("a contact's notes page", async () => {
    const { contact } = (await call('POST', '/contacts', {
      workspaceId: owner.workspaceId,
      name: 'Ada Lovelace',
    })) as { contact: { id: string } };
    await call('POST', `/contacts/${contact.id}/notes`, { title: 'Met', content: 'at the fair' });
    const queries = await during(async () => {
      await call('GET', `/contacts/${contact.id}/notes`);
      await call('GET', `/contacts?workspaceId=${owner.workspaceId}`);
    });
    const { planned, findings } = await withoutIndex(queries);
    expect(planned).toBeGreaterThanOrEqual(3);
    expect(findings).toEqual([]);
  });

  test('split-name of a table', async () => {
    const { table } = (await call('POST', '/tables', {
      workspaceId: owner.workspaceId,
      name: 'People',
    })) as { table: { id: string } };
    const property = async (name: string) =>
      (
        (await call('POST', `/tables/${table.id}/properties`, { name, type: 'text' }))[
          'property'
        ] as { id: string }
      ).id;
    const source = await property('Full name');
    const target = await property('Last name');
    await call('POST', `/tables/${table.id}/rows`, { cells: { [source]: 'Ada Lovelace' } });
    const queries = await during(async () => {
      await call('POST', `/tables/${table.id}/split-name`, {
        sourcePropertyId: source,
        targetPropertyId: target,
      });
      await call('GET', `/tables/${table.id}/rows`);
    });
    const { planned, findings } = await withoutIndex(queries);
    expect(planned).toBeGreaterThanOrEqual(4);
    expect(findings).toEqual([]);
  });
});
