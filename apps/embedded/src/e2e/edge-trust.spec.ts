import { mintSessionToken, mintSignInLinkToken } from '@wap/auth';
import { http, SESSION_SECRET, startStack, uniqueEmail, type TestStack } from './stack';

// Issue 26's sign-in and cross-site requests, performed as a page of another site would
// (decisions 117 and 118): a browser sends the session cookie whichever page asks.

const PUBLIC_ORIGIN = 'https://platform.example.com';
const WEB_ORIGIN = 'https://app.example.com';
const FOREIGN_ORIGIN = 'https://evil.example.net';

describe('sign-in and cross-site requests on the embedded runtime', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack('embedded', {
      config: { devSignIn: true, publicOrigin: PUBLIC_ORIGIN, webOrigin: WEB_ORIGIN },
    });
  });
  afterAll(async () => {
    await stack.stop();
  });

  const cookieOf = (response: { headers: Headers }) =>
    (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

  /** A new person with a workspace of their own. */
  async function owner(): Promise<{ cookie: string; workspaceId: string }> {
    const cookie = await stack.cookieFor(uniqueEmail('owner'));
    const created = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'Trust' },
    });
    expect(created.status).toBe(201);
    return { cookie, workspaceId: (created.body as { workspace: { id: string } }).workspace.id };
  }

  /** A draft Custom Webhook workflow of one delay step; its id. */
  async function newWorkflow(cookie: string, workspaceId: string): Promise<string> {
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie,
      body: {
        workspaceId,
        name: 'Orders',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'delay', name: 'pause', settings: { seconds: 0 } }],
      },
    });
    expect(created.status).toBe(201);
    return (created.body as { workflow: { id: string } }).workflow.id;
  }

  describe('GET /dev/sign-in', () => {
    test.each([
      ['the address bar (Sec-Fetch-Site: none)', { 'sec-fetch-site': 'none' }],
      ['the web app its own form (same-origin)', { 'sec-fetch-site': 'same-origin' }],
      ['curl (no browser headers)', {}],
      ['an old browser following a link of the platform', { referer: `${PUBLIC_ORIGIN}/app` }],
    ])('signs in from %s', async (_label, headers) => {
      const response = await http(`${stack.url}/dev/sign-in?email=${uniqueEmail('dev')}`, {
        headers,
      });
      expect(response.status).toBe(303);
      expect(cookieOf(response)).toMatch(/^session=.+/);
    });

    test.each([
      ['a link or image on another site', { 'sec-fetch-site': 'cross-site' }],
      ['a sibling subdomain', { 'sec-fetch-site': 'same-site' }],
      ['an old browser with a foreign Referer', { referer: `${FOREIGN_ORIGIN}/page` }],
    ])('refuses %s: 403, no cookie', async (_label, headers) => {
      const response = await http(`${stack.url}/dev/sign-in?email=${uniqueEmail('csrf')}`, {
        headers,
      });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({
        error: 'Sign-in from another site refused',
        code: 'FORBIDDEN',
      });
      expect(response.headers.get('set-cookie')).toBeNull();
    });
  });

  describe('one-time sign-in links', () => {
    test('a link signs in once; a second use, a forged or a cross-site one is refused', async () => {
      const email = uniqueEmail('link');
      const token = await mintSignInLinkToken({
        sessionSecret: SESSION_SECRET,
        email,
        platformAdmin: false,
      });
      const link = `${stack.url}/session/link?token=${encodeURIComponent(token)}`;
      const crossSite = await http(link, { headers: { 'sec-fetch-site': 'cross-site' } });
      expect(crossSite.status).toBe(403);
      const first = await http(link);
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/');
      const me = await http(`${stack.url}/me`, { cookie: cookieOf(first) });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ user: { email } });
      const again = await http(link);
      expect(again.status).toBe(401);
      expect(again.body).toEqual({
        error: 'This sign-in link is used, expired or not valid',
        code: 'UNAUTHORIZED',
      });
      const underAnotherSecret = await mintSignInLinkToken({
        sessionSecret: 'a-secret-the-attacker-chose-that-is-long-enough',
        email,
        platformAdmin: true,
      });
      const forged = await http(`${stack.url}/session/link?token=${underAnotherSecret}`);
      expect(forged.status).toBe(401);
    });

    test('a link is no session, and a session is no link', async () => {
      const linkToken = await mintSignInLinkToken({
        sessionSecret: SESSION_SECRET,
        email: uniqueEmail('swap'),
        platformAdmin: true,
      });
      const asCookie = await http(`${stack.url}/me`, { cookie: `session=${linkToken}` });
      expect(asCookie.status).toBe(401);
      const sessionToken = await mintSessionToken({
        secret: SESSION_SECRET,
        sub: 'dev|swap@example.com',
        email: 'swap@example.com',
        name: 'Swap',
      });
      const asLink = await http(`${stack.url}/session/link?token=${sessionToken}`);
      expect(asLink.status).toBe(401);
    });
  });

  describe('JSON nested past the limit (decision 119)', () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const INVALID = {
      error: 'Invalid JSON body: arrays and objects nest deeper than 256 levels',
      code: 'INVALID_JSON',
    };

    test('is 400 INVALID_JSON on every JSON route, in UTF-8 and UTF-16 alike, never a 5xx', async () => {
      const { cookie, workspaceId } = await owner();
      const workflowId = await newWorkflow(cookie, workspaceId);
      const deepSettings = (depth: number) =>
        `{"workspaceId":"${workspaceId}","name":"Deep","trigger":{"type":"custom_webhook"},"steps":[{"type":"delay","name":"d","settings":${nested(depth)}}]}`;
      const requests: [string, string, string][] = [
        ['POST', '/workflows', deepSettings(5_000)],
        ['PATCH', `/workflows/${workflowId}`, `{"name":"x","steps":[${nested(300)}]}`],
        [
          'POST',
          '/ai-chat/conversations',
          `{"workspaceId":"${workspaceId}","metadata":${nested(257)}}`,
        ],
        // 30,000 deep in 60 KB, under the stack's 64 KiB body limit.
        ['POST', '/workspaces', `${'['.repeat(30_000)}${']'.repeat(30_000)}`],
      ];
      for (const [method, path, body] of requests) {
        const response = await http(`${stack.url}${path}`, { method, cookie, body });
        expect({ path, status: response.status, body: response.body }).toEqual({
          path,
          status: 400,
          body: INVALID,
        });
      }
      const utf16 = await fetch(`${stack.url}/workspaces`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json; charset=utf-16le' },
        body: Buffer.from(`{"name":${nested(300)}}`, 'utf16le'),
      });
      expect(utf16.status).toBe(400);
      expect(await utf16.json()).toEqual(INVALID);
      const atLimit = await http(`${stack.url}/workflows`, {
        method: 'POST',
        cookie,
        body: deepSettings(250),
      });
      expect(atLimit.status).not.toBeGreaterThanOrEqual(500);
    });
  });

  describe('unsafe requests carrying the session cookie', () => {
    test.each([
      ['a foreign Origin', { origin: FOREIGN_ORIGIN }],
      ['a foreign Origin on a sibling subdomain', { origin: 'https://evil.platform.example.com' }],
      ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
      ['an opaque Origin (a sandboxed frame)', { origin: 'null' }],
    ])('JSON from %s: 403, nothing made', async (_label, headers) => {
      const { cookie } = await owner();
      const response = await http(`${stack.url}/workspaces`, {
        method: 'POST',
        cookie,
        headers,
        body: { name: 'Planted' },
      });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ error: 'Cross-site request refused', code: 'FORBIDDEN' });
      const me = await http(`${stack.url}/me`, { cookie });
      const names = (me.body as { workspaces: { name: string }[] }).workspaces.map((w) => w.name);
      expect(names).not.toContain('Planted');
    });

    test.each([
      ['PUBLIC_BASE_URL', { origin: PUBLIC_ORIGIN, 'sec-fetch-site': 'same-origin' }],
      ['the CORS origin WEB_ORIGIN', { origin: WEB_ORIGIN, 'sec-fetch-site': 'cross-site' }],
      ['the gateway its own origin', {}],
      ['a program (no Origin, no Sec-Fetch-Site)', {}],
    ])('JSON from %s is served', async (label, headers) => {
      const { cookie } = await owner();
      const own = label.includes('own origin') ? { origin: stack.url } : {};
      const response = await http(`${stack.url}/workspaces`, {
        method: 'POST',
        cookie,
        headers: { ...headers, ...own },
        body: { name: 'Fine' },
      });
      expect(response.status).toBe(201);
    });

    test('a form of another site cannot run a workflow, set it live or upload a file', async () => {
      const { cookie, workspaceId } = await owner();
      const id = await newWorkflow(cookie, workspaceId);
      const form = { 'content-type': 'application/x-www-form-urlencoded', origin: FOREIGN_ORIGIN };
      for (const path of [`/workflows/${id}/run`, `/workflows/${id}/live`]) {
        const response = await http(`${stack.url}${path}`, {
          method: 'POST',
          cookie,
          headers: form,
          body: 'payload=1',
        });
        expect({ path, status: response.status }).toEqual({ path, status: 415 });
        const sameFormFromNowhere = await http(`${stack.url}${path}`, {
          method: 'POST',
          cookie,
          headers: { origin: FOREIGN_ORIGIN, 'content-type': 'application/json' },
        });
        expect({ path, status: sameFormFromNowhere.status }).toEqual({ path, status: 403 });
      }
      const workflow = await http(`${stack.url}/workflows/${id}`, { cookie });
      expect(workflow.body).toMatchObject({ workflow: { status: 'draft' } });

      const task = await http(`${stack.url}/tasks`, {
        method: 'POST',
        cookie,
        body: { workspaceId, title: 'Planted files' },
      });
      const taskId = (task.body as { task: { id: string } }).task.id;
      const upload = new FormData();
      upload.append('file', new Blob([Buffer.from('<script>')], { type: 'text/plain' }), 'x.txt');
      upload.append('workspaceId', workspaceId);
      const uploaded = await fetch(`${stack.url}/tasks/${taskId}/comments/attachments`, {
        method: 'POST',
        headers: { cookie, origin: FOREIGN_ORIGIN },
        body: upload,
      });
      expect(uploaded.status).toBe(403);
      expect(await uploaded.json()).toEqual({
        error: 'Cross-site request refused',
        code: 'FORBIDDEN',
      });
    });

    test('a body-less POST with a form content type is 415, with the JSON type it is served', async () => {
      const { cookie, workspaceId } = await owner();
      const id = await newWorkflow(cookie, workspaceId);
      for (const contentType of ['text/plain', 'multipart/form-data; boundary=x']) {
        const refused = await http(`${stack.url}/workflows/${id}/live`, {
          method: 'POST',
          cookie,
          headers: { 'content-type': contentType },
        });
        expect({ contentType, status: refused.status, body: refused.body }).toEqual({
          contentType,
          status: 415,
          body: { error: 'Content-Type must be application/json', code: 'UNSUPPORTED_MEDIA_TYPE' },
        });
      }
      const served = await http(`${stack.url}/workflows/${id}/draft`, {
        method: 'POST',
        cookie,
        headers: { 'content-type': 'application/json' },
      });
      expect(served.status).toBe(200);
    });

    test('sign-out from another site is refused', async () => {
      const response = await http(`${stack.url}/session/sign-out`, {
        method: 'POST',
        headers: { origin: FOREIGN_ORIGIN },
      });
      expect(response.status).toBe(403);
      expect(response.headers.get('set-cookie')).toBeNull();
    });
  });
});

