import { randomBytes } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Workflow } from '@wap/contracts';
import {
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAppPage,
  screenshot,
  signIn,
} from './browser';
import { startPlatform, type RunningPlatform } from './platform';

const unique = randomBytes(4).toString('hex');
const email = `builder-${unique}@example.com`;
const WORKSPACE = 'Order Desk';
/** Runs and test events are polled every few seconds: waits allow for several polls. */
const POLLED = { timeout: 30_000 };
const TEST_TIMEOUT_MS = 180_000;

describe('workflows, runs, schedules and approvals in a browser', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let webhookAddress = '';

  beforeAll(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    page = await openAppPage(browser, platform);
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const nav = () => page.getByRole('navigation', { name: `${WORKSPACE} workspace` });
  const tabs = () => page.getByRole('navigation', { name: 'Workflow' });
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
  const alert = (text: string | RegExp) => page.getByRole('alert').filter({ hasText: text });

  /** Calls the webhook address from outside the browser, as curl does. */
  async function callWebhook(body: unknown): Promise<{ status: number; json: unknown }> {
    const response = await fetch(webhookAddress, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: await response.json() };
  }

  /** Waits until the table shows `rows` runs (the list refreshes itself every few seconds). */
  async function waitForRowCount(table: Locator, rows: number): Promise<void> {
    const deadline = Date.now() + POLLED.timeout;
    let count = await table.getByRole('row').count();
    while (count !== rows + 1 /* the header row */ && Date.now() < deadline) {
      await page.waitForTimeout(250);
      count = await table.getByRole('row').count();
    }
    expect(count - 1).toBe(rows);
  }

  test(
    'a person creates a workspace, is granted credits, and finds no workflows yet',
    async () => {
      await signIn(page, email);
      await page.getByRole('heading', { name: 'Create your first workspace' }).waitFor();
      await page.getByRole('textbox', { name: 'Workspace name' }).fill(WORKSPACE);
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await heading(WORKSPACE).waitFor();
      const workspaceId = new URL(page.url()).pathname.split('/').pop() ?? '';
      const granted = await platform.api(`/workspaces/${workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: await platform.sessionCookie('admin@example.com', { platformAdmin: true }),
        body: { amount: 50, reason: 'e2e' },
      });
      expect(granted.status).toBe(201);

      await nav().getByRole('link', { name: 'Workflows' }).click();
      await heading('Workflows').waitFor();
      await page.getByRole('heading', { name: 'No workflows yet' }).waitFor();
      await expectNoSeriousA11yViolations(page);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'a workflow is built from a delay and an approval step, in forms generated from their schemas',
    async () => {
      await page.getByRole('link', { name: 'New workflow' }).click();
      await heading('New workflow').waitFor();
      await page.getByRole('textbox', { name: 'Workflow name' }).fill('Orders');

      const stepType = page.getByRole('combobox', { name: 'Step type' });
      await stepType.selectOption({ label: 'Delay (free)' });
      await page.getByRole('button', { name: 'Add step' }).click();
      const delay = page.getByRole('group', { name: 'Step 1 · Delay' });
      await delay.waitFor();
      // The new step's name takes the focus, prefilled with its type.
      const delayName = delay.getByRole('textbox', { name: 'Step name' });
      expect(await delayName.evaluate((input) => input === document.activeElement)).toBe(true);
      expect(await delayName.inputValue()).toBe('Delay');

      await stepType.selectOption({ label: 'Approval (free)' });
      await page.getByRole('button', { name: 'Add step' }).click();
      const approval = page.getByRole('group', { name: 'Step 2 · Approval' });
      // The reviewer is the signed-in person, ticked among the workspace's members.
      await approval.getByRole('checkbox', { name: new RegExp(`${email}.*you`) }).check();
      await approval
        .getByRole('textbox', { name: 'Message' })
        .fill('Ship order {{Custom Webhook.order.id}}?');
      await page.getByText('Runs are free.').waitFor();

      // Seconds is required by the delay's schema: the form says so before sending.
      await page.getByRole('button', { name: 'Create workflow' }).click();
      await alert('Some values need fixing').waitFor();
      const seconds = delay.getByRole('spinbutton', { name: 'Seconds' });
      expect(await seconds.getAttribute('aria-invalid')).toBe('true');
      await delay.getByText('Enter a value.').waitFor();
      expect(await seconds.evaluate((input) => input === document.activeElement)).toBe(true);
      await seconds.fill('1');

      // Steps move; the focus stays on the moved step's button.
      await approval.getByRole('button', { name: 'Move up step 2' }).click();
      const approvalFirst = page.getByRole('group', { name: 'Step 1 · Approval' });
      await approvalFirst.waitFor();
      const moveDown = approvalFirst.getByRole('button', { name: 'Move down step 1' });
      expect(await moveDown.evaluate((button) => button === document.activeElement)).toBe(true);
      await moveDown.click();
      await page.getByRole('group', { name: 'Step 2 · Approval' }).waitFor();
      await expectNoSeriousA11yViolations(page);

      // Failure alerts: off by default; on, every hour unless told otherwise.
      await page.getByRole('switch', { name: 'Email when runs fail' }).check();
      const interval = page.getByRole('textbox', { name: 'Minutes between alerts' });
      expect(await interval.inputValue()).toBe('60');
      await interval.fill('2');
      await page.getByRole('button', { name: 'Create workflow' }).click();
      await page.getByText('Use whole minutes from 5 to 1440.').waitFor();
      await interval.fill('30');

      await page.getByRole('button', { name: 'Create workflow' }).click();
      await heading('Orders').waitFor();
      await status('Workflow created in draft.').waitFor();
      const workflowId = new URL(page.url()).pathname.split('/').pop() ?? '';
      const saved = await platform.api(`/workflows/${workflowId}`, {
        cookie: await platform.sessionCookie(email),
      });
      expect(
        ((await saved.json()) as { workflow: Workflow }).workflow.settings.failureAlerts,
      ).toEqual({ enabled: true, memberIds: [], intervalMinutes: 30 });
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'a test event captured at the webhook address appears, opens, and is run on; setting live needs a Run',
    async () => {
      const address = page.getByRole('textbox', { name: 'Webhook address' });
      webhookAddress = await address.inputValue();
      expect(webhookAddress).toMatch(/\/webhooks\/[0-9a-f-]{36}$/);
      await page.getByRole('button', { name: 'Copy address' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(webhookAddress);
      const curl = await page.getByRole('textbox', { name: 'curl command' }).inputValue();
      expect(curl).toContain(`curl -X POST '${webhookAddress}'`);
      await page.getByRole('button', { name: 'Copy curl command' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(curl);

      await page.getByRole('button', { name: 'Set live' }).click();
      await alert('Run the workflow at least once before setting it live').waitFor();

      const inactive = await callWebhook({ order: { id: 7 } });
      expect(inactive).toEqual({
        status: 200,
        json: expect.objectContaining({ message: 'Webhook is inactive. Test payload saved.' }),
      });
      const events = page.getByRole('region', { name: 'Test events' });
      const event = events.getByRole('listitem').filter({ hasText: '{"order":{"id":7}}' });
      await event.waitFor(POLLED);
      await event.getByText(/^Received/).click();
      const headers = event.getByRole('table', { name: 'Headers' });
      await headers.getByRole('cell', { name: 'content-type' }).waitFor();
      await headers.getByRole('cell', { name: 'application/json' }).waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'workflow-editor');

      await event.getByRole('button', { name: 'Run on this event' }).click();
      await event.getByRole('status').filter({ hasText: 'Run started.' }).waitFor();
      await event.getByRole('link', { name: 'Open the run' }).click();
      await heading('Run of Orders').waitFor();
      const summary = page.getByRole('region', { name: 'Summary' });
      await summary.getByText('Run on a test event').waitFor();
      await summary.getByText('Waiting for approval').waitFor(POLLED);
      const delayStep = page.getByRole('region', { name: '1. Delay' });
      await delayStep.getByText('Succeeded').waitFor();
      await delayStep.getByRole('figure', { name: 'Input' }).getByText('"seconds": 1').waitFor();
      await page.getByRole('region', { name: '2. Approval' }).getByText('Waiting').waitFor();
      await page.getByRole('region', { name: 'Input', exact: true }).getByText('"id": 7').waitFor();

      // This test run is turned down in the inbox: it fails.
      await page.getByRole('link', { name: 'Open the approvals inbox' }).click();
      await heading('Approvals').waitFor();
      const card = page.getByRole('article', { name: 'Orders: Approval' });
      await card.getByText('Ship order 7?').waitFor();
      await card.getByRole('textbox', { name: 'Comment (optional)' }).fill('Not this one');
      await card.getByRole('button', { name: 'Reject' }).click();
      await status('Rejected Orders: Approval. The run has failed.').waitFor();
      await page.getByRole('heading', { name: 'Nothing waits for you' }).waitFor(POLLED);
      await status('Rejected').getByRole('link', { name: 'Open the run' }).click();
      await heading('Run of Orders').waitFor();
      await summary.getByText('Failed').waitFor();
      await summary.getByText('Step "Approval" was rejected').waitFor();
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'set live, a webhook call starts a run; the runs list finds it by status; approving it lets it succeed',
    async () => {
      await tabs().getByRole('link', { name: 'Editor' }).click();
      await heading('Orders').waitFor();
      await page.getByRole('button', { name: 'Set live' }).click();
      await status('The workflow is live.').waitFor();
      await page.getByRole('button', { name: 'Back to draft' }).waitFor();

      const started = await callWebhook({ order: { id: 8 } });
      expect(started).toEqual({
        status: 200,
        json: expect.objectContaining({ success: true, triggered: 1 }),
      });

      await tabs().getByRole('link', { name: 'Runs' }).click();
      await heading('Runs of Orders').waitFor();
      const runs = page.getByRole('table', { name: /^Runs/ });
      await waitForRowCount(runs, 2);
      const filter = page.getByRole('combobox', { name: 'Status' });
      await filter.selectOption({ label: 'Failed' });
      await waitForRowCount(runs, 1);
      await runs.getByRole('row').filter({ hasText: 'Run on a test event' }).waitFor();
      expect(new URL(page.url()).search).toBe('?status=failed');

      await filter.selectOption({ label: 'Waiting for approval' });
      const waiting = runs.getByRole('row').filter({ hasText: 'Webhook' });
      await waiting.waitFor(POLLED);
      await waitForRowCount(runs, 1);
      await filter.selectOption({ label: 'Succeeded' });
      await page.getByRole('heading', { name: 'No runs match these filters' }).waitFor();

      // By trigger, with the counts of every status it has; a count picks its status.
      await filter.selectOption({ label: 'All statuses' });
      await page.getByRole('combobox', { name: 'Trigger' }).selectOption({ label: 'Webhook' });
      await waitForRowCount(runs, 1);
      expect(new URL(page.url()).search).toBe('?trigger=custom_webhook');
      const counts = page.getByRole('list', { name: 'Matching runs by status' });
      await counts.getByRole('button', { name: '1 waiting for approval' }).waitFor();
      expect(await counts.getByRole('listitem').count()).toBe(1);
      await counts.getByRole('button', { name: '1 waiting for approval' }).click();
      await waiting.waitFor();
      expect(new URL(page.url()).searchParams.get('status')).toBe('waiting_approval');
      await page.getByRole('textbox', { name: 'Event id' }).fill('not an id');
      await page.getByText('An event id is a UUID').waitFor();
      await page.getByRole('textbox', { name: 'Event id' }).fill('');
      await waitForRowCount(runs, 1);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'workflow-runs');
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await waitForRowCount(runs, 2);
      await filter.selectOption({ label: 'Waiting for approval' });
      await waiting.waitFor();

      await waiting.getByRole('link').click();
      await heading('Run of Orders').waitFor();
      const summary = page.getByRole('region', { name: 'Summary' });
      await summary.getByText('Webhook').waitFor();
      await summary.getByText('Waiting for approval').waitFor();
      await expectNoSeriousA11yViolations(page);

      await page.getByRole('link', { name: 'Open the approvals inbox' }).click();
      await heading('Approvals').waitFor();
      const card = page.getByRole('article', { name: 'Orders: Approval' });
      await card.getByText('Ship order 8?').waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'approvals');
      await card.getByRole('button', { name: 'Approve' }).click();
      await status('Approved Orders: Approval. The run goes on.').waitFor();

      await status('Approved').getByRole('link', { name: 'Open the run' }).click();
      await heading('Run of Orders').waitFor();
      await summary.getByText('Succeeded').waitFor(POLLED);
      await summary.getByText('free').waitFor();
      const approvalStep = page.getByRole('region', { name: '2. Approval' });
      await approvalStep.getByText('Succeeded').waitFor();
      await approvalStep.getByRole('figure', { name: 'Output' }).getByText('approved_by').waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'workflow-run');
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'a duplicate opens as a draft copy; its schedule refuses a bad cron readably and saves a good one',
    async () => {
      await tabs().getByRole('link', { name: 'Editor' }).click();
      await heading('Orders').waitFor();
      await page.getByRole('button', { name: 'Duplicate' }).click();
      await heading('Orders (copy)').waitFor();
      await status('This is a copy of Orders').waitFor();
      const copyAddress = await page.getByRole('textbox', { name: 'Webhook address' }).inputValue();
      expect(copyAddress).not.toBe(webhookAddress);
      const workflowId = new URL(page.url()).pathname.split('/').pop() ?? '';

      await tabs().getByRole('link', { name: 'Schedule' }).click();
      await heading('Schedule of Orders (copy)').waitFor();
      await page.getByText('No schedule yet.').waitFor();
      const cron = page.getByRole('textbox', { name: 'Cron expression' });
      await cron.fill('every morning');
      await page.getByRole('combobox', { name: 'Timezone' }).selectOption('Europe/Berlin');
      await page.getByRole('button', { name: 'Save schedule' }).click();
      await alert('The schedule was not saved: fix the marked fields.').waitFor();
      await page.getByText('This is not a cron expression the scheduler understands.').waitFor();
      expect(await cron.getAttribute('aria-invalid')).toBe('true');
      await expectNoSeriousA11yViolations(page);

      // The service refuses it the same way, with details naming the field the page marks.
      const refused = await platform.api(`/workflows/${workflowId}/schedule`, {
        method: 'PUT',
        cookie: await platform.sessionCookie(email),
        body: { schedule_type: 'cron', cron_expression: 'every morning' },
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [expect.objectContaining({ path: 'body.cron_expression' })],
      });

      await cron.fill('*/5 * * * *');
      await page.getByRole('spinbutton', { name: 'Max runs per day' }).fill('12');
      await page.getByRole('spinbutton', { name: 'Pause after failed runs in a row' }).fill('3');
      await page.getByRole('button', { name: 'Save schedule' }).click();
      await status(/^Schedule saved\. Next run: .+ The workflow is in draft/).waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'workflow-schedule');

      await page.reload();
      await heading('Schedule of Orders (copy)').waitFor();
      await cron.waitFor();
      expect(await cron.inputValue()).toBe('*/5 * * * *');
      expect(await page.getByRole('combobox', { name: 'Timezone' }).inputValue()).toBe(
        'Europe/Berlin',
      );
      expect(await page.getByRole('spinbutton', { name: 'Max runs per day' }).inputValue()).toBe(
        '12',
      );
      expect(
        await page
          .getByRole('spinbutton', { name: 'Pause after failed runs in a row' })
          .inputValue(),
      ).toBe('3');
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'the list shows both workflows with their status; the original goes back to draft',
    async () => {
      await nav().getByRole('link', { name: 'Workflows' }).click();
      await heading('Workflows').waitFor();
      const list = page.getByRole('list', { name: 'Workflows' });
      const original = list.getByRole('listitem').filter({
        has: page.getByRole('link', { name: 'Orders', exact: true }),
      });
      await original.getByText('Live').waitFor();
      const copy = list.getByRole('listitem').filter({
        has: page.getByRole('link', { name: 'Orders (copy)' }),
      });
      await copy.getByText('Draft').waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'workflows');

      await original.getByRole('link', { name: 'Orders', exact: true }).click();
      await heading('Orders').waitFor();
      await page.getByRole('button', { name: 'Back to draft' }).click();
      await status('The workflow is back in draft.').waitFor();
      const inactive = await callWebhook({ order: { id: 9 } });
      expect(inactive.json).toEqual(
        expect.objectContaining({ message: 'Webhook is inactive. Test payload saved.' }),
      );
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'a long runs list is paged: Load more fetches the older runs',
    async () => {
      const cookie = await platform.sessionCookie(email);
      const workspaceId = new URL(page.url()).pathname.split('/')[3] ?? '';
      const created = await platform.api('/workflows', {
        method: 'POST',
        cookie,
        body: { workspaceId, name: 'Heartbeat', trigger: { type: 'custom_webhook' }, steps: [] },
      });
      expect(created.status).toBe(201);
      const { workflow } = (await created.json()) as { workflow: { id: string } };
      for (let run = 0; run < 27; run += 1) {
        const started = await platform.api(`/workflows/${workflow.id}/run`, {
          method: 'POST',
          cookie,
          body: {},
        });
        expect(started.status).toBe(202);
      }

      await nav().getByRole('link', { name: 'Workflows' }).click();
      await page.getByRole('link', { name: 'Runs of Heartbeat' }).click();
      await heading('Runs of Heartbeat').waitFor();
      const runs = page.getByRole('table', { name: /^Runs/ });
      await waitForRowCount(runs, 25);
      await page.getByText('Showing 25 runs; more are older.').waitFor();
      await page.getByRole('button', { name: 'Load more' }).click();
      await waitForRowCount(runs, 27);
      await page.getByText('Showing 27 runs.').waitFor();
      expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
