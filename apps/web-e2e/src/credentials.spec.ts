import { randomBytes } from 'node:crypto';
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
const email = `credentials-${unique}@example.com`;
const WORKSPACE = 'Secret Desk';
const SECRET = `sk_live_${unique}_never_shown_again`;
const TEST_TIMEOUT_MS = 180_000;

/**
 * Workspace credentials in a browser (issue 41 item 5, decision 152): an owner saves a
 * credential and never sees its value again; the editor flags a credential header written into
 * a workflow, where every member reads it.
 */
describe('workspace credentials in a browser', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    page = await openAppPage(browser, platform);
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
  const nav = () => page.getByRole('navigation', { name: `${WORKSPACE} workspace` });
  const status = (text: string) => page.getByRole('status').filter({ hasText: text });

  test(
    'a credential is saved and listed by name alone; a literal API key in a step is flagged',
    async () => {
      await signIn(page, email);
      await page.getByRole('textbox', { name: 'Workspace name' }).fill(WORKSPACE);
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await heading(WORKSPACE).waitFor();
      const workspaceId = new URL(page.url()).pathname.split('/').pop() ?? '';

      await nav().getByRole('link', { name: 'Credentials' }).click();
      await heading('Credentials').waitFor();
      await page.getByText('No credential is saved yet.').waitFor();
      await page.getByRole('button', { name: 'Save credential' }).click();
      await page.getByText('Enter the secret', { exact: false }).waitFor();
      await page.getByRole('textbox', { name: 'Name' }).fill('API_TOKEN');
      await page.getByLabel('Value', { exact: true }).fill(SECRET);
      await page.getByRole('button', { name: 'Save credential' }).click();
      await status('Saved API_TOKEN').waitFor();
      const saved = page.getByRole('list', { name: 'Saved credentials' });
      await saved.getByText('{{credentials.API_TOKEN}}').waitFor();
      expect(await page.content()).not.toContain(SECRET);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'credentials');

      const cookie = await platform.sessionCookie(email);
      const created = await platform.api('/workflows', {
        method: 'POST',
        cookie,
        body: {
          workspaceId,
          name: 'Calls the API',
          trigger: { type: 'custom_webhook' },
          steps: [
            {
              type: 'http_request',
              name: 'call',
              settings: {
                method: 'GET',
                url: 'https://api.example.com/orders',
                headers: { 'x-api-key': 'a-key-pasted-into-the-step' },
              },
            },
          ],
        },
      });
      expect(created.status).toBe(201);
      const { workflow } = (await created.json()) as { workflow: { id: string } };
      await page.goto(`/app/w/${workspaceId}/workflows/${workflow.id}`);
      await heading('Calls the API').waitFor();
      const notice = page.getByRole('note').filter({ hasText: 'holds a secret in the workflow' });
      await notice.getByText('x-api-key').waitFor();
      await expectNoSeriousA11yViolations(page);
    },
    TEST_TIMEOUT_MS,
  );
});
