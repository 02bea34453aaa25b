import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { ScheduleResponse, Workflow } from '@wap/contracts';
import { eventually, startSmtpReceiver, type SmtpReceiver } from '@wap/testing';
import {
  createWorkspace,
  http,
  RUNTIMES,
  signedInPerson,
  startStack,
  uniqueEmail,
  type Person,
  type TestStack,
} from './stack';

interface Mailbox extends Person {
  email: string;
}

/**
 * Told when it fails (issue 42 item 5, decision 160), on both runtimes with a real SMTP
 * receiver: one alert per workflow per interval with the count and the newest error, to the
 * owner and the chosen members only; a schedule that pauses itself after failures in a row and
 * says why on its page and in the alert; a save resumes it.
 */
describe.each(RUNTIMES)('failure alerts on the %s runtime', (runtime) => {
  let stack: TestStack;
  let receiver: SmtpReceiver;
  let server: Server;
  let origin: string;
  let owner: Mailbox;
  let member: Mailbox;
  let bystander: Mailbox;
  let workspaceId: string;

  async function mailbox(label: string): Promise<Mailbox> {
    const email = uniqueEmail(label);
    return { ...(await signedInPerson(stack, label, email)), email };
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"down":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    receiver = await startSmtpReceiver();
    stack = await startStack(runtime, {
      services: {
        workflowRunner: {
          HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1',
          SMTP_URL: receiver.url,
          MAIL_FROM: 'Alerts <alerts@example.com>',
          FAILURE_ALERTS_INTERVAL_MS: 100,
          SCHEDULER_INTERVAL_MS: 200,
        },
      },
    });
    owner = await mailbox('alert-owner');
    workspaceId = await createWorkspace(stack, owner, 'Alerts');
    member = await mailbox('alert-member');
    bystander = await mailbox('alert-bystander');
    for (const person of [member, bystander]) {
      const added = await http(`${stack.url}/workspaces/${workspaceId}/members`, {
        method: 'POST',
        cookie: owner.cookie,
        body: { email: person.email, role: 'member' },
      });
      expect(added.status).toBe(201);
    }
    const admin = await stack.cookieFor(uniqueEmail('alert-admin'), { platformAdmin: true });
    const granted = await http(`${stack.url}/workspaces/${workspaceId}/credits/grants`, {
      method: 'POST',
      cookie: admin,
      body: { amount: 500, reason: 'failure alerts spec' },
    });
    expect(granted.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function failingWorkflow(failureAlerts: unknown): Promise<Workflow> {
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId,
        name: `Nightly sync ${Math.random().toString(36).slice(2, 8)}`,
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'http_request', name: 'call', settings: { method: 'POST', url: origin } }],
        settings: { failureAlerts },
      },
    });
    expect(created.status).toBe(201);
    return (created.body as { workflow: Workflow }).workflow;
  }

  async function failedRuns(workflowId: string, count: number): Promise<string[]> {
    const runIds: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const started = await http(`${stack.url}/workflows/${workflowId}/run`, {
        method: 'POST',
        cookie: owner.cookie,
      });
      expect(started.status).toBe(202);
      runIds.push((started.body as { runId: string }).runId);
    }
    await eventually(async () => {
      const page = await http(`${stack.url}/workflows/${workflowId}/runs?status=failed`, {
        cookie: owner.cookie,
      });
      expect(
        (page.body as { counts: { by_status: { failed: number } } }).counts.by_status.failed,
      ).toBeGreaterThanOrEqual(count);
    }, 30_000);
    return runIds;
  }

  /** Moves the workflow's failures and its last alert back in time, as waiting would. */
  async function age(workflowId: string, seconds: number): Promise<void> {
    await stack.platform.sql.db.execute(sql`
      update workflow_runner.runs set finished_at = finished_at - make_interval(secs => ${seconds})
      where workflow_id = ${workflowId} and status = 'failed'`);
    await stack.platform.sql.db.execute(sql`
      update workflow_runner.workflows
      set last_alert_at = last_alert_at - make_interval(secs => ${seconds}),
        alerted_through = alerted_through - make_interval(secs => ${seconds})
      where id = ${workflowId}`);
  }

  const alertsFor = (address: string, workflowName: string) =>
    receiver.mailTo(address).filter((mail) => mail.subject?.endsWith(workflowName));

  test('one alert per interval, with the count and the newest error, to the owner and chosen members', async () => {
    const workflow = await failingWorkflow({
      enabled: true,
      memberIds: [member.userId],
      intervalMinutes: 5,
    });
    expect(workflow.settings.failureAlerts).toEqual({
      enabled: true,
      memberIds: [member.userId],
      intervalMinutes: 5,
    });
    const firstRuns = await failedRuns(workflow.id, 3);
    // Failures wait out a short settling time before they are counted.
    await age(workflow.id, 30);
    const first = await eventually(async () => {
      const mails = alertsFor(owner.email, workflow.name);
      expect(mails).toHaveLength(1);
      return mails[0];
    }, 30_000);
    expect(first?.subject).toBe(`Runs failed: ${workflow.name}`);
    expect(first?.text).toContain(`3 runs of the workflow "${workflow.name}" failed`);
    expect(first?.text).toContain('HTTP 503');
    expect(firstRuns.some((runId) => first?.text?.includes(`/runs/${runId}`))).toBe(true);
    await eventually(async () => expect(alertsFor(member.email, workflow.name)).toHaveLength(1));
    expect(alertsFor(bystander.email, workflow.name)).toHaveLength(0);

    // More failures inside the interval: no second email yet.
    await failedRuns(workflow.id, 5);
    // Long enough for them to settle (ten seconds): only the interval holds the alert back.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    expect(alertsFor(owner.email, workflow.name)).toHaveLength(1);

    // The interval passes: the next alert counts the new failures only.
    await stack.platform.sql.db.execute(sql`
      update workflow_runner.workflows set last_alert_at = last_alert_at - interval '5 minutes'
      where id = ${workflow.id}`);
    const second = await eventually(async () => {
      const mails = alertsFor(owner.email, workflow.name);
      expect(mails).toHaveLength(2);
      return mails[1];
    }, 30_000);
    expect(second?.text).toContain(`5 runs of the workflow "${workflow.name}" failed since`);
  }, 120_000);

  test('recipients are members only, and alerts off send nothing', async () => {
    const outsider = await mailbox('alert-outsider');
    const refused = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId,
        name: 'To an outsider',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'delay', name: 'wait', settings: { seconds: 1 } }],
        settings: { failureAlerts: { enabled: true, memberIds: [outsider.userId] } },
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      error: 'Alert recipients must be workspace members',
      details: [{ path: 'body.settings.failureAlerts.memberIds.0' }],
    });
    const tooOften = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId,
        name: 'Every minute',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'delay', name: 'wait', settings: { seconds: 1 } }],
        settings: { failureAlerts: { enabled: true, intervalMinutes: 1 } },
      },
    });
    expect(tooOften.status).toBe(400);

    const quiet = await failingWorkflow(null);
    await failedRuns(quiet.id, 2);
    await age(quiet.id, 30);
    // Turned on later: the failures before are not told of.
    const on = await http(`${stack.url}/workflows/${quiet.id}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { settings: { failureAlerts: { enabled: true } } },
    });
    expect(on.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(alertsFor(owner.email, quiet.name)).toHaveLength(0);
  }, 120_000);

  test('a schedule pauses itself after failures in a row, says why, and a save resumes it', async () => {
    const workflow = await failingWorkflow({ enabled: true });
    const live = await http(`${stack.url}/workflows/${workflow.id}/run`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(live.status).toBe(202);
    const published = await http(`${stack.url}/workflows/${workflow.id}/live`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(published.status).toBe(200);
    const schedule = {
      schedule_type: 'cron',
      cron_expression: '* * * * * *',
      pause_after_failures: 3,
    };
    const saved = await http(`${stack.url}/workflows/${workflow.id}/schedule`, {
      method: 'PUT',
      cookie: owner.cookie,
      body: schedule,
    });
    expect(saved.status).toBe(200);
    expect((saved.body as ScheduleResponse).schedule?.pause_after_failures).toBe(3);

    const paused = await eventually(async () => {
      const read = await http(`${stack.url}/workflows/${workflow.id}/schedule`, {
        cookie: owner.cookie,
      });
      const body = read.body as ScheduleResponse;
      expect(body.pausedForFailures).not.toBeNull();
      return body;
    }, 60_000);
    expect(paused.schedule?.is_enabled).toBe(false);
    expect(paused.nextFireAt).toBeNull();
    expect(paused.pausedForFailures?.reason).toMatch(
      /^Paused after 3 scheduled runs in a row failed\. The newest error: .*HTTP 503/u,
    );
    const runsWhenPaused = await scheduledRuns(workflow.id);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await scheduledRuns(workflow.id)).toBe(runsWhenPaused);

    // The alert says so, at once, whatever the interval.
    const mail = await eventually(async () => {
      const mails = receiver
        .mailTo(owner.email)
        .filter((item) => item.subject === `Schedule paused: ${workflow.name}`);
      expect(mails).toHaveLength(1);
      return mails[0];
    }, 30_000);
    expect(mail?.text).toContain('Its schedule stopped firing. Paused after 3 scheduled runs');
    expect(mail?.text).toContain(`/workflows/${workflow.id}/schedule`);

    const resumed = await http(`${stack.url}/workflows/${workflow.id}/schedule`, {
      method: 'PUT',
      cookie: owner.cookie,
      body: { ...schedule, pause_after_failures: 100 },
    });
    const body = resumed.body as ScheduleResponse;
    expect(body.schedule?.is_enabled).toBe(true);
    expect(body.pausedForFailures).toBeNull();
    await eventually(
      async () => expect(await scheduledRuns(workflow.id)).toBeGreaterThan(runsWhenPaused),
      30_000,
    );
    await http(`${stack.url}/workflows/${workflow.id}/schedule`, {
      method: 'PUT',
      cookie: owner.cookie,
      body: { ...schedule, is_enabled: false },
    });
  }, 120_000);

  async function scheduledRuns(workflowId: string): Promise<number> {
    const page = await http(`${stack.url}/workflows/${workflowId}/runs?trigger=schedule&limit=1`, {
      cookie: owner.cookie,
    });
    const counts = (page.body as { counts: { by_status: Record<string, number> } }).counts;
    return Object.values(counts.by_status).reduce((sum, count) => sum + count, 0);
  }
});
