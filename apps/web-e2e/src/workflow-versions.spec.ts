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
const email = `versions-${unique}@example.com`;
const WORKSPACE = 'Versioned Team';
const TEST_TIMEOUT_MS = 180_000;

/**
 * Workflow versions in a browser (issue 43 item 4, decision 163): a live workflow edited in the
 * editor keeps answering with its published version until the person publishes the new one;
 * the history lists both, compares them and restores the first as a new version.
 */
describe('workflow versions in a browser', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let server: Server;
  let origin: string;
  const paths: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      paths.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
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

  test(
    'an edit to a live workflow is published by a press; the history compares and restores',
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
      const cookie = await platform.sessionCookie(email);
      const created = await platform.api('/workflows', {
        method: 'POST',
        cookie,
        body: {
          workspaceId,
          name: 'Tell the partner',
          trigger: { type: 'custom_webhook' },
          steps: [
            {
              type: 'http_request',
              name: 'tell',
              settings: { method: 'POST', url: `${origin}/first` },
            },
          ],
        },
      });
      const { workflow, webhook } = (await created.json()) as {
        workflow: { id: string };
        webhook: { id: string };
      };
      const editor = `/app/w/${workspaceId}/workflows/${workflow.id}`;
      await page.goto(editor);
      await heading('Tell the partner').waitFor();
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await eventually(async () => expect(paths).toContain('/first'), 30_000);
      await page.getByRole('button', { name: 'Set live' }).click();
      await page.getByRole('status').filter({ hasText: 'The workflow is live.' }).waitFor();

      // Version 2 is saved while the address goes on running version 1.
      const edited = await platform.api(`/workflows/${workflow.id}`, {
        method: 'PATCH',
        cookie,
        body: {
          steps: [
            {
              type: 'http_request',
              name: 'tell',
              settings: { method: 'POST', url: `${origin}/second` },
            },
          ],
        },
      });
      expect(edited.status).toBe(200);
      await page.reload();
      await page.getByText('Calls run version 1; Run runs version 2').waitFor();
      const hook = await platform.api(`/webhooks/${webhook.id}`, { method: 'POST', body: {} });
      expect(hook.status).toBe(200);
      await eventually(async () => expect(paths.filter((p) => p === '/first')).toHaveLength(2));
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'workflow-unpublished');
      await page.getByRole('button', { name: 'Publish version 2' }).click();
      await page.getByRole('status').filter({ hasText: 'The workflow is live.' }).waitFor();
      await platform.api(`/webhooks/${webhook.id}`, { method: 'POST', body: {} });
      await eventually(async () => expect(paths).toContain('/second'), 30_000);

      await page.getByRole('link', { name: 'History' }).click();
      await heading('History of Tell the partner').waitFor();
      const versions = page.getByRole('list', { name: 'Versions' });
      const version = (number: number) =>
        versions
          .getByRole('listitem')
          .filter({ has: page.getByRole('heading', { name: `Version ${number}`, exact: true }) });
      const second = version(2);
      await second.getByText('Published').waitFor();
      await second.getByText('step 1 "tell" changed').waitFor();
      await second.getByRole('button', { name: 'Compare with version 1' }).click();
      const diff = page.getByRole('table', { name: 'What changed from version 1 to version 2' });
      await diff.getByRole('cell', { name: `"${origin}/second"` }).waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'workflow-history');

      const first = version(1);
      await first.getByRole('button', { name: 'Restore version 1' }).click();
      await first
        .getByRole('group', { name: 'Confirm: Restore version 1' })
        .getByRole('button', { name: 'Restore version 1' })
        .click();
      await page.getByText('Restored as version 3.').waitFor();
      await versions.getByText('restored version 1').waitFor();
      await screenshot(page, 'workflow-restored');
      const saved = await platform.api(`/workflows/${workflow.id}`, { cookie });
      expect((await saved.json()) as unknown).toMatchObject({
        workflow: {
          version: 3,
          live_version: 2,
          steps: [{ settings: { url: `${origin}/first` } }],
        },
      });
    },
    TEST_TIMEOUT_MS,
  );
});
