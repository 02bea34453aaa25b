import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import {
  eventually,
  startConnectedAccountServers,
  type ConnectedAccountServers,
} from '@wap/testing';
import {
  expectNoPageErrors,
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAppPage,
  screenshot,
  signIn,
} from './browser';
import { START_TIMEOUT_MS, startPlatform, type RunningPlatform } from './platform';

const unique = randomBytes(4).toString('hex');
const ownerEmail = `accounts-owner-${unique}@example.com`;
const TEST_TIMEOUT_MS = 120_000;

/**
 * Connecting one's own account to an MCP server from the web app (decision 138): the server's
 * page sends the browser to the authorization server (oidc-provider), the person signs in
 * there, and the callback page brings them back connected.
 */
describe('connected accounts in a browser', () => {
  let servers: ConnectedAccountServers;
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let workspaceId: string;
  let serverId: string;

  beforeAll(async () => {
    servers = await startConnectedAccountServers({ accessTokenTtlSeconds: 3600 });
    platform = await startPlatform({
      SSRF_ALLOWLIST: '127.0.0.1',
      MCP_EXTRA_CA_CERTS: servers.caFile,
    });
    const owner = await platform.sessionCookie(ownerEmail);
    const created = await platform.api('/workspaces', {
      method: 'POST',
      cookie: owner,
      body: { name: 'Tracker users' },
    });
    workspaceId = ((await created.json()) as { workspace: { id: string } }).workspace.id;
    const registered = await platform.api('/mcp-registry', {
      method: 'POST',
      cookie: owner,
      body: {
        workspaceId,
        name: 'Issue tracker',
        description: 'Issues, as each of us sees them.',
        serverUrl: servers.mcpUrl,
        authConfig: { type: 'account' },
      },
    });
    expect(registered.status).toBe(201);
    serverId = ((await registered.json()) as { mcp: { id: string } }).mcp.id;
    browser = await launchBrowser();
    // The platform's public address (PUBLIC_BASE_URL's default) is localhost: the authorization
    // server sends the browser back there, so the person uses the platform by that name.
    page = await openAppPage(browser, platform, {
      origin: platform.url.replace('127.0.0.1', 'localhost'),
      acceptAnyCertificate: true,
    });
    await signIn(page, ownerEmail);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await servers?.stop();
  });

  const accountPanel = () => page.getByRole('region', { name: 'Your account' });

  test(
    'a person connects their own account at the authorization server and comes back connected',
    async () => {
      await page.goto(`/app/w/${workspaceId}/mcp/${serverId}`);
      await page.getByRole('heading', { level: 1, name: 'Issue tracker' }).waitFor();
      await accountPanel()
        .getByText('You have not connected your account yet: its tools cannot act for you.')
        .waitFor();
      await page
        .getByText("Connect your account to Issue tracker first: it uses each person's own account")
        .waitFor();
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'mcp-account-not-connected');

      await accountPanel().getByRole('button', { name: 'Connect your account' }).click();
      // The authorization server's own sign-in page.
      await page.waitForURL(`${servers.issuer}/interaction/**`);
      await page.getByRole('textbox', { name: 'Login' }).fill('owner-at-tracker');
      await page.getByRole('button', { name: 'Sign in' }).click();

      await page.waitForURL(`**/app/w/${workspaceId}/mcp/${serverId}`);
      await accountPanel()
        .getByText(/^Connected since /)
        .waitFor();
      // The first person to connect syncs the tools, with their own token.
      await page.getByRole('switch', { name: 'whoami', exact: true }).waitFor();
      expect(servers.acceptedTokens.length).toBeGreaterThan(0);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'mcp-account-connected');
      expectNoPageErrors(page);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'disconnecting asks twice, revokes at the authorization server and says so',
    async () => {
      const before = (await servers.events()).filter((event) => event.name === 'grant_revoked');
      await accountPanel().getByRole('button', { name: 'Disconnect your account' }).click();
      await accountPanel()
        .getByRole('group', { name: 'Confirm: Disconnect your account' })
        .getByRole('button', { name: 'Disconnect your account' })
        .click();
      await accountPanel()
        .getByText('You have not connected your account yet: its tools cannot act for you.')
        .waitFor();
      await eventually(async () => {
        const after = (await servers.events()).filter((event) => event.name === 'grant_revoked');
        expect(after.length - before.length).toBe(1);
      });
      expectNoPageErrors(page);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'the callback page says so when the answer was used or is missing',
    async () => {
      await page.goto('/app/connected-accounts/callback?state=not-a-state&code=x');
      await page
        .getByRole('heading', { level: 1, name: 'Your account was not connected' })
        .waitFor();
      await page
        .getByText(
          'No connection of yours is waiting for this answer: it expired or was used; connect again',
        )
        .waitFor();
      await page.goto('/app/connected-accounts/callback');
      await page.getByRole('heading', { level: 1, name: 'Connect your account' }).waitFor();
      expectNoPageErrors(page);
    },
    TEST_TIMEOUT_MS,
  );
});
