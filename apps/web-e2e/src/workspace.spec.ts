import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
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
const ownerEmail = `owner-${unique}@example.com`;
const memberEmail = `member-${unique}@example.com`;

describe('the workspace feature in a browser', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let workspacePath = '';

  beforeAll(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    page = await openAppPage(browser, platform);
  }, START_TIMEOUT_MS + 30_000);
  afterEach(() => expectNoPageErrors(page));
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  const nav = () => page.getByRole('navigation', { name: 'Acme Support workspace' });

  test('the sign-in page checks the email before leaving', async () => {
    await page.goto('/app/sign-in');
    await page.getByRole('textbox', { name: 'Email' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByText('Enter an email address, like name@example.com.').count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/app/sign-in');
  });

  test('a new person signs in and creates their first workspace', async () => {
    await signIn(page, ownerEmail);
    await page.getByRole('heading', { name: 'Create your first workspace' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'first-workspace');

    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText('Enter a value.').waitFor();
    await page.getByRole('textbox', { name: 'Workspace name' }).fill('Acme Support');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await heading('Acme Support').waitFor();
    workspacePath = new URL(page.url()).pathname;
    expect(workspacePath).toMatch(/^\/app\/w\/[0-9a-f-]{36}$/);
    expect(await page.title()).toBe('Acme Support · Workspace Assistant');
  });

  test('the overview shows the credit balance a platform admin granted', async () => {
    const credits = page.getByRole('region', { name: 'Credits' });
    await credits.getByText('0 credits left').waitFor();
    const workspaceId = workspacePath.split('/').pop() ?? '';
    const granted = await platform.api(`/workspaces/${workspaceId}/credits/grants`, {
      method: 'POST',
      cookie: await platform.sessionCookie('admin@example.com', { platformAdmin: true }),
      body: { amount: 25, reason: 'browser test' },
    });
    expect(granted.status).toBe(201);
    await page.reload();
    await credits.getByText('25 credits left').waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'workspace-overview');
  });

  test('a platform administrator grants credits on their page; others are told it is not theirs', async () => {
    const workspaceId = workspacePath.split('/').pop() ?? '';
    // The owner has no such page and no link to it.
    expect(await page.getByRole('link', { name: 'Grant credits' }).count()).toBe(0);
    await page.goto('/app/admin/credits');
    await page
      .getByRole('heading', { name: 'Only platform administrators grant credits' })
      .waitFor();

    const adminPage = await openAppPage(browser, platform);
    try {
      const admin = await platform.sessionCookie(`admin-${unique}@example.com`, {
        platformAdmin: true,
      });
      await adminPage
        .context()
        .addCookies([
          { name: 'session', value: admin.slice('session='.length), url: platform.url },
        ]);
      await adminPage.goto('/app');
      await adminPage.getByRole('link', { name: 'Grant credits' }).click();
      await adminPage.getByRole('heading', { level: 1, name: 'Grant credits' }).waitFor();
      await adminPage.getByRole('textbox', { name: 'Workspace ID' }).fill('not-an-id');
      await adminPage.getByRole('button', { name: 'Grant credits' }).click();
      expect(await adminPage.getByText('Enter a value.').count()).toBe(2);
      await adminPage.getByRole('textbox', { name: 'Workspace ID' }).fill(workspaceId);
      await adminPage.getByRole('spinbutton', { name: 'Credits' }).fill('100');
      await adminPage.getByRole('textbox', { name: 'Reason' }).fill('Pilot month');
      await adminPage.getByRole('button', { name: 'Grant credits' }).click();
      await adminPage
        .getByRole('status')
        .filter({ hasText: 'Granted 100 credits: the workspace now has 125.' })
        .waitFor();
      // A correction below zero is refused and says why.
      await adminPage.getByRole('spinbutton', { name: 'Credits' }).fill('-1000');
      await adminPage.getByRole('textbox', { name: 'Reason' }).fill('Typo');
      await adminPage.getByRole('button', { name: 'Grant credits' }).click();
      await adminPage.getByRole('alert').filter({ hasText: 'No credits were granted.' }).waitFor();
      await expectNoSeriousA11yViolations(adminPage);
      await screenshot(adminPage, 'grant-credits');
      expectNoPageErrors(adminPage);
    } finally {
      await adminPage.context().close();
    }
    await page.goto(workspacePath);
    await page.getByRole('region', { name: 'Credits' }).getByText('125 credits left').waitFor();
  });

  test('an owner sees the members, adds one, and adding them twice says so', async () => {
    await nav().getByRole('link', { name: 'Members' }).click();
    await heading('Members').waitFor();
    const members = page.getByRole('table', { name: 'People in this workspace' });
    await members.getByRole('row').filter({ hasText: ownerEmail }).waitFor();
    expect(await members.getByRole('row').count()).toBe(2);
    await page.getByRole('textbox', { name: 'Email' }).fill(memberEmail);
    await page
      .getByRole('combobox', { name: 'Role', exact: true })
      .selectOption({ label: 'Member' });
    await page.getByRole('button', { name: 'Add member' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Added ${memberEmail} as a member.` })
      .waitFor();
    await members.getByRole('row').filter({ hasText: memberEmail }).waitFor();
    const roles = (email: string) =>
      members.getByRole('combobox', { name: `Role of ${email}` }).inputValue();
    expect(await members.getByRole('row').count()).toBe(3);
    expect(await roles(ownerEmail)).toBe('owner');
    expect(await roles(memberEmail)).toBe('member');
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'members');

    await page.getByRole('textbox', { name: 'Email' }).fill(memberEmail);
    await page.getByRole('button', { name: 'Add member' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'User is already a member of this workspace' })
      .waitFor();
  });

  test('an owner changes a role and removes someone after a confirmation; the last owner cannot leave', async () => {
    const members = page.getByRole('table', { name: 'People in this workspace' });
    const temporary = `temp-${ownerEmail}`;
    await page.getByRole('textbox', { name: 'Email' }).fill(temporary);
    await page.getByRole('button', { name: 'Add member' }).click();
    await members.getByRole('row').filter({ hasText: temporary }).waitFor();

    await members.getByRole('combobox', { name: `Role of ${temporary}` }).selectOption('owner');
    await page
      .getByRole('status')
      .filter({ hasText: `${temporary} is now an owner.` })
      .waitFor();
    await members.getByRole('combobox', { name: `Role of ${temporary}` }).selectOption('member');
    await page
      .getByRole('status')
      .filter({ hasText: `${temporary} is now a member.` })
      .waitFor();

    await members.getByRole('button', { name: `Remove ${temporary}` }).click();
    await members
      .getByRole('group', { name: `Confirm: Remove ${temporary}` })
      .getByRole('button', { name: `Remove ${temporary}` })
      .click();
    await page
      .getByRole('status')
      .filter({ hasText: `Removed ${temporary}.` })
      .waitFor();
    expect(await members.getByRole('row').filter({ hasText: temporary }).count()).toBe(0);

    // The only owner is told why they cannot step down.
    await members.getByRole('combobox', { name: `Role of ${ownerEmail}` }).selectOption('member');
    await page
      .getByRole('alert')
      .filter({ hasText: 'A workspace keeps at least one owner' })
      .waitFor();
    await expectNoSeriousA11yViolations(page);
  });

  test('the workspace approval emails switch and the person’s own preference are saved', async () => {
    await nav().getByRole('link', { name: 'Settings' }).click();
    await heading('Settings').waitFor();
    const workspaceEmails = page.getByRole('switch', {
      name: 'Email reviewers when a workflow waits for their approval',
    });
    await workspaceEmails.waitFor();
    expect(await workspaceEmails.isChecked()).toBe(false);
    await workspaceEmails.click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Approval emails are on for this workspace.' })
      .waitFor();

    const mine = page.getByRole('group', { name: 'When you are a reviewer' });
    const emailMe = mine.getByRole('radio', { name: 'Email me about approval tasks', exact: true });
    const doNotEmailMe = mine.getByRole('radio', { name: 'Do not email me about approval tasks' });
    // A new person gets approval task emails until they say otherwise.
    await emailMe.waitFor();
    expect(await emailMe.isChecked()).toBe(true);
    await doNotEmailMe.check();
    await page
      .getByRole('status')
      .filter({ hasText: 'Saved: you will not get approval task emails.' })
      .waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'settings');

    await page.reload();
    await workspaceEmails.waitFor();
    expect(await workspaceEmails.isChecked()).toBe(true);
    await doNotEmailMe.waitFor();
    expect(await doNotEmailMe.isChecked()).toBe(true);
  });

  test('an API key is shown once, copies, and is gone after leaving the page', async () => {
    await nav().getByRole('link', { name: 'API keys' }).click();
    await heading('API keys').waitFor();
    await page.getByRole('textbox', { name: 'Key name' }).fill('Continuous integration');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = page.getByRole('textbox', { name: 'API key' });
    await key.waitFor();
    const secret = await key.inputValue();
    expect(secret).toMatch(/^sk_\S{20,}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'api-keys');

    await nav().getByRole('link', { name: 'Overview' }).click();
    await heading('Acme Support').waitFor();
    await nav().getByRole('link', { name: 'API keys' }).click();
    await heading('API keys').waitFor();
    expect(await page.getByRole('textbox', { name: 'API key' }).count()).toBe(0);
    expect(await page.getByText(secret).count()).toBe(0);

    // The key is listed by name and its first characters, and is revoked after a confirmation.
    const inUse = page.getByRole('list', { name: 'Keys in use' });
    const listed = inUse.getByRole('listitem').filter({ hasText: 'Continuous integration' });
    await listed.getByText(`${secret.slice(0, 8)}`, { exact: false }).waitFor();
    const callMcp = () =>
      platform.api('/mcp', { method: 'POST', bearer: secret, body: { jsonrpc: '2.0', id: 1 } });
    expect((await callMcp()).status).not.toBe(401);
    await listed.getByRole('button', { name: 'Revoke Continuous integration' }).click();
    await page
      .getByRole('group', { name: 'Confirm revoking Continuous integration' })
      .getByRole('button', { name: 'Revoke Continuous integration for good' })
      .click();
    await page.getByRole('status').filter({ hasText: 'Revoked Continuous integration.' }).waitFor();
    await page.getByText('No key is in use.').waitFor();
    expect((await callMcp()).status).toBe(401);
    await expectNoSeriousA11yViolations(page);
  });

  test('an extension is authenticated with a token shown once, which works until it is revoked', async () => {
    await page.getByRole('link', { name: 'Extensions' }).click();
    await heading('Extensions').waitFor();
    await page.getByText('No extension is connected').waitFor();
    await page.getByRole('button', { name: 'Issue token' }).click();
    await page.getByText('Enter a value.').waitFor();
    await page.getByRole('textbox', { name: 'Extension name' }).fill('Chrome on my laptop');
    expect(await page.getByText('Enter a value.').count()).toBe(0);
    await page.getByRole('button', { name: 'Issue token' }).click();
    const tokenField = page.getByRole('textbox', { name: 'Extension token' });
    await tokenField.waitFor();
    const token = await tokenField.inputValue();
    expect(token.split('.')).toHaveLength(3);
    const tokens = page.getByRole('table', { name: 'Extensions that can act as you' });
    await tokens.getByRole('cell', { name: /^Chrome on my laptop Expires/ }).waitFor();
    expect(await tokens.getByText(token).count()).toBe(0);

    const me = await platform.api('/me', { bearer: token });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe(ownerEmail);
    await page.reload();
    await heading('Extensions').waitFor();
    expect(await page.getByRole('textbox', { name: 'Extension token' }).count()).toBe(0);
    await tokens.getByRole('cell', { name: /^Chrome on my laptop Expires/ }).waitFor();
    // The gateway accepted it once: the list says when, not "Never".
    expect(await tokens.getByRole('cell', { name: 'Never', exact: true }).count()).toBe(0);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'extensions');

    await tokens.getByRole('button', { name: 'Revoke Chrome on my laptop' }).click();
    await page.getByRole('status').filter({ hasText: 'Token revoked' }).waitFor();
    await page.getByText('No extension is connected').waitFor();
    expect((await platform.api('/me', { bearer: token })).status).toBe(401);
    await page.goto(`${workspacePath}/api-keys`);
    await heading('API keys').waitFor();
  });

  test('the switcher creates a second workspace and switches back, keeping the section', async () => {
    await page.getByRole('button', { name: 'Workspace: Acme Support' }).click();
    await page.getByRole('link', { name: 'New workspace' }).click();
    await heading('New workspace').waitFor();
    await page.getByRole('textbox', { name: 'Workspace name' }).fill('Beta Lab');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await heading('Beta Lab').waitFor();

    await page
      .getByRole('navigation', { name: 'Beta Lab workspace' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await heading('Settings').waitFor();
    await page.getByRole('button', { name: 'Workspace: Beta Lab' }).click();
    await page.getByRole('link', { name: 'Acme Support' }).click();
    await nav().waitFor();
    await heading('Settings').waitFor();
    expect(new URL(page.url()).pathname).toBe(`${workspacePath}/settings`);

    await page.getByRole('button', { name: 'Workspace: Acme Support' }).click();
    await page.getByRole('link', { name: 'Beta Lab' }).waitFor();
    await page.keyboard.press('Escape');
    expect(await page.getByRole('link', { name: 'Beta Lab' }).isVisible()).toBe(false);
  });

  test('the added member signs in to the workspace and cannot add members', async () => {
    const memberPage = await openAppPage(browser, platform);
    try {
      await signIn(memberPage, memberEmail);
      await memberPage.getByRole('heading', { level: 1, name: 'Acme Support' }).waitFor();
      await memberPage.getByText('You are a member here.').waitFor();
      await memberPage
        .getByRole('navigation', { name: 'Acme Support workspace' })
        .getByRole('link', { name: 'Members' })
        .click();
      await memberPage.getByText(/^Only the workspace's owners add members\./).waitFor();
      await memberPage
        .getByRole('table', { name: 'People in this workspace' })
        .getByRole('cell', { name: ownerEmail })
        .waitFor();
      expect(await memberPage.getByRole('button', { name: 'Add member' }).count()).toBe(0);
      expectNoPageErrors(memberPage);
    } finally {
      await memberPage.context().close();
    }
  });

  test('signing out ends the session: the app asks to sign in again', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await heading('Sign in').waitFor();
    await page.goto(workspacePath);
    await heading('Sign in').waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/sign-in');
  });

  test('sign out everywhere ends the sessions of every browser the person signed in with', async () => {
    await signIn(page, ownerEmail);
    const otherBrowser = await openAppPage(browser, platform);
    try {
      await signIn(otherBrowser, ownerEmail);
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await heading('Sign in').waitFor();
      await otherBrowser.goto(workspacePath);
      await otherBrowser.getByRole('heading', { level: 1, name: 'Sign in', exact: true }).waitFor();
      expect(new URL(otherBrowser.url()).pathname).toBe('/app/sign-in');
    } finally {
      await otherBrowser.context().close();
    }
  });

  test('an expired session sends the person to sign in, saying why', async () => {
    const expired = await platform.sessionCookie(ownerEmail, { expiresInSec: -600 });
    await page
      .context()
      .addCookies([
        { name: 'session', value: expired.slice('session='.length), url: platform.url },
      ]);
    await page.goto(`${workspacePath}/settings`);
    await page
      .getByRole('alert')
      .filter({ hasText: 'Your session has expired. Sign in again.' })
      .waitFor();
    expect(new URL(page.url()).search).toBe('?expired=1');
  });
});
