import { randomUUID } from 'node:crypto';
import {
  http,
  newWorkspaceOwner,
  RUNTIMES,
  startStack,
  type TestStack,
  type WorkspaceOwner,
} from './stack';

type Member = WorkspaceOwner;

describe.each(RUNTIMES)('workflow schedules (endpoint 9) on the %s runtime', (runtime) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(runtime);
  });
  afterAll(async () => {
    await stack.stop();
  });

  const newMember = (label: string) => newWorkspaceOwner(stack, label);

  async function newWorkflow(member: Member): Promise<string> {
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: member.cookie,
      body: {
        workspaceId: member.workspaceId,
        name: 'Nightly',
        trigger: { type: 'custom_webhook' },
        steps: [],
      },
    });
    expect(created.status).toBe(201);
    return (created.body as { workflow: { id: string } }).workflow.id;
  }

  test('no schedule, then a saved one with every field and its next fire', async () => {
    const member = await newMember('schedule');
    const workflowId = await newWorkflow(member);
    const before = await http(`${stack.url}/workflows/${workflowId}/schedule`, {
      cookie: member.cookie,
    });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      schedule: null,
      hasSchedule: false,
      nextFireAt: null,
      pausedForFailures: null,
    });

    const put = await http(`${stack.url}/workflows/${workflowId}/schedule`, {
      method: 'PUT',
      cookie: member.cookie,
      body: {
        schedule_type: 'cron',
        cron_expression: '30 2 * * *',
        timezone: 'Europe/Berlin',
        max_runs_per_day: 3,
        queue_outside_window: false,
        stop_on_node_failure: false,
      },
    });
    expect(put.status).toBe(200);
    const after = await http(`${stack.url}/workflows/${workflowId}/schedule`, {
      cookie: member.cookie,
    });
    expect(after.body).toEqual(put.body);
    expect(after.body).toEqual({
      schedule: {
        workflow_id: workflowId,
        is_enabled: true,
        timezone: 'Europe/Berlin',
        schedule_type: 'cron',
        cron_expression: '30 2 * * *',
        interval_minutes: null,
        max_runs_per_day: 3,
        queue_outside_window: false,
        stop_on_node_failure: false,
        pause_after_failures: null,
        updated_at: expect.any(String),
      },
      hasSchedule: true,
      nextFireAt: expect.any(String),
      pausedForFailures: null,
    });
    const next = new Date((after.body as { nextFireAt: string }).nextFireAt);
    const berlin = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(['02:30', '03:00']).toContain(berlin.format(next));
    // The schedule's window options are the workflow's own.
    const workflow = await http(`${stack.url}/workflows/${workflowId}`, { cookie: member.cookie });
    expect(workflow.body).toMatchObject({
      workflow: { settings: { queueOutsideWindow: false, stopOnNodeFailure: false } },
    });

    const interval = await http(`${stack.url}/workflows/${workflowId}/schedule`, {
      method: 'PUT',
      cookie: member.cookie,
      body: { schedule_type: 'interval', interval_minutes: 15, is_enabled: false },
    });
    expect(interval.status).toBe(200);
    expect(interval.body).toMatchObject({
      schedule: {
        schedule_type: 'interval',
        interval_minutes: 15,
        cron_expression: null,
        is_enabled: false,
      },
      nextFireAt: null,
    });
  });

  test('bad schedules are 400 VALIDATION_ERROR with details', async () => {
    const member = await newMember('bad-schedule');
    const workflowId = await newWorkflow(member);
    const cases: [string, Record<string, unknown>, string][] = [
      ['a bad cron', { schedule_type: 'cron', cron_expression: '61 * * * *' }, 'cron_expression'],
      [
        'seven cron fields',
        { schedule_type: 'cron', cron_expression: '0 0 0 1 1 * 2026' },
        'cron_expression',
      ],
      [
        'a bad timezone',
        { schedule_type: 'interval', interval_minutes: 5, timezone: 'Mars/Base' },
        'timezone',
      ],
      ['an interval of 0', { schedule_type: 'interval', interval_minutes: 0 }, 'interval_minutes'],
      [
        'an interval of a year',
        { schedule_type: 'interval', interval_minutes: 525_600 },
        'interval_minutes',
      ],
      ['cron without an expression', { schedule_type: 'cron' }, 'cron_expression'],
      [
        'both kinds at once',
        { schedule_type: 'interval', interval_minutes: 5, cron_expression: '* * * * *' },
        'cron_expression',
      ],
      ['an unknown type', { schedule_type: 'hourly' }, 'schedule_type'],
    ];
    for (const [label, body, field] of cases) {
      const response = await http(`${stack.url}/workflows/${workflowId}/schedule`, {
        method: 'PUT',
        cookie: member.cookie,
        body,
      });
      expect({ label, status: response.status }).toEqual({ label, status: 400 });
      expect(response.body).toMatchObject({
        error: expect.any(String),
        code: 'VALIDATION_ERROR',
        details: expect.arrayContaining([expect.objectContaining({ path: `body.${field}` })]),
      });
    }
    const badId = await http(`${stack.url}/workflows/not-a-uuid/schedule`, {
      cookie: member.cookie,
    });
    expect(badId.status).toBe(400);
    expect(badId.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [expect.objectContaining({ path: 'params.workflowId' })],
    });
  });

  test('a member of another workspace, and an unknown workflow: 404 with details', async () => {
    const owner = await newMember('owner');
    const outsider = await newMember('outsider');
    const workflowId = await newWorkflow(owner);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { schedule_type: 'interval', interval_minutes: 5 }],
    ] as const) {
      const response = await http(`${stack.url}/workflows/${workflowId}/schedule`, {
        method,
        cookie: outsider.cookie,
        body,
      });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        error: 'Workflow not found',
        code: 'NOT_FOUND',
        details: { workflowId },
      });
    }
    const fires = await http(`${stack.url}/workflows/${workflowId}/schedule/fires`, {
      cookie: outsider.cookie,
    });
    expect(fires.status).toBe(404);
    const unknown = randomUUID();
    const missing = await http(`${stack.url}/workflows/${unknown}/schedule`, {
      cookie: owner.cookie,
    });
    expect(missing.body).toEqual({
      error: 'Workflow not found',
      code: 'NOT_FOUND',
      details: { workflowId: unknown },
    });
    const unauthenticated = await http(`${stack.url}/workflows/${workflowId}/schedule`);
    expect(unauthenticated.status).toBe(401);
  });
});
