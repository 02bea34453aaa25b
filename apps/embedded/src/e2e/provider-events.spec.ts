import { createHmac, randomUUID } from 'node:crypto';
import { sign as signGitHub } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { eventually } from '@wap/testing';
import { DEFAULT_WEBHOOK_INGEST_CONFIG } from '@wap/webhook-ingest-service';
import {
  RUNTIMES,
  http,
  newWorkspaceOwner,
  signedInPerson,
  startStack,
  uniqueEmail,
  type TestStack,
  type WorkspaceOwner,
} from './stack';

/**
 * Provider events that start workflows (issue 30, decision 132): a workspace connects the
 * provider's account, its workflows name the events that also start them, and each delivery
 * that holds with the connection's own signing secret (issue 41, decision 151) starts the
 * matching live ones through their Custom Webhook, once per delivery id. Deliveries are signed
 * with the providers' own code where they publish it.
 */
const secrets = {
  stripe: 'whsec_e2e_provider_events',
  github: 'e2e-github-provider-events',
  linear: 'e2e-linear-provider-events',
  slack: 'e2e-slack-provider-events',
};

interface RunRow {
  id: string;
  status: string;
  trigger: { type: string; event_id: string | null };
}

interface Delivery {
  delivery_id: string;
  event: string;
  account_id: string | null;
  targets: { workflow_id: string; run_id: string | null }[];
}

interface Connection {
  id: string;
  delivery_path: string;
  has_signing_secret: boolean;
  proven_at: string | null;
}

function signedLinear(payload: string, secret: string): Record<string, string> {
  return {
    'linear-signature': createHmac('sha256', secret).update(payload).digest('hex'),
    'linear-delivery': randomUUID(),
  };
}

function signedSlack(payload: string, secret: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', secret).update(`v0:${timestamp}:${payload}`).digest('hex');
  return { 'x-slack-signature': `v0=${signature}`, 'x-slack-request-timestamp': String(timestamp) };
}

/** A signing secret as Linear, Slack and Stripe show one: made by them, pasted here. */
function providerMadeSecret(): string {
  return `whsec_${randomUUID().replace(/-/g, '')}`;
}