describe('chat messages and uploads are rate-limited per person and per workspace (decision 124)', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack('embedded', {
      services: {
        chat: { CHAT_MESSAGES_PER_MINUTE_PER_USER: 2, CHAT_MESSAGES_PER_MINUTE_PER_WORKSPACE: 3 },
        storage: { uploadLimits: { perUserPerMinute: 2, perWorkspacePerMinute: 3 } },
      },
    });
  });
  afterAll(async () => {
    await stack.stop();
  });

  /** An owner's workspace and a second member of it, each with a cookie. */
  async function workspaceOfTwo(): Promise<{ workspaceId: string; owner: string; other: string }> {
    const owner = await stack.cookieFor(uniqueEmail('limited-owner'));
    const created = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie: owner,
      body: { name: 'Limited' },
    });
    const workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
    const otherEmail = uniqueEmail('limited-member');
    const added = await http(`${stack.url}/workspaces/${workspaceId}/members`, {
      method: 'POST',
      cookie: owner,
      body: { email: otherEmail, role: 'member' },
    });
    expect(added.status).toBe(201);
    return { workspaceId, owner, other: await stack.cookieFor(otherEmail) };
  }

  function expectLimited(response: Awaited<ReturnType<typeof http>>, error: string): void {
    expect(response.status).toBe(429);
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(response.body).toEqual({
      error,
      code: 'RATE_LIMITED',
      details: { retryAfterSeconds: retryAfter },
    });
  }

  test('messages: a person past their limit, then the workspace past its own; another workspace is not held back', async () => {
    const { workspaceId, owner, other } = await workspaceOfTwo();
    const chatOf = async (cookie: string, inWorkspace: string) => {
      const created = await http(`${stack.url}/ai-chat/conversations`, {
        method: 'POST',
        cookie,
        body: { workspaceId: inWorkspace, title: 'Busy' },
      });
      expect(created.status).toBe(201);
      return (created.body as { conversation: { id: string } }).conversation.id;
    };
    const chatId = await chatOf(owner, workspaceId);
    const otherChatId = await chatOf(other, workspaceId);
    const send = (cookie: string, id: string) =>
      http(`${stack.url}/ai-chat/conversations/${id}/messages`, {
        method: 'POST',
        cookie,
        body: { content: 'hello' },
      });
    expect((await send(owner, chatId)).status).toBe(202);
    expect((await send(owner, chatId)).status).toBe(202);
    expectLimited(await send(owner, chatId), 'Too many messages; retry later');
    expect((await send(other, otherChatId)).status).toBe(202);
    expectLimited(
      await send(other, otherChatId),
      'Too many messages in this workspace; retry later',
    );

    const elsewhere = await stack.cookieFor(uniqueEmail('elsewhere'));
    const created = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie: elsewhere,
      body: { name: 'Quiet' },
    });
    const quietId = (created.body as { workspace: { id: string } }).workspace.id;
    expect((await send(elsewhere, await chatOf(elsewhere, quietId))).status).toBe(202);
  });

  test('uploads: refused before a byte is stored, with Retry-After', async () => {
    const { workspaceId, owner, other } = await workspaceOfTwo();
    const task = await http(`${stack.url}/tasks`, {
      method: 'POST',
      cookie: owner,
      body: { workspaceId, title: 'Files' },
    });
    const taskId = (task.body as { task: { id: string } }).task.id;
    const upload = async (cookie: string) => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('notes')], { type: 'text/plain' }), 'n.txt');
      form.append('workspaceId', workspaceId);
      const response = await fetch(`${stack.url}/tasks/${taskId}/comments/attachments`, {
        method: 'POST',
        headers: { cookie },
        body: form,
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
        text,
      };
    };
    expect((await upload(owner)).status).toBe(200);
    expect((await upload(owner)).status).toBe(200);
    expectLimited(await upload(owner), 'Too many uploads; retry later');
    expect((await upload(other)).status).toBe(200);
    expectLimited(await upload(other), 'Too many uploads in this workspace; retry later');
  });
});
