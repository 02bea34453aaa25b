import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAppPage,
  screenshot,
  signIn,
} from './browser';
import {
  BASIC_PASSWORD,
  BASIC_USER,
  startEverythingMcpServer,
  type McpTestServer,
} from '@wap/testing';
import { repositoryRoot, startPlatform, type RunningPlatform } from './platform';

const unique = randomBytes(4).toString('hex');
const ownerEmail = `mcp-owner-${unique}@example.com`;
const memberEmail = `mcp-member-${unique}@example.com`;
const HEADER_VALUE = `org-${unique}`;

/** How long a sync of server-everything may take on a busy machine, in ms. */
const SYNC_WAIT_MS = 60_000;

/**
 * The platform serves a copy of the web build taken now: other engineers rebuild
 * dist/apps/web while this spec runs, and a rebuild removes the chunks an open page loads.
 */
const webBuildCopy = mkdtempSync(join(tmpdir(), 'wap-web-mcp-dist-'));
function copyOfWebBuild(): string {
  cpSync(join(repositoryRoot, 'dist/apps/web'), webBuildCopy, { recursive: true });
  if (!existsSync(join(webBuildCopy, 'index.html'))) {
    throw new Error('dist/apps/web has no index.html: build the web app (nx run web:build)');
  }
  return webBuildCopy;
}

