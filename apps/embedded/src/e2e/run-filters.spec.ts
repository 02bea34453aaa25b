import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Run, RunCounts } from '@wap/contracts';
import { eventually } from '@wap/testing';
import { fundedWorkspace, http, RUNTIMES, startStack, type Person, type TestStack } from './stack';

interface RunsPage {
  runs: Pick<Run, 'id' | 'status' | 'trigger'>[];
  nextCursor: string | null;
  counts: RunCounts;
}

/**
 * The runs list's filters on both runtimes (issue 42 item 7): trigger, time range and event id
 * beside status, combined, paged, and counted by status whatever the status filter.
 */
describe.each(RUNTIMES)('finding runs on the %s runtime', (runtime) => {
  let stack: TestStack;
  let server: Server;
  let failing = true;
  let owner: Person;
  let workflowId: string;
  let webhookId: string;
  const manualRunIds: string[] = [];
  const webhookRunIds: string[] = [];
  let between: string;

  const list = async (query: string, who: Person = owner) =>
    http(`${stack.url}/workflows/${workflowId}/runs?${query}`, { cookie: who.cookie });
  const idsOf = async (query: string) => {
    const listed = await list(query);
    expect(listed.status).toBe(200);
    return (listed.body as RunsPage).runs.map((run) => run.id);
  };
  const ended = (runId: string) =>
    eventually(async () => {
      const { body } = await http(`${stack.url}/runs/${runId}`, { cookie: owner.cookie });
      expect((body as { run: { status: string } }).run.status).toMatch(/^(succeeded|failed)$/);
    }, 30_000);

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stack = await startStack(runtime, {
      services: { workflowRunner: { HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1' } },
    });
    const funded = await fundedWorkspace(stack, 'filters-owner', 100);
    owner = funded.owner;
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId: funded.workspaceId,
        name: 'Filtered',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'http_request', name: 'call', settings: { method: 'POST', url: origin } }],
      },
    });
    expect(created.status).toBe(201);
    ({
      workflow: { id: workflowId },
      webhook: { id: webhookId },
    } = created.body as { workflow: { id: string }; webhook: { id: string } });

    for (let count = 0; count < 3; count += 1) {
      const run = await http(`${stack.url}/workflows/${workflowId}/run`, {
        method: 'POST',
        cookie: owner.cookie,
      });
      expect(run.status).toBe(202);
      const { runId } = run.body as { runId: string };
      manualRunIds.push(runId);
      await ended(runId);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    between = new Date().toISOString();
    failing = false;
    const live = await http(`${stack.url}/workflows/${workflowId}/live`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(live.status).toBe(200);
    for (let count = 0; count < 2; count += 1) {
      await eventually(async () => {
        const triggered = await http(`${stack.url}/webhooks/${webhookId}`, {
          method: 'POST',
          body: { order: count },
        });
        expect(triggered.body).toMatchObject({ triggered: 1 });
      });
      const runId = await eventually(async () => {
        const [newest = ''] = await idsOf('trigger=custom_webhook&limit=1');
        expect(newest).not.toBe('');
        expect(webhookRunIds).not.toContain(newest);
        return newest;
      }, 30_000);
      webhookRunIds.push(runId);
      await ended(runId);
    }
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  const newestFirst = (ids: string[]) => [...ids].reverse();

  test('by trigger, status and time range, each alone and together', async () => {
    expect(await idsOf('trigger=manual')).toEqual(newestFirst(manualRunIds));
    expect(await idsOf('trigger=custom_webhook')).toEqual(newestFirst(webhookRunIds));
    expect(await idsOf('status=failed')).toEqual(newestFirst(manualRunIds));
    expect(await idsOf('trigger=custom_webhook&status=failed')).toEqual([]);
    expect(await idsOf(`created_after=${between}`)).toEqual(newestFirst(webhookRunIds));
    expect(await idsOf(`created_before=${between}`)).toEqual(newestFirst(manualRunIds));
    expect(await idsOf(`created_before=${between}&status=succeeded`)).toEqual([]);
    expect(await idsOf('trigger=schedule')).toEqual([]);
  });

  test('by the event that started a run', async () => {
    const listed = (await list('trigger=custom_webhook')).body as RunsPage;
    const eventIds = listed.runs.map((run) => run.trigger.event_id);
    expect(eventIds).toEqual([expect.any(String), expect.any(String)]);
    expect(await idsOf(`event_id=${eventIds[0]}`)).toEqual([listed.runs[0]?.id]);
    expect(await idsOf(`event_id=${crypto.randomUUID()}`)).toEqual([]);
  });

  test('a filtered list pages by cursor, a trigger alone too', async () => {
    const first = (await list('trigger=manual&limit=2')).body as RunsPage;
    expect(first.runs.map((run) => run.id)).toEqual(newestFirst(manualRunIds).slice(0, 2));
    expect(first.nextCursor).not.toBeNull();
    const second = (
      await list(`trigger=manual&limit=2&cursor=${encodeURIComponent(first.nextCursor ?? '')}`)
    ).body as RunsPage;
    expect(second.runs.map((run) => run.id)).toEqual(newestFirst(manualRunIds).slice(2));
    expect(second.nextCursor).toBeNull();
  });

  test('counts by status follow every filter but the status', async () => {
    const all = ((await list('status=succeeded')).body as RunsPage).counts;
    expect(all).toEqual({
      by_status: {
        queued: 0,
        running: 0,
        waiting_approval: 0,
        succeeded: 2,
        failed: 3,
        cancelled: 0,
      },
      capped: false,
    });
    const webhooks = ((await list('trigger=custom_webhook')).body as RunsPage).counts;
    expect(webhooks.by_status).toMatchObject({ succeeded: 2, failed: 0 });
    const early = ((await list(`created_before=${between}`)).body as RunsPage).counts;
    expect(early.by_status).toMatchObject({ succeeded: 0, failed: 3 });
  });

  test('a filter that cannot be read is a 400 naming it', async () => {
    const cases: [string, RegExp][] = [
      ['trigger=telepathy', /trigger/],
      ['event_id=last-night', /event_id/],
      ['created_after=yesterday', /created_after/],
      [`created_after=${between}&created_before=${between}`, /created_after must be before/],
    ];
    for (const [query, message] of cases) {
      const refused = await list(query);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(JSON.stringify(refused.body)).toMatch(message);
    }
  });
});
