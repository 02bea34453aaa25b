import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
const email = `control-${unique}@example.com`;
const WORKSPACE = 'Branching Team';
const TEST_TIMEOUT_MS = 180_000;

/**
 * Control steps in a browser (issue 43 items 2 and 3, decision 165): the run page of a run that
 * took an if's branch and looped over a list shows where each step sits, the branch not taken
 * as skipped, and links each iteration, whose page leads back to the run; the editor keeps an
 * if's own steps as they are when the workflow is saved.
 */
describe('control steps in a browser', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
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
    'the run page shows the branch taken and each iteration; the editor keeps nested steps',
    async () => {
      await signIn(page, email);
      await page.getByRole('textbox', { name: 'Workspace name' }).fill(WORKSPACE);
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await heading(WORKSPACE).waitFor();
      const workspaceId = new URL(page.url()).pathname.split('/').pop() ?? '';
      const granted = await platform.api(`/workspaces/${workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: await platform.sessionCookie('admin@example.com', { platformAdmin: true }),
        body: { amount: 20, reason: 'e2e' },
      });
      expect(granted.status).toBe(201);
      const cookie = await platform.sessionCookie(email);
      const steps = [
        {
          type: 'if',
          name: 'has lines',
          settings: { condition: 'true' },
          then: [
            {
              type: 'for_each',
              name: 'each line',
              settings: { items: '["A1", "B2", "C3"]' },
              steps: [
                {
                  type: 'http_request',
                  name: 'reserve',
                  settings: { method: 'POST', url: `${origin}/reserve/{{item}}` },
                },
              ],
            },
          ],
          else: [{ type: 'stop', name: 'nothing to do', settings: { status: 'succeeded' } }],
        },
      ];
      const created = await platform.api('/workflows', {
        method: 'POST',
        cookie,
        body: { workspaceId, name: 'Reserve lines', trigger: { type: 'custom_webhook' }, steps },
      });
      expect(created.status).toBe(201);
      const { workflow } = (await created.json()) as { workflow: { id: string } };
      const started = await platform.api(`/workflows/${workflow.id}/run`, {
        method: 'POST',
        cookie,
      });
      const { runId } = (await started.json()) as { runId: string };

      await page.goto(`/app/w/${workspaceId}/workflows/${workflow.id}/runs/${runId}`);
      const iterations = page.getByRole('navigation', { name: 'Iterations of each line' });
      await iterations.getByRole('link', { name: 'Item 3' }).waitFor({ timeout: 30_000 });
      await page.getByText('In the then branch of 1. has lines').waitFor();
      await page.getByText('In the else branch of 1. has lines').waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'run-branches');

      await iterations.getByRole('link', { name: 'Item 2' }).click();
      await page.getByText('Loop iteration 2, of the run').waitFor();
      await page.getByText('"B2"').first().waitFor();
      expect(await page.getByRole('button', { name: 'Retry from the start' }).count()).toBe(0);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'run-iteration');
      await page.getByRole('link', { name: 'the run that started it' }).click();
      await page.getByRole('navigation', { name: 'Iterations of each line' }).waitFor();

      // The editor shows the if and keeps its steps: a rename saves them unchanged.
      const stepsOf = async () =>
        (
          (await (await platform.api(`/workflows/${workflow.id}`, { cookie })).json()) as {
            workflow: { name: string; steps: unknown[] };
          }
        ).workflow;
      const before = await stepsOf();
      await page.goto(`/app/w/${workspaceId}/workflows/${workflow.id}`);
      await heading('Reserve lines').waitFor();
      await page.getByText('Holds 3 steps of its own, kept as they are when you save.').waitFor();
      await page.getByRole('textbox', { name: 'Workflow name' }).fill('Reserve order lines');
      await page.getByRole('button', { name: 'Save workflow' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const after = await stepsOf();
      expect(after.name).toBe('Reserve order lines');
      expect(after.steps).toEqual(before.steps);
    },
    TEST_TIMEOUT_MS,
  );
});
