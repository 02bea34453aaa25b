import { randomBytes } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAppPage,
  screenshot,
  signIn,
} from './browser';
import { startEverythingMcpServer, type McpTestServer } from '@wap/testing';
import { startPlatform, type RunningPlatform } from './platform';

const unique = randomBytes(4).toString('hex');
const email = `fields-${unique}@example.com`;
const WORKSPACE = 'Field Lab';
/** Test events, syncs and runs are polled: waits allow for several polls on a busy machine. */
const POLLED = { timeout: 60_000 };
const TEST_TIMEOUT_MS = 180_000;

interface Ids {
  workspaceId: string;
  workflowId: string;
  tableId: string;
  /** Column id by column name. */
  columns: Record<string, string>;
  webhookUrl: string;
}

/**
 * Endpoint 11, rule 6 in a browser: once a test event was captured its fields are picked into
 * step settings at the cursor; an MCP-tool step is a server, a tool and a form from the tool's
 * input schema; a table-row step is a table and a field per column; after a run, earlier
 * steps' outputs are offered too.
 */
describe('fields picked from a test event in the workflow editor', () => {
  let mcp: McpTestServer;
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let cookie = '';
  const ids: Ids = { workspaceId: '', workflowId: '', tableId: '', columns: {}, webhookUrl: '' };

  beforeAll(async () => {
    mcp = await startEverythingMcpServer();
    // The registry connects to https only and refuses private addresses: the test server is on
    // 127.0.0.1 behind a throw-away CA, so both are let through explicitly.
    platform = await startPlatform({
      SSRF_ALLOWLIST: '127.0.0.1',
      MCP_EXTRA_CA_CERTS: mcp.caFile,
    });
    browser = await launchBrowser();
    page = await openAppPage(browser, platform);
    page.setDefaultTimeout(POLLED.timeout);
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await mcp?.stop();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
  const step = (name: string) => page.getByRole('group', { name });

  async function api<T>(path: string, method: string, body?: unknown): Promise<T> {
    const response = await platform.api(path, { method, cookie, body });
    if (response.status >= 300) {
      throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    }
    return (await response.json()) as T;
  }

  /** Puts the cursor at `at` in a text control, as a click between two words does. */
  async function placeCursor(control: Locator, at: number): Promise<void> {
    await control.evaluate((element, position) => {
      const input = element as HTMLInputElement;
      input.focus();
      input.setSelectionRange(position, position);
    }, at);
  }

  test(
    'a workspace with an MCP server, a table with columns and a draft workflow',
    async () => {
      await signIn(page, email);
      await page.getByRole('textbox', { name: 'Workspace name' }).fill(WORKSPACE);
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await heading(WORKSPACE).waitFor();
      ids.workspaceId = new URL(page.url()).pathname.split('/').pop() ?? '';
      cookie = await platform.sessionCookie(email);
      const granted = await platform.api(`/workspaces/${ids.workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: await platform.sessionCookie('admin@example.com', { platformAdmin: true }),
        body: { amount: 100, reason: 'e2e' },
      });
      expect(granted.status).toBe(201);

      await api('/mcp-registry', 'POST', {
        workspaceId: ids.workspaceId,
        name: 'Everything',
        serverUrl: mcp.openUrl,
      });
      const deadline = Date.now() + POLLED.timeout;
      let toolNames: string[] = [];
      while (!toolNames.includes('echo') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const tools = await api<{ data: { name: string }[] }>(
          `/mcp-registry/tools?workspaceId=${ids.workspaceId}`,
          'GET',
        );
        toolNames = tools.data.map((tool) => tool.name);
      }
      expect(toolNames).toContain('echo');

      const created = await api<{ table: { id: string } }>('/tables', 'POST', {
        workspaceId: ids.workspaceId,
        name: 'Orders',
      });
      ids.tableId = created.table.id;
      for (const column of [
        { name: 'Order', type: 'text' },
        { name: 'Quantity', type: 'number' },
        { name: 'Express', type: 'checkbox' },
      ]) {
        await api(`/tables/${ids.tableId}/properties`, 'POST', column);
      }
      const table = await api<{ properties: { id: string; name: string }[] }>(
        `/tables/${ids.tableId}`,
        'GET',
      );
      ids.columns = Object.fromEntries(table.properties.map((column) => [column.name, column.id]));
      expect(Object.keys(ids.columns)).toEqual(['Order', 'Quantity', 'Express']);

      const workflow = await api<{ workflow: { id: string }; webhook: { url: string } }>(
        '/workflows',
        'POST',
        {
          workspaceId: ids.workspaceId,
          name: 'Order intake',
          trigger: { type: 'custom_webhook' },
          steps: [],
        },
      );
      ids.workflowId = workflow.workflow.id;
      ids.webhookUrl = workflow.webhook.url;
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'before a test event nothing is selectable; after one, its fields go in at the cursor',
    async () => {
      await page.goto(`/app/w/${ids.workspaceId}/workflows/${ids.workflowId}`);
      await heading('Order intake').waitFor();
      await page.getByText('Fields become selectable once a test event was captured').waitFor();

      const stepType = page.getByRole('combobox', { name: 'Step type' });
      await stepType.selectOption({ label: 'MCP tool (2 credits)' });
      await page.getByRole('button', { name: 'Add step' }).click();
      const toolStep = step('Step 1 · MCP tool');
      await toolStep.getByRole('combobox', { name: 'MCP server' }).selectOption({
        label: 'Everything',
      });
      await toolStep.getByRole('combobox', { name: 'Tool' }).selectOption({ label: 'echo' });
      // The tool's input schema gives the form: its one property, required, described.
      const message = toolStep.getByRole('textbox', { name: 'Message' });
      await message.waitFor();
      expect(await message.getAttribute('required')).not.toBeNull();
      await toolStep.getByText('Message to echo').waitFor();
      const picker = toolStep.getByRole('combobox', { name: 'Insert a variable into Message' });
      expect(await picker.count()).toBe(0);

      const called = await fetch(ids.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order: { id: 'A-17', qty: 3 }, customer: { name: 'Ada' } }),
      });
      expect(called.status).toBe(200);
      await page.getByRole('combobox', { name: 'Fields from the test event' }).waitFor(POLLED);

      await message.fill('Order  is in');
      await placeCursor(message, 'Order '.length);
      await picker.selectOption('Custom Webhook.order.id');
      await page.waitForFunction(
        (input) => input === document.activeElement,
        await message.elementHandle(),
      );
      expect(await message.inputValue()).toBe('Order {{Custom Webhook.order.id}} is in');
      // The focus is back in the text, the cursor after what was inserted.
      expect(
        await message.evaluate((input: HTMLInputElement) => [
          input === document.activeElement,
          input.selectionStart,
        ]),
      ).toEqual([true, 'Order {{Custom Webhook.order.id}}'.length]);
      // The picker names each field with the value it had in the event.
      expect(await picker.locator('option').allTextContents()).toEqual(
        expect.arrayContaining(['order.id = "A-17"', 'order.qty = 3', 'customer.name = "Ada"']),
      );

      await stepType.selectOption({ label: 'Table row (1 credit)' });
      await page.getByRole('button', { name: 'Add step' }).click();
      const rowStep = step('Step 2 · Table row');
      await rowStep.getByRole('combobox', { name: 'Table' }).selectOption({ label: 'Orders' });
      const order = rowStep.getByRole('textbox', { name: 'Order', exact: true });
      await order.waitFor();
      await rowStep
        .getByRole('combobox', { name: 'Insert a variable into Order' })
        .selectOption('Custom Webhook.order.id');
      await rowStep
        .getByRole('combobox', { name: 'Insert a variable into Quantity' })
        .selectOption('Custom Webhook.order.qty');
      await rowStep.getByRole('combobox', { name: 'Express' }).selectOption({ label: 'Checked' });
      expect(await order.inputValue()).toBe('{{Custom Webhook.order.id}}');
      await expectNoSeriousA11yViolations(page);

      await page.getByRole('button', { name: 'Save workflow' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const saved = await api<{
        workflow: { steps: { type: string; settings: Record<string, unknown> }[] };
      }>(`/workflows/${ids.workflowId}`, 'GET');
      expect(saved.workflow.steps.map((saved) => saved.settings)).toEqual([
        {
          serverId: expect.any(String),
          toolName: 'echo',
          arguments: { message: 'Order {{Custom Webhook.order.id}} is in' },
        },
        {
          tableId: ids.tableId,
          values: {
            [ids.columns['Order'] ?? 'Order']: '{{Custom Webhook.order.id}}',
            [ids.columns['Quantity'] ?? 'Quantity']: '{{Custom Webhook.order.qty}}',
            [ids.columns['Express'] ?? 'Express']: true,
          },
        },
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'a run on the test event fills the picked fields; then the steps\u2019 outputs are offered',
    async () => {
      const events = page.getByRole('region', { name: 'Test events' });
      await events.getByRole('button', { name: 'Run on this event' }).click();
      await events.getByRole('link', { name: 'Open the run' }).click();
      await page.getByRole('region', { name: 'Summary' }).getByText('Succeeded').waitFor(POLLED);
      await page
        .getByRole('region', { name: '1. MCP tool' })
        .getByText('Echo: Order A-17 is in')
        .first()
        .waitFor();

      const rows = await api<{ rows: { cells: Record<string, unknown> }[] }>(
        `/tables/${ids.tableId}/rows`,
        'GET',
      );
      // The variables kept their types: the quantity is the number 3, not the text "3".
      expect(rows.rows.map((row) => row.cells)).toEqual([
        {
          [ids.columns['Order'] ?? 'Order']: 'A-17',
          [ids.columns['Quantity'] ?? 'Quantity']: 3,
          [ids.columns['Express'] ?? 'Express']: true,
        },
      ]);

      await page.goBack();
      await heading('Order intake').waitFor();
      await page.getByRole('combobox', { name: 'Step type' }).selectOption({
        label: 'Approval (free)',
      });
      await page.getByRole('button', { name: 'Add step' }).click();
      const approval = step('Step 3 · Approval');
      const picker = approval.getByRole('combobox', { name: 'Insert a variable into Message' });
      const outputGroup = picker.locator('optgroup[label="Step \\"MCP tool\\" (last run)"]');
      await outputGroup.waitFor({ state: 'attached', ...POLLED });
      const echoed = picker.locator('option', { hasText: 'Echo: Order A-17 is in' });
      const expression = await echoed.first().getAttribute('value');
      expect(expression).toMatch(/^steps\.MCP tool\./);
      await picker.selectOption(expression ?? '');
      expect(await approval.getByRole('textbox', { name: 'Message' }).inputValue()).toBe(
        `{{${expression}}}`,
      );
      // The table-row step comes after the tool: it is offered there, not before it.
      const toolPicker = step('Step 1 · MCP tool').getByRole('combobox', {
        name: 'Insert a variable into Message',
      });
      expect(await toolPicker.locator('optgroup').count()).toBe(1);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'workflow-step-fields');
    },
    TEST_TIMEOUT_MS,
  );
});
