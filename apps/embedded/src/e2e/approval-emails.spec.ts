import { sql } from 'drizzle-orm';
import { eventually, startSmtpReceiver, type SmtpReceiver } from '@wap/testing';
import { http, RUNTIMES, startStack, uniqueEmail, type TestStack } from './stack';

interface Person {
  email: string;
  cookie: string;
  userId: string;
}

describe.each(RUNTIMES)('approval emails over SMTP on the %s runtime', (runtime) => {
  let stack: TestStack;
  let receiver: SmtpReceiver;
  let admin: string;

  beforeAll(async () => {
    receiver = await startSmtpReceiver();
    stack = await startStack(runtime, {
      services: {
        workflowRunner: {
          SMTP_URL: receiver.url,
          MAIL_FROM: 'Approvals <approvals@example.com>',
          MAIL_INTERVAL_MS: 50,
          MAIL_RETRY_BASE_MS: 100,
        },
      },
    });
    admin = await stack.cookieFor(uniqueEmail('admin'), { platformAdmin: true });
  });
  afterAll(async () => {
    await stack.stop();
    await receiver.stop();
  });

  async function person(label: string, approvalEmails = true): Promise<Person> {
    const email = uniqueEmail(label);
    const cookie = await stack.cookieFor(email);
    const me = await http(`${stack.url}/me`, { cookie });
    if (!approvalEmails) {
      const off = await http(`${stack.url}/me/preferences`, {
        method: 'PATCH',
        cookie,
        body: { approval_tasks_email: false },
      });
      expect(off.status).toBe(200);
    }
    return { email, cookie, userId: (me.body as { user: { id: string } }).user.id };
  }

  /** A workspace with the option as given and two reviewers, one wanting emails, one not. */
  async function workspace(emailOnApproval: boolean) {
    const owner = await person('owner');
    const created = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { name: 'Approvals' },
    });
    const workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
    const wantsMail = await person('wants-mail');
    const noMail = await person('no-mail', false);
    for (const reviewer of [wantsMail, noMail]) {
      const added = await http(`${stack.url}/workspaces/${workspaceId}/members`, {
        method: 'POST',
        cookie: owner.cookie,
        body: { email: reviewer.email, role: 'member' },
      });
      expect(added.status).toBe(201);
    }
    if (emailOnApproval) {
      const on = await http(`${stack.url}/workspaces/${workspaceId}/notification-settings`, {
        method: 'PATCH',
        cookie: owner.cookie,
        body: { email_on_approval: true },
      });
      expect(on.body).toEqual({ success: true, email_on_approval: true });
    }
    const granted = await http(`${stack.url}/workspaces/${workspaceId}/credits/grants`, {
      method: 'POST',
      cookie: admin,
      body: { amount: 10, reason: 'approval emails spec' },
    });
    expect(granted.status).toBe(201);
    return { owner, workspaceId, wantsMail, noMail };
  }

  /** Starts a run of an approval workflow and waits until it is paused at the approval. */
  async function pausedRun(space: Awaited<ReturnType<typeof workspace>>, name: string) {
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: space.owner.cookie,
      body: {
        workspaceId: space.workspaceId,
        name,
        trigger: { type: 'custom_webhook' },
        steps: [
          {
            type: 'approval',
            name: 'legal_review',
            settings: {
              reviewerIds: [space.wantsMail.userId, space.noMail.userId],
              message: 'Please check the contract.',
            },
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const workflowId = (created.body as { workflow: { id: string } }).workflow.id;
    const run = await http(`${stack.url}/workflows/${workflowId}/run`, {
      method: 'POST',
      cookie: space.owner.cookie,
    });
    expect(run.status).toBe(202);
    const { runId } = run.body as { runId: string };
    await eventually(async () => {
      const current = await http(`${stack.url}/runs/${runId}`, { cookie: space.owner.cookie });
      expect((current.body as { run: { status: string } }).run.status).toBe('waiting_approval');
    });
    const inbox = await http(`${stack.url}/approvals?workspaceId=${space.workspaceId}`, {
      cookie: space.wantsMail.cookie,
    });
    const [approval] = (inbox.body as { approvals: { id: string; run_id: string }[] }).approvals;
    expect(approval?.run_id).toBe(runId);
    return { runId, approvalId: approval?.id ?? '' };
  }

  const mailTo = (address: string) => receiver.mailTo(address);

  test('the workspace option and each reviewer’s preference decide who gets mail', async () => {
    // Option off first: its approval is handled before the one whose mail is awaited below.
    const off = await workspace(false);
    await pausedRun(off, 'Contract (option off)');
    const on = await workspace(true);
    const { runId, approvalId } = await pausedRun(on, 'Contract (option on)');

    await eventually(async () => expect(mailTo(on.wantsMail.email)).toHaveLength(1));
    for (const nobody of [on.noMail, off.wantsMail, off.noMail]) {
      expect(mailTo(nobody.email)).toEqual([]);
    }
    const [mail] = mailTo(on.wantsMail.email);
    expect(mail?.subject).toBe('Approval needed: Contract (option on) — legal_review');
    expect(mail?.from?.value).toEqual([{ name: 'Approvals', address: 'approvals@example.com' }]);
    expect(mail?.text).toContain('Please check the contract.');
    // The links open the web app's page of the approval (decision 129).
    const page = `/app/w/${on.workspaceId}/approvals/${approvalId}`;
    expect(mail?.text).toContain(`${page}?decision=approve`);
    expect(mail?.text).toContain(`${page}?decision=reject`);
    const shown = await http(`${stack.url}/approvals/${approvalId}`, {
      cookie: on.wantsMail.cookie,
    });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      approval: { id: approvalId, status: 'pending', message: 'Please check the contract.' },
    });
    const foreign = await http(`${stack.url}/approvals/${approvalId}`, {
      cookie: off.owner.cookie,
    });
    expect(foreign.status).toBe(404);

    const approved = await http(`${stack.url}/approvals/${approvalId}/approve`, {
      method: 'POST',
      cookie: on.wantsMail.cookie,
      body: {},
    });
    expect(approved.status).toBe(200);
    await eventually(async () => {
      const run = await http(`${stack.url}/runs/${runId}`, { cookie: on.owner.cookie });
      expect((run.body as { run: { status: string } }).run.status).toBe('succeeded');
    });
  });

  test('a mail server that is down delays the email; the run and the approval are untouched', async () => {
    await receiver.stop();
    const space = await workspace(true);
    const { runId, approvalId } = await pausedRun(space, 'While the mail server is down');
    const attemptsOf = async () => {
      const result = await stack.platform.sql.db.execute(
        sql`select status, attempts from workflow_runner.approval_emails
            where to_address = ${space.wantsMail.email}`,
      );
      return (result as { rows: { status: string; attempts: number }[] }).rows;
    };
    await eventually(async () => {
      const [email] = await attemptsOf();
      expect(email?.status).toBe('pending');
      expect(email?.attempts).toBeGreaterThanOrEqual(2);
    });
    const waiting = await http(`${stack.url}/runs/${runId}`, { cookie: space.owner.cookie });
    expect((waiting.body as { run: { status: string } }).run.status).toBe('waiting_approval');

    await receiver.start();
    await eventually(async () => expect(mailTo(space.wantsMail.email)).toHaveLength(1), 30_000);
    // The receiver has the message before the mailer has recorded that it went.
    await eventually(async () => expect((await attemptsOf())[0]?.status).toBe('sent'));
    const rejected = await http(`${stack.url}/approvals/${approvalId}/reject`, {
      method: 'POST',
      cookie: space.noMail.cookie,
      body: { comment: 'Too late' },
    });
    expect(rejected.status).toBe(200);
    await eventually(async () => {
      const run = await http(`${stack.url}/runs/${runId}`, { cookie: space.owner.cookie });
      expect((run.body as { run: { status: string } }).run.status).toBe('failed');
    });
  });
});
