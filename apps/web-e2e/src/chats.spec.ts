import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  startChatCompletionsProvider,
  startEverythingMcpServer,
  textReply,
  toolCallReply,
  type ChatCompletionsProvider,
  type McpTestServer,
} from '@wap/testing';
import {
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAppPage,
  screenshot,
  signIn,
} from './browser';
import { startPlatform, type RunningPlatform } from './platform';

const unique = randomBytes(4).toString('hex');
const ownerEmail = `alex-${unique}@example.com`;
const memberEmail = `sam-${unique}@example.com`;
// The development sign-in names a person after their email's local part.
const ownerName = `alex-${unique}`;
const memberName = `sam-${unique}`;

/** A reply long enough to be seen arriving piece by piece (40 pieces, 50 ms apart). */
const STREAMED_TEXT = Array.from({ length: 40 }, (_, index) => `piece${index}`).join(' ');
/** What the model says after its long-running tool was stopped. */
const AFTER_TOOL_TEXT = 'The operation was stopped, so here is the rest of my answer.';
/** How long a test may take: the platform, the model and Chromium share two cores with others. */
const TEST_TIMEOUT_MS = 150_000;

describe('chats in a browser', () => {
  let provider: ChatCompletionsProvider;
  let mcp: McpTestServer;
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let memberPage: Page;
  let workspaceId = '';
  const chatIds: Record<string, string> = {};

  beforeAll(async () => {
    provider = await startChatCompletionsProvider();
    mcp = await startEverythingMcpServer();
    // The registry connects to https only, past an SSRF guard: the test server is on 127.0.0.1
    // behind a proxy whose certificate a throw-away CA signed.
    platform = await startPlatform({
      LLM_BASE_URL: provider.baseUrl,
      LLM_MODEL: 'scripted',
      SSRF_ALLOWLIST: '127.0.0.1',
      MCP_EXTRA_CA_CERTS: mcp.caFile,
    });
    browser = await launchBrowser();
    page = await openAppPage(browser, platform);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await mcp?.stop();
    await provider?.stop();
  });

  const heading = (on: Page, name: string) => on.getByRole('heading', { level: 1, name });
  const composer = (on: Page) => on.getByRole('textbox', { name: 'Message' });
  const lastReply = (on: Page) => on.getByRole('article', { name: 'Assistant' }).last();
  const chatPath = (title: string) => `/app/w/${workspaceId}/chats/${chatIds[title] ?? ''}`;
  const chatIdOf = (on: Page) => new URL(on.url()).pathname.split('/').pop() ?? '';

  /**
   * Waits until `target` is on screen and not under the composer kept at the window's bottom,
   * without scrolling: what a person sees, not what a click would scroll to.
   */
  async function waitUntilSeen(target: Locator): Promise<void> {
    const element = await target.elementHandle();
    await target.page().waitForFunction(
      (shown) => {
        if (!shown) return false;
        const box = shown.getBoundingClientRect();
        const composer = document.querySelector('.composer');
        const limit = composer ? composer.getBoundingClientRect().top : window.innerHeight;
        return box.top >= 0 && box.bottom <= limit + 1;
      },
      element,
      { timeout: 10_000 },
    );
  }

  async function openChats(on: Page): Promise<void> {
    await on
      .getByRole('navigation', { name: 'Chat Lab workspace' })
      .getByRole('link', { name: 'Chats' })
      .click();
    await heading(on, 'Chats').waitFor();
  }

  async function startChat(title: string): Promise<void> {
    await page.goto(`/app/w/${workspaceId}/chats`);
    await page.getByRole('textbox', { name: 'Title (optional)' }).fill(title);
    await page.getByRole('button', { name: 'Start chat' }).click();
    await heading(page, title || 'Untitled chat').waitFor();
    chatIds[title] = chatIdOf(page);
  }

  async function send(text: string): Promise<void> {
    await composer(page).fill(text);
    await composer(page).press('Enter');
  }

  async function replyEnded(): Promise<void> {
    await page.getByRole('button', { name: 'Send' }).and(page.locator(':enabled')).waitFor();
  }

  async function api(path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') {
    const response = await platform.api(path, {
      method,
      cookie: await platform.sessionCookie(ownerEmail),
      body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  test(
    'the owner creates a workspace with a member and an MCP server; the chat list starts empty',
    async () => {
      await signIn(page, ownerEmail);
      await page.getByRole('textbox', { name: 'Workspace name' }).fill('Chat Lab');
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await heading(page, 'Chat Lab').waitFor();
      workspaceId = chatIdOf(page);

      const added = await api(`/workspaces/${workspaceId}/members`, {
        email: memberEmail,
        role: 'member',
      });
      expect(added.status).toBe(201);
      const registered = await api('/mcp-registry', {
        workspaceId,
        serverType: 'custom',
        name: 'everything',
        description: 'server-everything',
        serverUrl: mcp.openUrl,
        accessMode: 'everyone',
      });
      expect(registered.status).toBe(201);
      const deadline = Date.now() + 30_000;
      while (!(await api(`/mcp-registry/tools?workspaceId=${workspaceId}`)).body['count']) {
        if (Date.now() > deadline) throw new Error('server-everything was not synced');
        await page.waitForTimeout(200);
      }

      await openChats(page);
      await page.getByRole('heading', { name: 'No chats yet' }).waitFor();
      await expectNoSeriousA11yViolations(page);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'a chat streams the reply token by token; Enter sends and Shift+Enter starts a new line',
    async () => {
      await startChat('Quarterly report');
      await page.getByRole('heading', { name: 'No messages yet' }).waitFor();
      await composer(page).fill('Summarise the quarter');
      await composer(page).press('Shift+Enter');
      await composer(page).pressSequentially('in three lines');
      expect(await composer(page).inputValue()).toBe('Summarise the quarter\nin three lines');

      provider.enqueue({ text: STREAMED_TEXT.split(/(?= )/), chunkDelayMs: 50 });
      await composer(page).press('Enter');
      const mine = page.getByRole('article', { name: 'You' }).last();
      await mine.getByText('Summarise the quarter').waitFor();
      expect(await composer(page).inputValue()).toBe('');

      // The reply shows growing before it is whole.
      const reply = lastReply(page);
      const partials = new Set<string>();
      const deadline = Date.now() + 60_000;
      for (;;) {
        const text = await reply.innerText();
        if (text.includes('piece39')) break;
        if (text.includes('piece0')) partials.add(text);
        if (Date.now() > deadline) throw new Error(`the reply did not complete: ${text}`);
        await page.waitForTimeout(40);
      }
      expect(partials.size).toBeGreaterThanOrEqual(3);
      await replyEnded();
      expect(await reply.getByText(STREAMED_TEXT, { exact: true }).count()).toBe(1);
      expect(provider.requests.at(-1)?.body.messages.at(-1)).toEqual({
        role: 'user',
        content: 'Summarise the quarter\nin three lines',
      });

      // Stored: the reply is there after a reload.
      await page.reload();
      await lastReply(page).getByText(STREAMED_TEXT, { exact: true }).waitFor();
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'replies and messages show as Markdown; HTML in them is never rendered and links open outside',
    async () => {
      provider.enqueue({
        text: [
          '**Done:** see [the report](https://example.com/report)\n\n',
          '- first\n- second\n\n',
          '<img src=x onerror="window.injected=1"><script>window.injected=2</script>',
          '[bad](javascript:window.injected=3)',
        ],
      });
      await send('Give me *the* summary');
      const mine = page.getByRole('article', { name: 'You' }).last();
      await mine.locator('em', { hasText: 'the' }).waitFor();
      const reply = lastReply(page);
      await reply.locator('strong', { hasText: 'Done:' }).waitFor();
      await replyEnded();
      const link = reply.getByRole('link', { name: 'the report' });
      expect(await link.getAttribute('href')).toBe('https://example.com/report');
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await reply.getByRole('listitem').allInnerTexts()).toEqual(['first', 'second']);
      expect(await reply.locator('img, script').count()).toBe(0);
      expect(await reply.getByRole('link', { name: 'bad' }).getAttribute('href')).not.toMatch(
        /^javascript:/i,
      );
      expect(await page.evaluate(() => (window as { injected?: number }).injected)).toBeUndefined();
      await expectNoSeriousA11yViolations(page);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'Stop ends a long reply: the status says stopped and the partial text stays',
    async () => {
      provider.enqueue({
        text: Array.from({ length: 400 }, (_, index) => `word${index} `),
        chunkDelayMs: 50,
      });
      await send('Write me a very long story');
      const reply = lastReply(page);
      await reply.getByText(/word5 /).waitFor();
      // The reply grows under the person's eyes: its end and its Stop stay in view.
      await waitUntilSeen(reply.getByRole('button', { name: 'Stop', exact: true }));
      await reply.getByRole('button', { name: 'Stop', exact: true }).click();
      await reply.getByText('Stopped: the reply was cut short here.').waitFor();
      const partial = await reply.innerText();
      expect(partial).toMatch(/word5 /);
      expect(partial).not.toMatch(/word399/);
      await replyEnded();

      await page.reload();
      const stored = lastReply(page);
      await stored.getByText('Stopped: the reply was cut short here.').waitFor();
      // A chat opens at its newest message.
      await waitUntilSeen(stored.getByText('Stopped: the reply was cut short here.'));
      expect(await stored.innerText()).toMatch(/word0 word1 word2 word3 word4 word5 /);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'Stop tool cancels a running tool call at its MCP server, and the reply goes on',
    async () => {
      provider.enqueue(
        toolCallReply('trigger-long-running-operation', { duration: 30, steps: 30 }),
        textReply(AFTER_TOOL_TEXT),
      );
      await send('Run the long operation');
      const call = lastReply(page).getByRole('group', {
        name: 'Tool call: trigger-long-running-operation',
      });
      await call.getByText('Running…').waitFor();
      await waitUntilSeen(call.getByRole('button', { name: 'Stop tool' }));
      await waitUntilSeen(lastReply(page).getByRole('button', { name: 'Stop', exact: true }));
      const shown = await call.innerText();
      expect(shown).toContain('"duration": 30');
      expect(shown).toContain('"steps": 30');
      // Give the registry a moment to have the call in flight at the MCP server.
      await page.waitForTimeout(1000);
      await call.getByRole('button', { name: 'Stop tool' }).click();
      await call.getByText('Cancelled', { exact: true }).waitFor();
      await call.getByText('The tool call was cancelled by the user.').waitFor();
      await lastReply(page).getByText(AFTER_TOOL_TEXT).waitFor();
      await replyEnded();
      expect(provider.requests.at(-1)?.body.messages.at(-1)).toMatchObject({
        role: 'tool',
        content: 'Error: The tool call was cancelled by the user.',
      });
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'chat');
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'the list shows starred chats first, archived ones apart, each with a preview and a time',
    async () => {
      await startChat('');
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByRole('textbox', { name: 'Chat title' }).fill('Salary review');
      await page.getByRole('button', { name: 'Save title' }).click();
      await heading(page, 'Salary review').waitFor();
      chatIds['Salary review'] = chatIdOf(page);
      await startChat('Team offsite');
      await page.getByRole('button', { name: 'Archive' }).click();
      await page.getByRole('status').filter({ hasText: 'Archived:' }).waitFor();
      await startChat('Roadmap');

      await openChats(page);
      const recent = page.getByRole('region', { name: 'Recent' });
      await recent.getByRole('link', { name: 'Quarterly report' }).waitFor();
      expect(await recent.getByRole('link').allInnerTexts()).toEqual([
        'Roadmap',
        'Salary review',
        'Quarterly report',
      ]);
      await recent.getByText(/^Assistant: /).waitFor();
      await recent.getByText('just now').first().waitFor();

      await page.getByRole('button', { name: 'Star Quarterly report' }).click();
      const starred = page.getByRole('region', { name: 'Starred' });
      await starred.getByRole('link', { name: 'Quarterly report' }).waitFor();
      expect(
        await starred
          .getByRole('button', { name: 'Star Quarterly report' })
          .getAttribute('aria-pressed'),
      ).toBe('true');
      await page.reload();
      await starred.getByRole('link', { name: 'Quarterly report' }).waitFor();
      expect(await recent.getByRole('link', { name: 'Quarterly report' }).count()).toBe(0);
      await expectNoSeriousA11yViolations(page);
      await screenshot(page, 'chats');

      expect(await page.getByRole('link', { name: 'Team offsite' }).count()).toBe(0);
      await page
        .getByRole('navigation', { name: 'Chat lists' })
        .getByRole('link', { name: 'Archived' })
        .click();
      await page
        .getByRole('region', { name: 'Archived chats' })
        .getByRole('link', { name: 'Team offsite' })
        .waitFor();
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'a reply that failed says why, also once stored',
    async () => {
      await page.goto(chatPath('Roadmap'));
      await heading(page, 'Roadmap').waitFor();
      provider.enqueue({ httpError: { status: 500, message: 'The scripted model is down' } });
      await send('Are you there?');
      await lastReply(page).getByRole('alert').filter({ hasText: 'The reply failed:' }).waitFor();
      await replyEnded();
      await page.reload();
      const stored = lastReply(page);
      await stored
        .getByText(/^The reply failed: The model provider failed/)
        .waitFor()
        .catch(async (error: unknown) => {
          throw new Error(`${String(error)}\nThe reply reads: ${await stored.innerText()}`);
        });
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'a member without access sees a page naming the chat and its owner, and asks for access',
    async () => {
      memberPage = await openAppPage(browser, platform);
      await signIn(memberPage, memberEmail);
      await heading(memberPage, 'Chat Lab').waitFor();
      await openChats(memberPage);
      await memberPage.getByRole('heading', { name: 'No chats yet' }).waitFor();

      await memberPage.goto(chatPath('Salary review'));
      await heading(memberPage, 'Salary review').waitFor();
      await memberPage.getByText(`Ask ${ownerName} for access`).waitFor();
      await expectNoSeriousA11yViolations(memberPage);
      await screenshot(memberPage, 'chat-request-access');
      await memberPage.getByRole('button', { name: 'Request access' }).click();
      await memberPage.getByRole('status').filter({ hasText: 'Access requested.' }).waitFor();

      await memberPage.reload();
      await memberPage.getByRole('status').filter({ hasText: 'Access requested.' }).waitFor();
      expect(await memberPage.getByRole('button', { name: 'Request access' }).count()).toBe(0);

      await memberPage.goto(`/app/w/${workspaceId}/chats/${randomUUID()}`);
      await heading(memberPage, 'Chat not found').waitFor();
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'shared with everyone, a chat opens for the member to read but not to write',
    async () => {
      await page.goto(chatPath('Quarterly report'));
      await page.getByRole('link', { name: 'Share' }).click();
      await heading(page, 'Share “Quarterly report”').waitFor();
      await page.getByRole('radio', { name: 'Everyone in the workspace' }).check();
      await page
        .getByRole('status')
        .filter({ hasText: 'Saved: everyone in the workspace can open this chat.' })
        .waitFor();

      await memberPage.goto(chatPath('Quarterly report'));
      await heading(memberPage, 'Quarterly report').waitFor();
      await lastReply(memberPage).getByText(AFTER_TOOL_TEXT).waitFor();
      expect(await composer(memberPage).isDisabled()).toBe(true);
      await memberPage.getByText('You can read this chat but not write in it').waitFor();
      expect(await memberPage.getByRole('button', { name: 'Send' }).count()).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'the owner grants the request with edit rights, and the member writes in the chat',
    async () => {
      await page.goto(chatPath('Salary review'));
      await page.getByText('1 person asked for access to this chat.').waitFor();
      await page.getByRole('link', { name: 'Review access requests' }).click();
      await heading(page, 'Share “Salary review”').waitFor();
      await expectNoSeriousA11yViolations(page);
      await page.getByRole('button', { name: `Grant edit access to ${memberName}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${memberName} can now read and write in this chat.` })
        .waitFor();
      await page.getByText('No pending requests.').waitFor();
      expect(
        await page.getByRole('radio', { name: 'Me and the people I invite' }).isChecked(),
      ).toBe(true);

      await memberPage.goto(chatPath('Salary review'));
      await heading(memberPage, 'Salary review').waitFor();
      provider.enqueue(textReply('Happy to help with the review.'));
      await composer(memberPage).fill('Can I help?');
      await composer(memberPage).press('Enter');
      await lastReply(memberPage).getByText('Happy to help with the review.').waitFor();
    },
    TEST_TIMEOUT_MS,
  );

  test(
    'the owner invites a member picked from the workspace, with edit rights',
    async () => {
      await page.goto(chatPath('Roadmap'));
      await page.getByRole('link', { name: 'Share' }).click();
      await heading(page, 'Share “Roadmap”').waitFor();
      const invite = page.getByRole('region', { name: 'Invite people' });
      await invite.getByRole('checkbox', { name: memberEmail }).check();
      await invite.getByRole('checkbox', { name: /^Can edit/ }).check();
      await invite.getByRole('button', { name: 'Invite' }).click();
      await invite
        .getByRole('status')
        .filter({ hasText: `Invited ${memberName} with edit rights.` })
        .waitFor();
      const people = page.getByRole('region', { name: 'People in this chat' });
      await people.getByRole('row', { name: `${memberName} Reads and writes` }).waitFor();
      expect(
        await page.getByRole('radio', { name: 'Me and the people I invite' }).isChecked(),
      ).toBe(true);

      await memberPage.goto(chatPath('Roadmap'));
      await heading(memberPage, 'Roadmap').waitFor();
      expect(await composer(memberPage).isDisabled()).toBe(false);
      await memberPage.goto(`/app/w/${workspaceId}/chats`);
      const listed = memberPage.getByRole('region', { name: 'Recent' });
      await listed.getByRole('link', { name: 'Roadmap' }).waitFor();
      await listed
        .getByText(/Shared with you/)
        .first()
        .waitFor();

      // The member sees who is in the chat, then leaves it and can no longer open it.
      await memberPage.goto(`${chatPath('Roadmap')}/sharing`);
      const seen = memberPage.getByRole('region', { name: 'People in this chat' });
      await seen.getByRole('row', { name: `${ownerName} Owner` }).waitFor();
      await seen.getByRole('row', { name: /^You Reads and writes/ }).waitFor();
      await expectNoSeriousA11yViolations(memberPage);
      await seen.getByRole('button', { name: 'Leave this chat' }).click();
      await seen.getByRole('group').getByRole('button', { name: 'Leave this chat' }).click();
      await heading(memberPage, 'Chats').waitFor();
      await memberPage.goto(chatPath('Roadmap'));
      await memberPage.getByRole('button', { name: 'Request access' }).waitFor();
      await page.reload();
      await page.getByRole('region', { name: 'People in this chat' }).getByRole('table').waitFor();
      expect(await page.getByRole('row', { name: new RegExp(memberName) }).count()).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
  test(
    'a long list loads more chats on request',
    async () => {
      const created = await api('/workspaces', { name: 'Busy Lab' });
      expect(created.status).toBe(201);
      const busyId = (created.body['workspace'] as { id: string }).id;
      for (let index = 1; index <= 31; index += 1) {
        const chat = await api('/ai-chat/conversations', {
          workspaceId: busyId,
          title: `Chat ${String(index).padStart(2, '0')}`,
        });
        expect(chat.status).toBe(201);
      }
      await page.goto(`/app/w/${busyId}/chats`);
      const recent = page.getByRole('region', { name: 'Recent' });
      await recent.getByRole('link', { name: 'Chat 31' }).waitFor();
      expect(await recent.getByRole('link').count()).toBe(30);
      expect(await recent.getByRole('link', { name: 'Chat 01' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Load more chats' }).click();
      await recent.getByRole('link', { name: 'Chat 01' }).waitFor();
      expect(await recent.getByRole('link').count()).toBe(31);
      expect(await page.getByRole('button', { name: 'Load more chats' }).count()).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
