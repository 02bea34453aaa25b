import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { eventually, startSmtpReceiver, type SmtpReceiver } from '@wap/testing';
import {
  expectNoPageErrors,
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAppPage,
  screenshot,
} from './browser';
import { START_TIMEOUT_MS, startPlatform, type RunningPlatform } from './platform';

const unique = randomBytes(4).toString('hex');
const ownerEmail = `owner-${unique}@example.com`;
const reviewerEmail = `reviewer-${unique}@example.com`;
const colleagueEmail = `colleague-${unique}@example.com`;
const strangerEmail = `stranger-${unique}@example.com`;
const TEST_TIMEOUT_MS = 120_000;

interface Setup {
  workspaceId: string;
  approveLink: string;
  rejectLink: string;
}

describe('approval email links in a browser', () => {
  let receiver: SmtpReceiver;
  let platform: RunningPlatform;
  let browser: Browser;
  let setup: Setup;

  async function api<T>(path: string, cookie: string, body?: unknown): Promise<T> {
    const response = await platform.api(path, {
      method: body === undefined ? 'GET' : 'POST',
      cookie,
      body,
    });
    if (response.status >= 300) throw new Error(`${path} answered ${response.status}`);
    return (await response.json()) as T;
  }

  /** A workspace whose run waits for the reviewer's approval, and the email that says so. */
  async function pausedRunWithEmail(): Promise<Setup> {
    const owner = await platform.sessionCookie(ownerEmail);
    const { workspace } = await api<{ workspace: { id: string } }>('/workspaces', owner, {
      name: 'Contracts',
    });
    const members = `/workspaces/${workspace.id}/members`;
    const { member } = await api<{ member: { user_id: string } }>(members, owner, {
      email: reviewerEmail,
      role: 'member',
    });
    await api(members, owner, { email: colleagueEmail, role: 'member' });
    const settings = await platform.api(`/workspaces/${workspace.id}/notification-settings`, {
      method: 'PATCH',
      cookie: owner,
      body: { email_on_approval: true },
    });
    expect(settings.status).toBe(200);
    await api(
      `/workspaces/${workspace.id}/credits/grants`,
      await platform.sessionCookie('admin@example.com', { platformAdmin: true }),
      { amount: 10, reason: 'approval links' },
    );
    const { workflow } = await api<{ workflow: { id: string } }>('/workflows', owner, {
      workspaceId: workspace.id,
      name: 'Supplier contract',
      trigger: { type: 'custom_webhook' },
      steps: [
        {
          type: 'approval',
          name: 'Legal review',
          settings: { reviewerIds: [member.user_id], message: 'Please check clause 7.' },
        },
      ],
    });
    await api(`/workflows/${workflow.id}/run`, owner, {});
    await eventually(
      async () => expect(receiver.mailTo(reviewerEmail)).toHaveLength(1),
      TEST_TIMEOUT_MS / 2,
    );
    const text = receiver.mailTo(reviewerEmail)[0]?.text ?? '';
    const linkAfter = (label: string) => new RegExp(`${label}: (\\S+)`).exec(text)?.[1] ?? '';
    return {
      workspaceId: workspace.id,
      approveLink: linkAfter('Approve'),
      rejectLink: linkAfter('Reject'),
    };
  }

  /** A browser of its own, signed in to nobody, as a person opening their mail. */
  async function freshPage(): Promise<Page> {
    return openAppPage(browser, platform);
  }

  /** The sign-in page the app sent the person to: signing in there returns them to the link. */
  async function signInWhenAsked(page: Page, email: string): Promise<void> {
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  beforeAll(async () => {
    receiver = await startSmtpReceiver();
    platform = await startPlatform({
      SMTP_URL: receiver.url,
      MAIL_FROM: 'Approvals <approvals@example.com>',
    });
    browser = await launchBrowser();
    setup = await pausedRunWithEmail();
  }, START_TIMEOUT_MS + TEST_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await receiver?.stop();
  });

  test('the links lead to the approval page of the web app', () => {
    const page = new RegExp(`^http://\\S+/app/w/${setup.workspaceId}/approvals/[0-9a-f-]{36}`);
    expect(setup.approveLink).toMatch(new RegExp(`${page.source}\\?decision=approve$`));
    expect(setup.rejectLink).toMatch(new RegExp(`${page.source}\\?decision=reject$`));
  });

  test(
    'a colleague who is not a reviewer sees the approval but cannot decide it',
    async () => {
      const page = await freshPage();
      await page.goto(setup.approveLink);
      await signInWhenAsked(page, colleagueEmail);
      await page
        .getByRole('heading', { level: 1, name: 'Supplier contract: Legal review' })
        .waitFor();
      await page.getByText(`reviewers (reviewer-${unique}) can decide it`).waitFor();
      await page.getByText('you are not one of them').waitFor();
      expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expectNoPageErrors(page);
      await page.context().close();
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'a stranger following the link signs in and is told it is not theirs',
    async () => {
      const page = await freshPage();
      await page.goto(setup.rejectLink);
      await signInWhenAsked(page, strangerEmail);
      await page.getByRole('heading', { name: 'Workspace not found' }).waitFor();
      expect(new URL(page.url()).pathname).toBe(new URL(setup.rejectLink).pathname);
      expect(await page.getByText('Please check clause 7.').count()).toBe(0);
      expectNoPageErrors(page);
      await page.context().close();
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'the reviewer follows the Approve link, signs in, comes back to it and approves',
    async () => {
      const page = await freshPage();
      await page.goto(setup.approveLink);
      await signInWhenAsked(page, reviewerEmail);
      const card = page.getByRole('article', { name: 'Supplier contract: Legal review' });
      await card.getByText('Please check clause 7.').waitFor();
      await card.getByText('Reviewers: You').waitFor();
      expect(new URL(page.url()).search).toBe('?decision=approve');
      await page.getByRole('status').filter({ hasText: 'You followed the Approve link' }).waitFor();
      // Opening the link decided nothing: the button the link named has the focus.
      const approve = card.getByRole('button', { name: 'Approve' });
      expect(await approve.evaluate((button) => button === document.activeElement)).toBe(true);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'approval-link');

      await card.getByRole('textbox', { name: 'Comment (optional)' }).fill('Clause 7 is fine.');
      await approve.click();
      await page.getByText('This approval was already approved by you').waitFor();
      await page.getByText('“Clause 7 is fine.”').waitFor();

      // The Reject link of the same email, afterwards: nothing left to decide.
      await page.goto(setup.rejectLink);
      await page.getByText('This approval was already approved').waitFor();
      expect(await page.getByRole('button', { name: 'Reject' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Open the run' }).click();
      await page.getByRole('heading', { level: 1, name: 'Run of Supplier contract' }).waitFor();
      await page
        .getByRole('region', { name: 'Summary' })
        .getByText('Succeeded')
        .waitFor({ timeout: 30_000 });
      expectNoPageErrors(page);
      await page.context().close();
    },
    TEST_TIMEOUT_MS,
  );
});
