import { randomBytes, randomUUID } from 'node:crypto';
import { sign as signGitHub } from '@octokit/webhooks-methods';
import type { Browser, Page } from 'playwright-core';
import {
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAppPage,
  screenshot,
  signIn,
} from './browser';
import { startPlatform, type RunningPlatform } from './platform';

const unique = randomBytes(4).toString('hex');
const email = `provider-${unique}@example.com`;
const WORKSPACE = 'Code Desk';
const GITHUB_SECRET = `github-secret-${unique}`;
const INSTALLATION = 4_242_000 + Math.floor(Math.random() * 1000);
/** Deliveries and runs are polled: waits allow for several polls on a busy machine. */
const POLLED = { timeout: 60_000 };
const TEST_TIMEOUT_MS = 180_000;

/**
 * Provider events in a browser (decisions 132 and 151): an owner connects a GitHub
 * installation and is shown its signing secret once, a workflow's trigger names
 * `pull_request.opened`, and a delivery signed with that secret shows in the deliveries list
 * with the run it started (the platform's own secret starts nothing).
 */
describe('provider events in a browser', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    platform = await startPlatform({ GITHUB_WEBHOOK_SECRET: GITHUB_SECRET });
    browser = await launchBrowser();
    page = await openAppPage(browser, platform);
    page.setDefaultTimeout(POLLED.timeout);
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
  const nav = () => page.getByRole('navigation', { name: `${WORKSPACE} workspace` });
  const status = (text: string) => page.getByRole('status').filter({ hasText: text });

  test(
    'an owner connects a GitHub installation; a workflow names the event; a delivery starts it and is listed',
    async () => {
      await signIn(page, email);
      await page.getByRole('textbox', { name: 'Workspace name' }).fill(WORKSPACE);
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await heading(WORKSPACE).waitFor();
      const workspaceId = new URL(page.url()).pathname.split('/').pop() ?? '';
      const granted = await platform.api(`/workspaces/${workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: await platform.sessionCookie('admin@example.com', { platformAdmin: true }),
        body: { amount: 10, reason: 'e2e' },
      });
      expect(granted.status).toBe(201);

      await nav().getByRole('link', { name: 'Provider events' }).click();
      await heading('Provider events').waitFor();
      await page.getByText('No account is connected yet.').waitFor();
      await page.getByRole('button', { name: 'Connect account' }).click();
      await page.getByText('Enter a value.').waitFor();
      await page.getByRole('textbox', { name: 'Account' }).fill(String(INSTALLATION));
      await page.getByRole('textbox', { name: 'Name (optional)' }).fill('acme');
      await page.getByRole('button', { name: 'Connect account' }).click();
      await status('Connected GitHub acme.').waitFor();
      const accounts = page.getByRole('list', { name: 'Connected accounts' });
      await accounts.getByText(String(INSTALLATION)).waitFor();
      // The connection's own secret, made by the platform for GitHub, is shown this once.
      const signingSecret = await page
        .getByRole('textbox', { name: 'Signing secret', exact: true })
        .inputValue();
      expect(signingSecret).toMatch(/^[0-9a-f]{64}$/);
      const address =
        (await accounts
          .locator('code')
          .filter({ hasText: '/webhooks/github?connection=' })
          .textContent()) ?? '';
      expect(address.startsWith(platform.url)).toBe(true);
      await accounts.getByText('Waiting for its first signed delivery.').waitFor();
      await page.getByRole('button', { name: 'I have saved it' }).click();
      await expect(
        page.getByRole('textbox', { name: 'Signing secret', exact: true }).count(),
      ).resolves.toBe(0);

      await nav().getByRole('link', { name: 'Workflows' }).click();
      await page.getByRole('link', { name: 'New workflow' }).click();
      await heading('New workflow').waitFor();
      await page.getByRole('textbox', { name: 'Workflow name' }).fill('Review bot');
      await page.getByRole('switch', { name: 'Also start on provider events' }).click();
      await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'GitHub' });
      await page.getByRole('textbox', { name: 'Events' }).fill('pull_request.opened, issues');
      await page.getByRole('combobox', { name: 'Step type' }).selectOption({
        label: 'Delay (free)',
      });
      await page.getByRole('button', { name: 'Add step' }).click();
      await page.getByRole('spinbutton', { name: 'Seconds' }).fill('0');
      await page.getByRole('button', { name: 'Create workflow' }).click();
      await heading('Review bot').waitFor();
      // Set live needs a Run first.
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await status('Run started.').waitFor();
      await page.getByRole('button', { name: 'Set live' }).click();
      await status('The workflow is live.').waitFor();
      expect(await page.getByRole('textbox', { name: 'Events' }).inputValue()).toBe(
        'pull_request.opened, issues',
      );

      const payload = JSON.stringify({
        action: 'opened',
        pull_request: { title: 'Ship it' },
        installation: { id: INSTALLATION },
      });
      // The shared endpoint's platform secret starts no workspace's workflow (issue 41).
      const shared = await fetch(`${platform.url}/webhooks/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'pull_request',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': await signGitHub(GITHUB_SECRET, payload),
        },
        body: payload,
      });
      expect(shared.status).toBe(200);
      const delivered = await fetch(address, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'pull_request',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': await signGitHub(signingSecret, payload),
        },
        body: payload,
      });
      expect(delivered.status).toBe(200);

      await nav().getByRole('link', { name: 'Provider events' }).click();
      await heading('Provider events').waitFor();
      const deliveries = page.getByRole('region', { name: 'Deliveries' });
      const row = deliveries.getByRole('row').filter({ hasText: 'pull_request.opened' });
      await row.getByRole('link', { name: 'Run of Review bot' }).waitFor(POLLED);
      // One delivery only: the one signed with the connection's secret.
      expect(await deliveries.getByRole('row').count()).toBe(2);
      await accounts.getByText(/^Proven by a delivery on /).waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'provider-events');

      await row.getByRole('link', { name: 'Run of Review bot' }).click();
      await page.getByRole('region', { name: 'Summary' }).getByText('Provider event').waitFor();
    },
    TEST_TIMEOUT_MS,
  );
});