describe('MCP servers and tools in a browser', () => {
  let mcp: McpTestServer;
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let toolTotal = 0;

  beforeAll(async () => {
    mcp = await startEverythingMcpServer();
    // The registry connects to https only and refuses private addresses: the test server is on
    // 127.0.0.1 behind a throw-away CA, so both are let through explicitly.
    platform = await startPlatform({
      SSRF_ALLOWLIST: '127.0.0.1',
      MCP_EXTRA_CA_CERTS: mcp.caFile,
      WEB_DIST_DIR: copyOfWebBuild(),
    });
    browser = await launchBrowser();
    page = await openAppPage(browser, platform);
    page.setDefaultTimeout(SYNC_WAIT_MS);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await mcp?.stop();
    rmSync(webBuildCopy, { recursive: true, force: true });
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
  const nav = () => page.getByRole('navigation', { name: 'MCP Lab workspace' });
  const textbox = (name: string) => page.getByRole('textbox', { name, exact: true });
  const alert = (text: string) => page.getByRole('alert').filter({ hasText: text });
  const toolSwitch = (name: string) => page.getByRole('switch', { name, exact: true });

  test('a new person creates a workspace and finds no MCP servers yet', async () => {
    await signIn(page, ownerEmail);
    await page.getByRole('textbox', { name: 'Workspace name' }).fill('MCP Lab');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await heading('MCP Lab').waitFor();

    await nav().getByRole('link', { name: 'MCP servers' }).click();
    await heading('MCP servers').waitFor();
    await page.getByRole('heading', { name: 'No MCP servers yet' }).waitFor();
    await expectNoSeriousA11yViolations(page);
  }, 120_000);

  test('the register form refuses an http URL and a private address with readable messages', async () => {
    await page.getByRole('link', { name: 'Register a server' }).click();
    await heading('Register an MCP server').waitFor();

    await page.getByRole('button', { name: 'Register server' }).click();
    expect(await textbox('Name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('Enter a value.').count()).toBe(2);
    // The keyboard is taken to the first field to correct.
    expect(await textbox('Name').evaluate((input) => input === document.activeElement)).toBe(true);

    await textbox('Name').fill('Everything');
    await textbox('Server URL').fill(mcp.openUrl.replace('https://', 'http://'));
    await page.getByRole('button', { name: 'Register server' }).click();
    await alert('The server was not registered.').waitFor();
    await alert('serverUrl must use https').waitFor();
    await page
      .getByText('Use an address that starts with https://: the platform only connects over HTTPS.')
      .waitFor();

    // 10.0.0.0/8 is not on the platform's SSRF allow-list: the guard refuses it.
    await textbox('Server URL').fill('https://10.0.0.1/mcp');
    await page.getByRole('button', { name: 'Register server' }).click();
    await alert('serverUrl is not a public address').waitFor();
    await page.getByText('This address is in a private network.', { exact: false }).waitFor();
  }, 120_000);

  test('server-everything is registered with a header, and its tools appear after the sync', async () => {
    await textbox('Server URL').fill(mcp.openUrl);
    // Changing the refused address puts the refusal away.
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await textbox('Server URL').getAttribute('aria-invalid')).toBeNull();
    await page
      .getByRole('textbox', { name: 'Description' })
      .fill('The MCP reference server, with every kind of tool.');
    await page.getByRole('button', { name: 'Add header' }).click();
    const header = page.getByRole('group', { name: 'Header 1' });
    await header.getByRole('textbox', { name: 'Header name' }).fill('X-Test-Org');
    await header.getByRole('textbox', { name: 'Header value' }).fill(HEADER_VALUE);
    const access = page.getByRole('group', { name: 'Who may use it' });
    expect(await access.getByRole('radio', { name: 'Everyone in the workspace' }).isChecked()).toBe(
      true,
    );
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'mcp-register');

    await page.getByRole('button', { name: 'Register server' }).click();
    await heading('Everything').waitFor();
    const tools = page.getByRole('list', { name: 'Tools of Everything' });
    await tools.waitFor({ timeout: SYNC_WAIT_MS });
    await toolSwitch('echo').waitFor();
    expect(await toolSwitch('echo').isChecked()).toBe(true);
    toolTotal = await tools.getByRole('switch').count();
    expect(toolTotal).toBeGreaterThan(5);

    const details = page.getByRole('region', { name: 'Details' });
    await details.getByText('Streamable HTTP').waitFor();
    await details.getByText('X-Test-Org').waitFor();
    // Header values are sealed like credentials: never shown back.
    expect(await page.getByText(HEADER_VALUE).count()).toBe(0);
  }, 120_000);

  test('a tool is disabled, stays disabled, and a refresh says what it found', async () => {
    const echoSchema = page.getByRole('group').filter({ hasText: 'Input schema of echo' });
    await page.getByText('Input schema of echo').click();
    await echoSchema.getByText('"message"').waitFor();

    await toolSwitch('echo').click();
    await page.getByRole('switch', { name: 'echo', exact: true, checked: false }).waitFor();
    await page.reload();
    await toolSwitch('echo').waitFor();
    expect(await toolSwitch('echo').isChecked()).toBe(false);
    await page
      .getByRole('region', { name: 'Tools' })
      .getByText(`${toolTotal} tools, ${toolTotal - 1} enabled.`, { exact: false })
      .waitFor();

    await page.getByRole('button', { name: 'Refresh tools' }).click();
    await page
      .getByRole('status')
      .filter({
        hasText: `Refreshed: ${toolTotal} tools discovered, ${toolTotal} synced, no errors.`,
      })
      .waitFor();
    // A sync never touches the switches.
    expect(await toolSwitch('echo').isChecked()).toBe(false);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'mcp-server');
  }, 120_000);

  test('the list shows the server with its sync status and tool counts', async () => {
    await page.getByRole('link', { name: 'MCP servers' }).first().click();
    await heading('MCP servers').waitFor();
    const item = page
      .getByRole('list', { name: 'MCP servers' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('link', { name: 'Everything', exact: true }) });
    await item.getByText(`${toolTotal} tools, ${toolTotal - 1} enabled`).waitFor();
    await item.getByText('Tools synced', { exact: false }).waitFor();
    await item.getByText('Everyone in the workspace').waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'mcp-servers');
  }, 120_000);

  test('a server behind HTTP Basic is registered with its username and password', async () => {
    await page.getByRole('link', { name: 'Register a server' }).click();
    await heading('Register an MCP server').waitFor();
    const auth = page.getByRole('group', { name: 'Authentication' });
    expect(await textbox('Password').count()).toBe(0);

    // Each auth type asks exactly for its own fields.
    await auth
      .getByRole('radio', { name: 'A secret in a header (API key or bearer token)' })
      .check();
    await page.getByLabel('Secret', { exact: true }).waitFor();
    expect(await textbox('Credential header').inputValue()).toBe('Authorization');
    expect(await textbox('Credential prefix').inputValue()).toBe('Bearer');
    expect(await textbox('Username').count()).toBe(0);

    await auth.getByRole('radio', { name: 'Username and password (HTTP Basic)' }).check();
    await textbox('Username').waitFor();
    expect(await page.getByLabel('Secret', { exact: true }).count()).toBe(0);
    expect(await textbox('Credential header').count()).toBe(0);

    // A colleague joins; the server is given to them alone (and, always, to its creator).
    const workspaceId = /\/app\/w\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
    const added = await platform.api(`/workspaces/${workspaceId}/members`, {
      method: 'POST',
      cookie: await platform.sessionCookie(ownerEmail),
      body: { email: memberEmail, role: 'member' },
    });
    expect(added.status).toBe(201);
    const access = page.getByRole('group', { name: 'Who may use it' });
    await access.getByRole('radio', { name: 'Only the chosen members' }).check();
    const chosen = page.getByRole('group', { name: 'Members who may use it' });
    await chosen.getByRole('checkbox', { name: memberEmail }).check();
    expect(await chosen.getByRole('checkbox').count()).toBe(1);

    await textbox('Name').fill('Everything (basic)');
    await textbox('Server URL').fill(mcp.basicUrl);
    await page.getByRole('button', { name: 'Register server' }).click();
    expect(await page.getByText('Enter a value.').count()).toBe(2);

    await textbox('Username').fill(BASIC_USER);
    await page.getByLabel('Password', { exact: true }).fill(BASIC_PASSWORD);
    await page.getByRole('button', { name: 'Register server' }).click();
    await heading('Everything (basic)').waitFor();
    // The proxy answers 401 without the right Basic header: tools prove it was sent.
    await page.getByRole('list', { name: 'Tools of Everything (basic)' }).waitFor();
    await toolSwitch('echo').waitFor();
    await page
      .getByRole('region', { name: 'Details' })
      .getByText('Username and password (HTTP Basic)')
      .waitFor();
    expect(await page.getByText(BASIC_PASSWORD).count()).toBe(0);
    await page
      .getByRole('region', { name: 'Details' })
      .getByText(
        new RegExp(`^Only the chosen members: .+ \\(${memberEmail.replace(/\./g, '\\.')}\\)$`),
      )
      .waitFor();
  }, 120_000);

  test('a server is edited, keeping its credentials unless they are replaced', async () => {
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await heading('Edit Everything (basic)').waitFor();
    expect(await textbox('Server URL').getAttribute('readonly')).not.toBeNull();
    const replaceAuth = page.getByRole('switch', { name: 'Replace the authentication' });
    expect(await replaceAuth.isChecked()).toBe(false);
    expect(await page.getByRole('group', { name: 'Authentication' }).count()).toBe(0);
    await replaceAuth.click();
    await page.getByRole('group', { name: 'Authentication' }).waitFor();
    expect(await textbox('Username').inputValue()).toBe('');
    await replaceAuth.click();
    await expectNoSeriousA11yViolations(page);

    await page.getByRole('textbox', { name: 'Description' }).fill('Behind HTTP Basic.');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await heading('Everything (basic)').waitFor();
    await page.getByText('Behind HTTP Basic.').waitFor();
    await page
      .getByRole('region', { name: 'Details' })
      .getByText('Username and password (HTTP Basic)')
      .waitFor();
  }, 120_000);

  test('a server is disabled, then deleted after a confirmation', async () => {
    const enabled = page.getByRole('switch', { name: 'Server enabled' });
    await enabled.click();
    await page.getByRole('switch', { name: 'Server enabled', checked: false }).waitFor();

    await page.getByRole('button', { name: 'Delete server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Everything (basic)?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await heading('Everything (basic)').waitFor();

    await page.getByRole('button', { name: 'Delete server' }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await heading('MCP servers').waitFor();
    await page.getByRole('status').filter({ hasText: 'Deleted Everything (basic).' }).waitFor();
    const list = page.getByRole('list', { name: 'MCP servers' });
    expect(await list.getByRole('listitem').count()).toBe(1);
    expect(await list.getByRole('link', { name: 'Everything', exact: true }).count()).toBe(1);
  }, 120_000);
});