describe.each(RUNTIMES)('provider events that start workflows on the %s runtime', (runtime) => {
  let stack: TestStack;
  let adminCookie: string;

  beforeAll(async () => {
    stack = await startStack(runtime, {
      services: {
        workflowRunner: { RUN_POLL_INTERVAL_MS: 50 },
        webhookIngest: { ...DEFAULT_WEBHOOK_INGEST_CONFIG, secrets },
      },
    });
    adminCookie = await stack.cookieFor(uniqueEmail('admin'), { platformAdmin: true });
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function ownerWithCredits(label: string): Promise<WorkspaceOwner> {
    const owner = await newWorkspaceOwner(stack, label);
    const granted = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits/grants`, {
      method: 'POST',
      cookie: adminCookie,
      body: { amount: 20, reason: 'e2e' },
    });
    expect(granted.status).toBe(201);
    return owner;
  }

  async function connect(
    owner: WorkspaceOwner,
    provider: string,
    accountId: string,
    signingSecret?: string,
  ) {
    return http(`${stack.url}/workspaces/${owner.workspaceId}/provider-accounts`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { provider, accountId, ...(signingSecret ? { signingSecret } : {}) },
    });
  }

  /** Connects a GitHub account; the platform makes its secret, shown this once. */
  async function connectGitHub(
    owner: WorkspaceOwner,
    accountId: string,
  ): Promise<{ connection: Connection; secret: string }> {
    const connected = await connect(owner, 'github', accountId);
    expect(connected.status).toBe(201);
    const body = connected.body as { account: Connection; signingSecret: string };
    return { connection: body.account, secret: body.signingSecret };
  }

  /** A workflow of one free step that also starts on `events` of `provider`; live when asked. */
  async function workflowOn(
    owner: WorkspaceOwner,
    provider: string,
    events: string[],
    live: boolean,
  ): Promise<string> {
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId: owner.workspaceId,
        name: `On ${events.join(', ')}`,
        trigger: { type: 'custom_webhook', providerEvents: { provider, events } },
        steps: [{ type: 'delay', name: 'pause', settings: { seconds: 0 } }],
      },
    });
    expect(created.status).toBe(201);
    const { workflow } = created.body as {
      workflow: { id: string; trigger: { providerEvents: unknown } };
    };
    expect(workflow.trigger.providerEvents).toEqual({ provider, events });
    if (live) {
      const run = await http(`${stack.url}/workflows/${workflow.id}/run`, {
        method: 'POST',
        cookie: owner.cookie,
      });
      expect(run.status).toBe(202);
      const setLive = await http(`${stack.url}/workflows/${workflow.id}/live`, {
        method: 'POST',
        cookie: owner.cookie,
      });
      expect(setLive.status).toBe(200);
    }
    return workflow.id;
  }

  async function runsOf(owner: WorkspaceOwner, workflowId: string): Promise<RunRow[]> {
    const response = await http(`${stack.url}/workflows/${workflowId}/runs`, {
      cookie: owner.cookie,
    });
    expect(response.status).toBe(200);
    return (response.body as { runs: RunRow[] }).runs.filter(
      (run) => run.trigger.type === 'provider_event',
    );
  }

  async function deliveriesOf(owner: WorkspaceOwner): Promise<Delivery[]> {
    const response = await http(
      `${stack.url}/workspaces/${owner.workspaceId}/provider-deliveries`,
      { cookie: owner.cookie },
    );
    expect(response.status).toBe(200);
    return (response.body as { deliveries: Delivery[] }).deliveries;
  }

  /** A GitHub delivery to `path` (a connection's, or the shared endpoint) signed with `secret`. */
  async function github(
    to: { path: string; secret: string },
    event: string,
    body: Record<string, unknown>,
    deliveryId = randomUUID(),
  ) {
    const payload = JSON.stringify(body);
    return http(`${stack.url}${to.path}`, {
      method: 'POST',
      body: payload,
      headers: {
        'x-hub-signature-256': await signGitHub(to.secret, payload),
        'x-github-event': event,
        'x-github-delivery': deliveryId,
      },
    });
  }

  const at = (connected: { connection: Connection; secret: string }) => ({
    path: connected.connection.delivery_path,
    secret: connected.secret,
  });
  const shared = { path: '/webhooks/github', secret: secrets.github };

  test('only an owner connects an account, with a signing secret of its own shown once; outsiders find nothing', async () => {
    const owner = await ownerWithCredits('connector');
    const installation = String(Date.now());
    const connected = await connect(owner, 'github', installation);
    expect(connected.status).toBe(201);
    const { account, signingSecret } = connected.body as {
      account: Connection & { id: string };
      signingSecret: string;
    };
    expect(account).toMatchObject({
      provider: 'github',
      account_id: installation,
      label: installation,
      delivery_path: `/webhooks/github?connection=${account.id}`,
      has_signing_secret: true,
      proven_at: null,
    });
    expect(signingSecret).toMatch(/^[0-9a-f]{64}$/);
    const again = await connect(owner, 'github', installation);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: 'This account is connected to a workspace already',
      code: 'CONFLICT',
    });
    // Linear, Slack and Stripe make the secret themselves: it is pasted, never made here.
    const unsigned = await connect(owner, 'linear', randomUUID());
    expect(unsigned.status).toBe(400);

    const other = await ownerWithCredits('other-connector');
    // Another workspace's accounts and deliveries are not found, whoever asks.
    for (const path of ['provider-accounts', 'provider-deliveries']) {
      const foreign = await http(`${stack.url}/workspaces/${owner.workspaceId}/${path}`, {
        cookie: other.cookie,
      });
      expect(foreign.status).toBe(404);
    }
    for (const [method, path, body] of [
      ['DELETE', `provider-accounts/${account.id}`, undefined],
      ['PUT', `provider-accounts/${account.id}/signing-secret`, {}],
    ] as const) {
      const stolen = await http(`${stack.url}/workspaces/${other.workspaceId}/${path}`, {
        method,
        cookie: other.cookie,
        body,
      });
      expect(stolen.status).toBe(404);
    }

    const memberEmail = uniqueEmail('member');
    const member = await signedInPerson(stack, 'member', memberEmail);
    const added = await http(`${stack.url}/workspaces/${owner.workspaceId}/members`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { email: memberEmail, role: 'member' },
    });
    expect(added.status).toBe(201);
    const byMember = await connect(
      { cookie: member.cookie, workspaceId: owner.workspaceId },
      'linear',
      randomUUID(),
      providerMadeSecret(),
    );
    expect(byMember.status).toBe(403);
    const secretByMember = await http(
      `${stack.url}/workspaces/${owner.workspaceId}/provider-accounts/${account.id}/signing-secret`,
      { method: 'PUT', cookie: member.cookie, body: {} },
    );
    expect(secretByMember.status).toBe(403);
    const listed = await http(`${stack.url}/workspaces/${owner.workspaceId}/provider-accounts`, {
      cookie: member.cookie,
    });
    expect(listed.status).toBe(200);
    expect((listed.body as { accounts: unknown[] }).accounts).toEqual([account]);
    expect(JSON.stringify(listed.body)).not.toContain(signingSecret);

    const badFilter = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId: owner.workspaceId,
        name: 'Bad filter',
        trigger: {
          type: 'custom_webhook',
          providerEvents: { provider: 'github', events: ['a b'] },
        },
        steps: [],
      },
    });
    expect(badFilter.status).toBe(400);
  });

  test('a GitHub delivery starts the matching live workflow with its body, keeps a draft one as a test event, and runs once per delivery id', async () => {
    const owner = await ownerWithCredits('github');
    const installation = Date.now();
    const connected = await connectGitHub(owner, String(installation));
    const opened = await workflowOn(owner, 'github', ['pull_request.opened'], true);
    const anyPullRequest = await workflowOn(owner, 'github', ['pull_request'], false);
    const issues = await workflowOn(owner, 'github', ['issues'], true);

    const body = {
      action: 'opened',
      number: 7,
      pull_request: { title: 'Add provider events' },
      installation: { id: installation },
      repository: { full_name: 'acme/widgets' },
    };
    const deliveryId = randomUUID();
    const delivered = await github(at(connected), 'pull_request', body, deliveryId);
    expect(delivered.status).toBe(200);
    expect(delivered.body).toEqual({ received: true });

    const [run] = await eventually(async () => {
      const runs = await runsOf(owner, opened);
      expect(runs).toHaveLength(1);
      return runs;
    });
    const detail = await http(`${stack.url}/runs/${run?.id ?? ''}`, { cookie: owner.cookie });
    expect((detail.body as { run: { input: unknown } }).run.input).toEqual(body);

    // The provider delivers again (a timeout on its side): no second run. The same signed body
    // with a fresh delivery id, which GitHub does not sign, is a replay: skipped too (issue 41).
    expect((await github(at(connected), 'pull_request', body, deliveryId)).status).toBe(200);
    expect((await github(at(connected), 'pull_request', body, randomUUID())).status).toBe(200);
    const deliveries = await eventually(async () => {
      const listed = await deliveriesOf(owner);
      expect(listed).toHaveLength(1);
      expect(listed[0]?.targets).toHaveLength(2);
      return listed;
    });
    expect(deliveries[0]).toMatchObject({
      delivery_id: deliveryId,
      event: 'pull_request.opened',
      account_id: String(installation),
    });
    const targets = deliveries[0]?.targets ?? [];
    expect(targets.filter((target) => target.workflow_id === opened)).toEqual([
      expect.objectContaining({ run_id: run?.id }),
    ]);
    expect(targets.filter((target) => target.workflow_id === anyPullRequest)).toHaveLength(1);
    expect(targets.some((target) => target.workflow_id === issues)).toBe(false);
    expect(await runsOf(owner, opened)).toHaveLength(1);
    expect(await runsOf(owner, anyPullRequest)).toHaveLength(0);
    const testEvents = await http(`${stack.url}/workflows/${anyPullRequest}/test-events`, {
      cookie: owner.cookie,
    });
    const [kept] = (
      testEvents.body as { events: { body: unknown; headers: Record<string, string> }[] }
    ).events;
    expect(kept?.body).toEqual(body);
    // The signature is a credential for that body: it is not kept where members read it.
    expect(kept?.headers).toMatchObject({ 'x-github-event': 'pull_request' });
    expect(kept?.headers).not.toHaveProperty('x-hub-signature-256');
    expect(await runsOf(owner, issues)).toHaveLength(0);
    const [proven] = (
      (
        await http(`${stack.url}/workspaces/${owner.workspaceId}/provider-accounts`, {
          cookie: owner.cookie,
        })
      ).body as { accounts: Connection[] }
    ).accounts;
    expect(proven?.proven_at).not.toBeNull();
  });

  test("a claim is proven by the connection's own secret alone: another tenant's claim of a repository receives nothing, and once the owner is proven the overlapping claim is refused", async () => {
    const org = `example-org-${randomUUID().slice(0, 8)}`;
    const repository = `${org}/secret-repo`;
    const victim = await ownerWithCredits('victim');
    const tenant = await ownerWithCredits('tenant');
    // The tenant claims the repository first: a claim is allowed, and proves nothing.
    const squat = await connectGitHub(tenant, repository);
    const tenantWorkflow = await workflowOn(tenant, 'github', ['pull_request'], true);
    const victimConnection = await connectGitHub(victim, org);
    const victimWorkflow = await workflowOn(victim, 'github', ['pull_request'], true);
    const privatePullRequest = {
      action: 'opened',
      pull_request: { title: 'Private', body: 'of the victim' },
      repository: { full_name: repository, owner: { login: org } },
      organization: { login: org },
    };

    // Signed with the platform's own GitHub secret (the shared app), and at the tenant's address
    // signed with the victim's secret: neither reaches the tenant, nor the victim.
    expect((await github(shared, 'pull_request', privatePullRequest)).status).toBe(200);
    const forged = await github(
      { path: squat.connection.delivery_path, secret: victimConnection.secret },
      'pull_request',
      { ...privatePullRequest, number: 2 },
    );
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ error: 'Invalid webhook signature', code: 'INVALID_SIGNATURE' });
    // A made-up connection id holds no signature either, and says nothing of which ids exist.
    const unknown = await github(
      { path: `/webhooks/github?connection=${randomUUID()}`, secret: victimConnection.secret },
      'pull_request',
      { ...privatePullRequest, number: 3 },
    );
    expect(unknown.status).toBe(401);

    // The victim's org webhook, configured with the victim's secret, reaches the victim alone.
    const genuine = await github(at(victimConnection), 'pull_request', {
      ...privatePullRequest,
      number: 4,
    });
    expect(genuine.status).toBe(200);
    await eventually(async () => expect(await runsOf(victim, victimWorkflow)).toHaveLength(1));
    expect(await runsOf(tenant, tenantWorkflow)).toHaveLength(0);
    expect(await deliveriesOf(tenant)).toHaveLength(0);

    // Proven now: a claim overlapping it, the same account or one of its repositories, is
    // refused, with the message any taken account gets (no workspace is named).
    const later = await ownerWithCredits('later-tenant');
    for (const claim of [org, repository, `${org}/another-repo`]) {
      const refused = await connect(later, 'github', claim);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        error: 'This account is connected to a workspace already',
        code: 'CONFLICT',
      });
    }
    // A name that merely starts the same is another account.
    expect((await connect(later, 'github', `${org}-fork`)).status).toBe(201);
  });

  test('claims are rate-limited per workspace: thirty made-up installations in a row take ten', async () => {
    const owner = await ownerWithCredits('claimer');
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (let attempt = 0; attempt < 30; attempt += 1) {
      const response = await connect(owner, 'github', `${Date.now()}${attempt}`);
      statuses.push(response.status);
      if (response.status === 429) {
        retryAfter = response.headers.get('retry-after') ?? undefined;
        expect(response.body).toEqual({
          error: 'Too many attempts to connect provider accounts; try again later',
          code: 'RATE_LIMITED',
        });
      }
    }
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.slice(10).every((status) => status === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThan(3000);
    const listed = await http(`${stack.url}/workspaces/${owner.workspaceId}/provider-accounts`, {
      cookie: owner.cookie,
    });
    expect((listed.body as { accounts: unknown[] }).accounts).toHaveLength(10);
    // Another workspace's allowance is its own.
    const other = await ownerWithCredits('other-claimer');
    expect((await connect(other, 'github', String(Date.now()))).status).toBe(201);
  });

  test("a delivery naming another account than the connection's starts nothing; a new secret replaces the old one", async () => {
    const owner = await ownerWithCredits('secrets');
    const installation = Date.now() + 2;
    const connected = await connectGitHub(owner, String(installation));
    const workflowId = await workflowOn(owner, 'github', ['*'], true);
    const foreign = await github(at(connected), 'push', { installation: { id: installation + 1 } });
    expect(foreign.status).toBe(200);
    const [recorded] = await eventually(async () => {
      const listed = await deliveriesOf(owner);
      expect(listed).toHaveLength(1);
      return listed;
    });
    expect(recorded).toMatchObject({ account_id: null, targets: [] });
    expect(await runsOf(owner, workflowId)).toHaveLength(0);

    const replaced = await http(
      `${stack.url}/workspaces/${owner.workspaceId}/provider-accounts/${connected.connection.id}/signing-secret`,
      {
        method: 'PUT',
        cookie: owner.cookie,
        body: { signingSecret: 'a-secret-typed-at-github-1' },
      },
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({
      account: expect.objectContaining({ has_signing_secret: true }),
    });
    const push = { installation: { id: installation } };
    expect((await github(at(connected), 'push', push)).status).toBe(401);
    const renewed = {
      path: connected.connection.delivery_path,
      secret: 'a-secret-typed-at-github-1',
    };
    expect((await github(renewed, 'push', push)).status).toBe(200);
    await eventually(async () => expect(await runsOf(owner, workflowId)).toHaveLength(1));
    // Left out, GitHub's is made anew and shown once.
    const made = await http(
      `${stack.url}/workspaces/${owner.workspaceId}/provider-accounts/${connected.connection.id}/signing-secret`,
      { method: 'PUT', cookie: owner.cookie, body: {} },
    );
    expect(made.status).toBe(200);
    expect((made.body as { signingSecret: string }).signingSecret).toMatch(/^[0-9a-f]{64}$/);
  });

  test.each([
    {
      provider: 'linear',
      filter: 'Issue.create',
      send: async (to: { path: string; secret: string }, account: string) => {
        const payload = JSON.stringify({
          action: 'create',
          type: 'Issue',
          organizationId: account,
          data: { title: 'Broken build' },
          webhookTimestamp: Date.now(),
        });
        return http(`${stack.url}${to.path}`, {
          method: 'POST',
          body: payload,
          headers: signedLinear(payload, to.secret),
        });
      },
    },
    {
      provider: 'slack',
      filter: 'app_mention',
      send: async (to: { path: string; secret: string }, account: string) => {
        const payload = JSON.stringify({
          type: 'event_callback',
          event_id: `Ev${randomUUID()}`,
          team_id: account,
          event: { type: 'app_mention', text: 'hello' },
        });
        return http(`${stack.url}${to.path}`, {
          method: 'POST',
          body: payload,
          headers: signedSlack(payload, to.secret),
        });
      },
    },
    {
      provider: 'stripe',
      filter: 'invoice',
      send: async (to: { path: string; secret: string }, account: string) => {
        const payload = JSON.stringify({
          id: `evt_${randomUUID()}`,
          object: 'event',
          type: 'invoice.paid',
          account,
          data: { object: { id: 'in_1' } },
        });
        return http(`${stack.url}${to.path}`, {
          method: 'POST',
          body: payload,
          headers: {
            'stripe-signature': Stripe.webhooks.generateTestHeaderString({
              payload,
              secret: to.secret,
            }),
          },
        });
      },
    },
  ])(
    'a $provider delivery signed with the pasted secret starts the workflow on $filter; the shared secret starts nothing',
    async ({ provider, filter, send }) => {
      const owner = await ownerWithCredits(provider);
      const account = `acct-${randomUUID()}`;
      const secret = providerMadeSecret();
      const connected = await connect(owner, provider, account, secret);
      expect(connected.status).toBe(201);
      const { account: connection, signingSecret } = connected.body as {
        account: Connection;
        signingSecret?: string;
      };
      expect(signingSecret).toBeUndefined();
      const workflowId = await workflowOn(owner, provider, [filter], true);
      expect((await send({ path: connection.delivery_path, secret }, account)).status).toBe(200);
      await eventually(async () => {
        expect(await runsOf(owner, workflowId)).toHaveLength(1);
      });
      // The platform's own secret holds at the shared endpoint, and starts no workspace's run.
      const sharedPath = provider === 'slack' ? '/webhooks/slack/events' : `/webhooks/${provider}`;
      const platformSecret = secrets[provider as keyof typeof secrets];
      expect((await send({ path: sharedPath, secret: platformSecret }, account)).status).toBe(200);
      // Nor does the platform's secret hold at the connection's address.
      expect(
        (await send({ path: connection.delivery_path, secret: platformSecret }, account)).status,
      ).toBe(401);
      expect(await deliveriesOf(owner)).toHaveLength(1);
      expect(await runsOf(owner, workflowId)).toHaveLength(1);
    },
  );

  test('after disconnecting, the account’s deliveries start nothing', async () => {
    const owner = await ownerWithCredits('disconnect');
    const installation = Date.now() + 1;
    const connected = await connectGitHub(owner, String(installation));
    const workflowId = await workflowOn(owner, 'github', ['*'], true);
    // Connected, a delivery starts a run: the same delivery after disconnecting must not.
    const push = { installation: { id: installation } };
    expect((await github(at(connected), 'push', push)).status).toBe(200);
    await eventually(async () => expect(await runsOf(owner, workflowId)).toHaveLength(1));
    expect(await deliveriesOf(owner)).toHaveLength(1);
    const removed = await http(
      `${stack.url}/workspaces/${owner.workspaceId}/provider-accounts/${connected.connection.id}`,
      { method: 'DELETE', cookie: owner.cookie },
    );
    expect(removed.status).toBe(204);
    // Gone, the connection's secret holds no signature any more.
    expect((await github(at(connected), 'push', { ...push, after: 'x' })).status).toBe(401);
    expect(await deliveriesOf(owner)).toHaveLength(1);
    expect(await runsOf(owner, workflowId)).toHaveLength(1);
  });
});
