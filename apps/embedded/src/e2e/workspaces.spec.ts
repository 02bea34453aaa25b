import { randomUUID } from 'node:crypto';
import { http, RUNTIMES, startStack, uniqueEmail, type TestStack } from './stack';

interface Owner {
  cookie: string;
  workspaceId: string;
}

describe.each(RUNTIMES)(
  'workspaces and credits through the gateway on the %s runtime',
  (runtime) => {
    let stack: TestStack;

    beforeAll(async () => {
      stack = await startStack(runtime);
    });
    afterAll(async () => {
      await stack.stop();
    });

    async function newOwner(label: string): Promise<Owner> {
      const cookie = await stack.cookieFor(uniqueEmail(label));
      const created = await http(`${stack.url}/workspaces`, {
        method: 'POST',
        cookie,
        body: { name: `${label} workspace` },
      });
      expect(created.status).toBe(201);
      return { cookie, workspaceId: (created.body as { workspace: { id: string } }).workspace.id };
    }

    test('a member of workspace A never gets data of workspace B from any directory route', async () => {
      const a = await newOwner('a');
      const b = await newOwner('b');
      const requests: [string, string, unknown][] = [
        ['GET', `/workspaces/${b.workspaceId}/notification-settings`, undefined],
        [
          'PATCH',
          `/workspaces/${b.workspaceId}/notification-settings`,
          { email_on_approval: true },
        ],
        [
          'POST',
          `/workspaces/${b.workspaceId}/members`,
          { email: uniqueEmail('intruder'), role: 'owner' },
        ],
        ['POST', `/workspaces/${b.workspaceId}/api-keys`, { name: 'stolen' }],
        ['DELETE', `/workspaces/${b.workspaceId}`, undefined],
        ['GET', `/workspaces/${b.workspaceId}/credits`, undefined],
      ];
      for (const [method, path, body] of requests) {
        const response = await http(`${stack.url}${path}`, { method, cookie: a.cookie, body });
        expect([403, 404]).toContain(response.status);
        expect(response.body).toEqual({
          error: expect.any(String),
          code: expect.stringMatching(/^(FORBIDDEN|NOT_FOUND)$/),
        });
      }
      const settings = await http(
        `${stack.url}/workspaces/${b.workspaceId}/notification-settings`,
        {
          cookie: b.cookie,
        },
      );
      expect(settings.body).toEqual({ email_on_approval: false });
      const me = await http(`${stack.url}/me`, { cookie: b.cookie });
      expect(me.body).toMatchObject({ workspaces: [{ id: b.workspaceId }] });
    });

    test('endpoint 7: any member sets approval emails; non-members 403; unknown 404', async () => {
      const owner = await newOwner('settings');
      const memberEmail = uniqueEmail('member');
      const added = await http(`${stack.url}/workspaces/${owner.workspaceId}/members`, {
        method: 'POST',
        cookie: owner.cookie,
        body: { email: memberEmail, role: 'member' },
      });
      expect(added.status).toBe(201);
      const memberCookie = await stack.cookieFor(memberEmail);

      const patched = await http(
        `${stack.url}/workspaces/${owner.workspaceId}/notification-settings`,
        {
          method: 'PATCH',
          cookie: memberCookie,
          body: { email_on_approval: true },
        },
      );
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual({ success: true, email_on_approval: true });

      const outsider = await stack.cookieFor(uniqueEmail('outsider'));
      const forbidden = await http(
        `${stack.url}/workspaces/${owner.workspaceId}/notification-settings`,
        {
          method: 'PATCH',
          cookie: outsider,
          body: { email_on_approval: false },
        },
      );
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toMatchObject({ code: 'FORBIDDEN' });

      const unknown = await http(`${stack.url}/workspaces/${randomUUID()}/notification-settings`, {
        method: 'PATCH',
        cookie: owner.cookie,
        body: { email_on_approval: false },
      });
      expect(unknown.status).toBe(404);

      const missingField = await http(
        `${stack.url}/workspaces/${owner.workspaceId}/notification-settings`,
        {
          method: 'PATCH',
          cookie: owner.cookie,
          body: { email_on_approval: 'yes' },
        },
      );
      expect(missingField.status).toBe(400);
      expect(missingField.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    });

    test('credits: members read the balance, only platform administrators grant, corrections stop at zero', async () => {
      const owner = await newOwner('credits');
      const balance = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits`, {
        cookie: owner.cookie,
      });
      expect(balance.status).toBe(200);
      expect(balance.body).toEqual({ balance: 0 });

      const notAdmin = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: owner.cookie,
        body: { amount: 100, reason: 'self-service' },
      });
      expect(notAdmin.status).toBe(403);
      expect(notAdmin.body).toMatchObject({ code: 'FORBIDDEN' });

      const admin = await stack.cookieFor(uniqueEmail('admin'), { platformAdmin: true });
      const granted = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: admin,
        body: { amount: 100, reason: 'trial' },
      });
      expect(granted.status).toBe(201);
      expect(granted.body).toEqual({ balance: 100 });

      const tooMuch = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: admin,
        body: { amount: -101, reason: 'correction' },
      });
      expect(tooMuch.status).toBe(409);
      expect(tooMuch.body).toMatchObject({ code: 'CONFLICT' });

      const corrected = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: admin,
        body: { amount: -40, reason: 'correction' },
      });
      expect(corrected.body).toEqual({ balance: 60 });
      expect(
        (
          await http(`${stack.url}/workspaces/${owner.workspaceId}/credits`, {
            cookie: owner.cookie,
          })
        ).body,
      ).toEqual({ balance: 60 });

      const zero = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: admin,
        body: { amount: 0, reason: 'nothing' },
      });
      expect(zero.status).toBe(400);

      const unknown = await http(`${stack.url}/workspaces/${randomUUID()}/credits/grants`, {
        method: 'POST',
        cookie: admin,
        body: { amount: 5, reason: 'nobody' },
      });
      expect(unknown.status).toBe(404);
    });

    test('concurrent grants and corrections never lose a write nor go below zero', async () => {
      const owner = await newOwner('race');
      const admin = await stack.cookieFor(uniqueEmail('admin'), { platformAdmin: true });
      const grant = (amount: number) =>
        http(`${stack.url}/workspaces/${owner.workspaceId}/credits/grants`, {
          method: 'POST',
          cookie: admin,
          body: { amount, reason: 'race' },
        });
      expect((await grant(10)).status).toBe(201);
      const results = await Promise.all([
        ...Array.from({ length: 10 }, () => grant(-3)),
        ...Array.from({ length: 5 }, () => grant(1)),
      ]);
      const accepted = results.filter((result) => result.status === 201).length;
      expect(results.every((result) => [201, 409].includes(result.status))).toBe(true);
      const final = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits`, {
        cookie: owner.cookie,
      });
      const { balance } = final.body as { balance: number };
      expect(balance).toBeGreaterThanOrEqual(0);
      const acceptedCorrections = results.filter(
        (result, index) => index < 10 && result.status === 201,
      ).length;
      expect(balance).toBe(10 - 3 * acceptedCorrections + 5);
      expect(accepted).toBe(acceptedCorrections + 5);
    });
  },
);
