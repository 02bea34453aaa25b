import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '@wap/testing';
import {
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAppPage,
  screenshot,
  signIn,
} from './browser';
import { startPlatform, type RunningPlatform } from './platform';

const unique = randomBytes(4).toString('hex');
const email = `policies-${unique}@example.com`;
const WORKSPACE = 'Flaky Partners';
const TEST_TIMEOUT_MS = 180_000;

/**
 * A step's retries and a run's controls in a browser (issue 42 items 1, 3 and 4, decisions 155
 * to 157): a person turns on retries for a request to a flaky server in the step's form and
 * saves; the run page shows each attempt, retries a failed run and cancels one asleep in a delay.
 */
describe('step policies in a browser', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let server: Server;
  let origin: string;
  /** The flaky server's answers still to give: the last one repeats. */
  const answers = [503, 200];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      const status = answers.length > 1 ? (answers.shift() ?? 200) : (answers[0] ?? 200);
      res.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    platform = await startPlatform({ HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1' });
    browser = await launchBrowser();
    page = await openAppPage(browser, platform);
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
  /** The workspace the first test creates, and its owner's cookie, for the tests after it. */
  let workspaceId = '';
  let cookie = '';

  /** A workflow made through the API and run `times` times; answers the run ids. */
  async function workflowRun(name: string, steps: unknown[], times: number) {
    const created = await platform.api('/workflows', {
      method: 'POST',
      cookie,
      body: { workspaceId, name, trigger: { type: 'custom_webhook' }, steps },
    });
    expect(created.status).toBe(201);
    const { workflow } = (await created.json()) as { workflow: { id: string } };
    const runIds: string[] = [];
    for (let run = 0; run < times; run += 1) {
      const started = await platform.api(`/workflows/${workflow.id}/run`, {
        method: 'POST',
        cookie,
      });
      expect(started.status).toBe(202);
      runIds.push(((await started.json()) as { runId: string }).runId);
    }
    return { workflowId: workflow.id, runIds };
  }

  test(
    'retries set in the step form are saved, and the run page lists every attempt',
    async () => {
      await signIn(page, email);
      await page.getByRole('textbox', { name: 'Workspace name' }).fill(WORKSPACE);
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await heading(WORKSPACE).waitFor();
      workspaceId = new URL(page.url()).pathname.split('/').pop() ?? '';
      const granted = await platform.api(`/workspaces/${workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: await platform.sessionCookie('admin@example.com', { platformAdmin: true }),
        body: { amount: 10, reason: 'e2e' },
      });
      expect(granted.status).toBe(201);
      cookie = await platform.sessionCookie(email);
      const created = await platform.api('/workflows', {
        method: 'POST',
        cookie,
        body: {
          workspaceId,
          name: 'Notify the partner',
          trigger: { type: 'custom_webhook' },
          steps: [
            { type: 'http_request', name: 'notify', settings: { method: 'POST', url: origin } },
          ],
        },
      });
      expect(created.status).toBe(201);
      const { workflow } = (await created.json()) as { workflow: { id: string } };

      await page.goto(`/app/w/${workspaceId}/workflows/${workflow.id}`);
      await heading('Notify the partner').waitFor();
      await page.getByText('Retries, timeout and failure').click();
      await page.getByRole('switch', { name: 'Retry when it fails' }).check();
      await page.getByRole('textbox', { name: 'Attempts in all' }).fill('1');
      await page.getByRole('button', { name: 'Save workflow' }).click();
      await page.getByText('Use a whole number from 2 to 10').waitFor();
      await page.getByRole('textbox', { name: 'Attempts in all' }).fill('3');
      await page.getByRole('combobox', { name: 'Wait between attempts' }).selectOption('fixed');
      await page.getByRole('textbox', { name: 'First wait (seconds)' }).fill('0.2');
      await page.getByRole('switch', { name: 'Spread the waits' }).uncheck();
      await page.getByRole('textbox', { name: 'Timeout per attempt (seconds)' }).fill('5');
      await page.getByRole('combobox', { name: 'If it still fails' }).selectOption('continue');
      await page.getByText('Idempotency-Key', { exact: true }).waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'step-policy');
      await page.getByRole('button', { name: 'Save workflow' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const saved = await platform.api(`/workflows/${workflow.id}`, { cookie });
      const { workflow: stored } = (await saved.json()) as {
        workflow: { steps: Record<string, unknown>[] };
      };
      expect(stored.steps[0]).toMatchObject({
        retry: { attempts: 3, backoff: 'fixed', delayMs: 200, jitter: false },
        timeoutMs: 5_000,
        onFailure: { action: 'continue' },
      });

      const started = await platform.api(`/workflows/${workflow.id}/run`, {
        method: 'POST',
        cookie,
      });
      expect(started.status).toBe(202);
      const { runId } = (await started.json()) as { runId: string };
      await page.goto(`/app/w/${workspaceId}/workflows/${workflow.id}/runs/${runId}`);
      const attempts = page.getByRole('table', { name: 'Attempts' });
      await attempts.getByText('The server answered HTTP 503').waitFor({ timeout: 30_000 });
      await attempts.getByRole('cell', { name: 'Succeeded' }).waitFor();
      await page.getByText('2 attempts').waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'run-attempts');

      // A run that failed is retried from its page, as a new run linked to it.
      answers.splice(0, answers.length, 503, 200);
      const plain = await platform.api(`/workflows/${workflow.id}`, {
        method: 'PATCH',
        cookie,
        body: {
          steps: [
            { type: 'http_request', name: 'notify', settings: { method: 'POST', url: origin } },
          ],
        },
      });
      expect(plain.status).toBe(200);
      const failing = await platform.api(`/workflows/${workflow.id}/run`, {
        method: 'POST',
        cookie,
      });
      const { runId: failedRun } = (await failing.json()) as { runId: string };
      await page.goto(`/app/w/${workspaceId}/workflows/${workflow.id}/runs/${failedRun}`);
      await page
        .getByRole('button', { name: 'Retry from the failed step' })
        .click({ timeout: 30_000 });
      await page.getByRole('link', { name: 'the run before' }).waitFor();
      await page.getByText('Succeeded').first().waitFor();
      expect(page.url()).not.toContain(failedRun);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'run-retry');
      // The run before lists its retry, linked.
      await page.getByRole('link', { name: 'the run before' }).click();
      const retries = page.getByRole('region', { name: 'Retried as' });
      await retries.getByRole('link', { name: 'Attempt 2' }).waitFor();

      // A run asleep in a long delay is cancelled from its page.
      const sleeper = await platform.api('/workflows', {
        method: 'POST',
        cookie,
        body: {
          workspaceId,
          name: 'Waits a day',
          trigger: { type: 'custom_webhook' },
          steps: [{ type: 'delay', name: 'wait', settings: { seconds: 86_400 } }],
        },
      });
      const { workflow: sleeping } = (await sleeper.json()) as { workflow: { id: string } };
      const run = await platform.api(`/workflows/${sleeping.id}/run`, { method: 'POST', cookie });
      const { runId: sleepingRun } = (await run.json()) as { runId: string };
      await page.goto(`/app/w/${workspaceId}/workflows/${sleeping.id}/runs/${sleepingRun}`);
      await page.getByRole('button', { name: 'Cancel this run' }).click();
      await page.getByRole('group', { name: 'Confirm: Cancel this run' }).waitFor();
      await screenshot(page, 'run-cancel');
      await page
        .getByRole('group', { name: 'Confirm: Cancel this run' })
        .getByRole('button', { name: 'Cancel this run' })
        .click();
      await page.getByText('The run was cancelled').first().waitFor();
      await page
        .getByText('This page follows the run until it ends.')
        .waitFor({ state: 'detached' });
      await expectNoSeriousA11yViolations(page);
    },
    TEST_TIMEOUT_MS,
  );
  test(
    'the runs list replays its failed runs and cancels its waiting ones in bulk, with progress',
    async () => {
      answers.splice(0, answers.length, 503);
      const failing = await workflowRun(
        'Sync the ledger',
        [{ type: 'http_request', name: 'sync', settings: { method: 'POST', url: origin } }],
        3,
      );
      for (const runId of failing.runIds) {
        await eventually(async () => {
          const answer = await platform.api(`/runs/${runId}`, { cookie });
          const { run } = (await answer.json()) as { run: { status: string } };
          expect(run.status).toBe('failed');
        }, 30_000);
      }
      answers.splice(0, answers.length, 200);
      await page.goto(`/app/w/${workspaceId}/workflows/${failing.workflowId}/runs?status=failed`);
      await heading('Runs of Sync the ledger').waitFor();
      await page.getByRole('combobox', { name: 'Replay from' }).selectOption('start');
      await page.getByRole('button', { name: 'Replay 3 runs that ended' }).click();
      await page.getByRole('status').filter({ hasText: 'Replay started for 3 runs' }).waitFor();
      const batches = page.getByRole('list', { name: 'Replays and bulk cancels' });
      const replay = batches.getByRole('listitem').filter({ hasText: 'Replay from the start' });
      await replay.getByText('3 of 3 done: 3 started').waitFor({ timeout: 30_000 });
      await replay.getByText(/· Done$/).waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'run-batch-replay');
      // The replays ran: the succeeded filter keeps the three replays (a header row and three).
      await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Succeeded' });
      await eventually(async () => {
        const rows = page.getByRole('region', { name: 'Runs' }).getByRole('row');
        expect(await rows.count()).toBe(4);
      }, 30_000);

      const waiting = await workflowRun(
        'Waits a week',
        [{ type: 'delay', name: 'wait', settings: { seconds: 604_800 } }],
        2,
      );
      await page.goto(`/app/w/${workspaceId}/workflows/${waiting.workflowId}/runs`);
      await page.getByText('Cancel 2 runs not ended').click();
      const confirm = page.getByRole('group', {
        name: 'Confirm: Cancel every matching run not ended',
      });
      await confirm.getByRole('button', { name: 'Cancel every matching run not ended' }).click();
      const cancel = batches.getByRole('listitem').filter({ hasText: 'Cancel' });
      await cancel.getByText('2 of 2 done: 2 cancelled').waitFor({ timeout: 30_000 });
      await page.getByText('Cancel 2 runs not ended').waitFor({
        state: 'detached',
        timeout: 30_000,
      });
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'run-batch-cancel');
    },
    TEST_TIMEOUT_MS,
  );
});
