import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { WEBHOOK_INFLIGHT_BUCKET, webhookReplicaAliveSubject } from '@wap/contracts';
import { encodeJson } from '@wap/platform';
import { eventually } from '@wap/testing';
import {
  DEFAULT_WEBHOOK_INGEST_CONFIG,
  IDEMPOTENCY_BUCKET,
  REPLICAS_BUCKET,
  fingerprintKey,
  idempotencyKey,
} from '@wap/webhook-ingest-service';
import { http, startStack, uniqueEmail, type TestStack } from './stack';
import { WEBHOOK_DOORS, doorUrl, withDoor } from './webhook-doors';

/**
 * The whole path with the real workflow-runner: a workflow made with POST /workflows, set live,
 * triggered at its address through each door; its runs and test events read back over REST.
 */
const STRIPE_SECRET = 'whsec_e2e_payments';

interface Owner {
  cookie: string;
  workspaceId: string;
}
interface RunRow {
  id: string;
  status: string;
  trigger: { type: string; event_id: string | null };
}

/** Given to the runner only: webhook-ingest must describe the addresses with it too. */
const PUBLIC_ORIGIN = 'https://hooks.example.test';

describe.each(WEBHOOK_DOORS)(
  'webhooks with the real workflow-runner on the %s runtime through the %s door',
  (runtime, door) => {
    let stack: TestStack;
    let adminCookie: string;
    let hooks: string;

    beforeAll(async () => {
      stack = await startStack(runtime, {
        services: {
          workflowRunner: { RUN_POLL_INTERVAL_MS: 50, PUBLIC_BASE_URL: PUBLIC_ORIGIN },
          webhookIngest: withDoor(door, {
            ...DEFAULT_WEBHOOK_INGEST_CONFIG,
            secrets: { stripe: STRIPE_SECRET },
            creditPrices: [{ credits: 250, amount: 2500, currency: 'usd' }],
          }),
        },
      });
      hooks = doorUrl(stack, door);
      adminCookie = await stack.cookieFor(uniqueEmail('admin'), { platformAdmin: true });
    });
    afterAll(async () => {
      await stack.stop();
    });

    async function grant(workspaceId: string, amount: number) {
      const granted = await http(`${stack.url}/workspaces/${workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: adminCookie,
        body: { amount, reason: 'e2e' },
      });
      expect(granted.status).toBe(201);
    }

    async function newOwner(credits: number): Promise<Owner> {
      const cookie = await stack.cookieFor(uniqueEmail('hook-owner'));
      const created = await http(`${stack.url}/workspaces`, {
        method: 'POST',
        cookie,
        body: { name: 'Webhooks' },
      });
      const workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
      if (credits > 0) await grant(workspaceId, credits);
      return { cookie, workspaceId };
    }

    async function balanceOf(owner: Owner): Promise<number> {
      const response = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits`, {
        cookie: owner.cookie,
      });
      return (response.body as { balance: number }).balance;
    }

    /** A workflow of one delay step; live after the Run the lifecycle asks for first. */
    async function newWorkflow(owner: Owner, options: { seconds?: number; live: boolean }) {
      const created = await http(`${stack.url}/workflows`, {
        method: 'POST',
        cookie: owner.cookie,
        body: {
          workspaceId: owner.workspaceId,
          name: 'Inbound',
          trigger: { type: 'custom_webhook' },
          steps: [{ type: 'delay', name: 'pause', settings: { seconds: options.seconds ?? 0 } }],
        },
      });
      expect(created.status).toBe(201);
      const { workflow, webhook } = created.body as {
        workflow: { id: string };
        webhook: { id: string };
      };
      if (options.live) {
        const run = await http(`${stack.url}/workflows/${workflow.id}/run`, {
          method: 'POST',
          cookie: owner.cookie,
        });
        expect(run.status).toBe(202);
        await eventually(async () => {
          const response = await http(
            `${stack.url}/runs/${(run.body as { runId: string }).runId}`,
            {
              cookie: owner.cookie,
            },
          );
          expect((response.body as { run: RunRow }).run.status).toBe('succeeded');
        });
        const live = await http(`${stack.url}/workflows/${workflow.id}/live`, {
          method: 'POST',
          cookie: owner.cookie,
        });
        expect(live.status).toBe(200);
      }
      return { workflowId: workflow.id, webhookId: webhook.id };
    }

    const trigger = (webhookId: string, body: unknown, headers: Record<string, string> = {}) =>
      http(`${hooks}/webhooks/${webhookId}`, { method: 'POST', body, headers });

    async function webhookRuns(owner: Owner, workflowId: string): Promise<RunRow[]> {
      const response = await http(`${stack.url}/workflows/${workflowId}/runs`, {
        cookie: owner.cookie,
      });
      expect(response.status).toBe(200);
      return (response.body as { runs: RunRow[] }).runs.filter(
        (run) => run.trigger.type === 'custom_webhook',
      );
    }

    async function testEventIds(owner: Owner, workflowId: string): Promise<string[]> {
      const response = await http(`${stack.url}/workflows/${workflowId}/test-events`, {
        cookie: owner.cookie,
      });
      return (response.body as { events: { id: string }[] }).events.map((event) => event.id);
    }

    test('a live workflow runs once per accepted request; the run and the test event carry its eventId', async () => {
      const owner = await newOwner(10);
      const { workflowId, webhookId } = await newWorkflow(owner, { live: true });
      await eventually(async () => {
        expect((await trigger(webhookId, { order: 1 })).body).toMatchObject({ triggered: 1 });
      });
      const [run] = await eventually(async () => {
        const runs = await webhookRuns(owner, workflowId);
        expect(runs).toHaveLength(1);
        expect(runs[0]?.status).toBe('succeeded');
        return runs;
      });
      const eventId = run?.trigger.event_id ?? '';
      await eventually(async () => {
        expect(await testEventIds(owner, workflowId)).toContain(eventId);
      });
    });

    test('GET on the address describes the very address the workflow was created with', async () => {
      const owner = await newOwner(0);
      const created = await http(`${stack.url}/workflows`, {
        method: 'POST',
        cookie: owner.cookie,
        body: {
          workspaceId: owner.workspaceId,
          name: 'Described',
          trigger: { type: 'custom_webhook' },
          steps: [{ type: 'delay', name: 'pause', settings: { seconds: 0 } }],
        },
      });
      expect(created.status).toBe(201);
      const { webhook } = created.body as { webhook: { id: string; url: string } };
      expect(webhook.url).toBe(`${PUBLIC_ORIGIN}/webhooks/${webhook.id}`);

      const described = await http(`${hooks}/webhooks/${webhook.id.toUpperCase()}/`);
      expect(described.status).toBe(200);
      expect(described.text).toContain(`Send POST ${webhook.url} `);
    });

    test('a draft workflow answers inactive, keeps the test event and starts no run', async () => {
      const owner = await newOwner(10);
      const { workflowId, webhookId } = await newWorkflow(owner, { live: false });
      const response = await trigger(webhookId, { draft: true });
      expect(response.body).toEqual({
        success: true,
        message: 'Webhook is inactive. Test payload saved.',
        workflowId,
        triggered: 0,
      });
      await eventually(async () => {
        expect(await testEventIds(owner, workflowId)).toHaveLength(1);
      });
      expect(await webhookRuns(owner, workflowId)).toHaveLength(0);
    });

    test("a test event keeps the sender's headers, but not a credential's value (issue 41 item 5)", async () => {
      const owner = await newOwner(0);
      const { workflowId, webhookId } = await newWorkflow(owner, { live: false });
      await trigger(
        webhookId,
        { a: 1 },
        { 'x-api-key': 'sender-key-1', authorization: 'Bearer sender-token-2', 'x-kind': 'order' },
      );
      const [event] = await eventually(async () => {
        const response = await http(`${stack.url}/workflows/${workflowId}/test-events`, {
          cookie: owner.cookie,
        });
        const { events } = response.body as { events: { headers: Record<string, string> }[] };
        expect(events).toHaveLength(1);
        return events;
      });
      expect(event?.headers).toMatchObject({ 'x-api-key': '[redacted]', 'x-kind': 'order' });
      // Neither door passes Authorization on to the event; were it kept, it would be redacted.
      expect(event?.headers['authorization'] ?? '[redacted]').toBe('[redacted]');
      expect(JSON.stringify(event)).not.toMatch(/sender-key-1|sender-token-2/);
    });

    test('identical requests are skipped while the run is running; once the runner ends it, the same request runs again', async () => {
      const owner = await newOwner(10);
      const { workflowId, webhookId } = await newWorkflow(owner, { seconds: 2, live: true });
      const body = { customer: randomUUID() };
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => trigger(webhookId, body)),
      );
      const triggered = responses.filter(
        (response) => (response.body as { triggered: number }).triggered === 1,
      );
      expect(triggered).toHaveLength(1);
      await eventually(async () => {
        const runs = await webhookRuns(owner, workflowId);
        expect(runs.map((run) => run.status)).toEqual(['succeeded']);
      });
      await eventually(async () => {
        expect((await trigger(webhookId, body)).body).toMatchObject({ triggered: 1, skipped: 0 });
      });
      await eventually(async () => {
        expect(await webhookRuns(owner, workflowId)).toHaveLength(2);
      });
    });

    test('a fingerprint claim whose request was never stored is taken over once it is old; a recent claim, or an old one whose run is running, is not', async () => {
      const owner = await newOwner(10);
      const { workflowId, webhookId } = await newWorkflow(owner, { seconds: 3, live: true });
      const inflight = await stack.platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET);
      const longAgo = Date.now() - 11 * 60_000;

      // A replica claimed this body and died before storing the request: no run will delete it.
      const lost = { customer: randomUUID() };
      const lostEventId = randomUUID();
      await inflight.put(
        fingerprintKey(webhookId, lost),
        encodeJson({ eventId: lostEventId, claimedAtMs: Date.now() }),
      );
      expect((await trigger(webhookId, lost)).body).toMatchObject({
        triggered: 0,
        skipped: 1,
        eventId: lostEventId,
      });
      await inflight.put(
        fingerprintKey(webhookId, lost),
        encodeJson({ eventId: lostEventId, claimedAtMs: longAgo }),
      );
      const takenOver = await trigger(webhookId, lost);
      expect(takenOver.body).toMatchObject({ triggered: 1, skipped: 0 });
      expect((takenOver.body as { eventId: string }).eventId).not.toBe(lostEventId);

      // An old claim whose run is still running stays: the identical request is skipped.
      const running = { customer: randomUUID() };
      const started = await trigger(webhookId, running);
      const startedEventId = (started.body as { eventId: string }).eventId;
      await eventually(async () => {
        const runs = await webhookRuns(owner, workflowId);
        expect(runs.map((run) => run.trigger.event_id)).toContain(startedEventId);
      });
      await inflight.put(
        fingerprintKey(webhookId, running),
        encodeJson({ eventId: startedEventId, claimedAtMs: longAgo }),
      );
      expect((await trigger(webhookId, running)).body).toMatchObject({
        triggered: 0,
        skipped: 1,
        eventId: startedEventId,
      });
      await eventually(async () => {
        const runs = await webhookRuns(owner, workflowId);
        expect(runs.map((run) => run.status)).toEqual(['succeeded', 'succeeded']);
      });
    });

    test('a claim whose replica is dead is taken over at once with its ids, keyless or keyed; a live holder keeps it', async () => {
      const owner = await newOwner(10);
      const { workflowId, webhookId } = await newWorkflow(owner, { live: true });
      const inflight = await stack.platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET);
      const idempotency = await stack.platform.kv.bucket(IDEMPOTENCY_BUCKET);
      const replicas = await stack.platform.kv.bucket(REPLICAS_BUCKET);
      // A replica that claimed and died has no liveness key and no subscription; a live one has both.
      const dead = randomUUID();
      const alive = randomUUID();
      await replicas.put(alive, encodeJson(Date.now()));
      const answering = stack.platform.bus.serve(webhookReplicaAliveSubject(alive), async () => ({
        data: new Uint8Array(),
      }));
      const lost = { eventId: randomUUID(), runId: randomUUID() };
      const claimedNow = { claimedAtMs: Date.now() };

      const keyless = { customer: randomUUID() };
      await inflight.put(
        fingerprintKey(webhookId, keyless),
        encodeJson({ ...lost, ...claimedNow, holder: alive }),
      );
      expect((await trigger(webhookId, keyless)).body).toMatchObject({
        triggered: 0,
        skipped: 1,
        eventId: lost.eventId,
      });
      await answering.unsubscribe();
      await inflight.put(
        fingerprintKey(webhookId, keyless),
        encodeJson({ ...lost, ...claimedNow, holder: dead }),
      );
      expect((await trigger(webhookId, keyless)).body).toMatchObject({
        triggered: 1,
        skipped: 0,
        eventId: lost.eventId,
      });

      const key = randomUUID();
      const keyed = { eventId: randomUUID(), runId: randomUUID() };
      await idempotency.put(
        idempotencyKey(webhookId, key),
        encodeJson({ ...keyed, stored: false, ...claimedNow, holder: dead }),
      );
      const retried = await trigger(webhookId, { n: 1 }, { 'idempotency-key': key });
      expect(retried.body).toMatchObject({ triggered: 1, skipped: 0, eventId: keyed.eventId });

      await eventually(async () => {
        const runs = await webhookRuns(owner, workflowId);
        expect(runs.map((run) => run.trigger.event_id).sort()).toEqual(
          [lost.eventId, keyed.eventId].sort(),
        );
        expect(runs.map((run) => run.id).sort()).toEqual([lost.runId, keyed.runId].sort());
      });
    });

    test('a workspace whose credits ran out gets 402 depleted; a deleted workflow gets 404', async () => {
      const owner = await newOwner(1);
      const { workflowId, webhookId } = await newWorkflow(owner, { live: true });
      await grant(owner.workspaceId, -1);
      await eventually(async () => {
        const refused = await trigger(webhookId, { a: 1 });
        expect(refused.status).toBe(402);
        expect(refused.body).toEqual({
          code: 'INSUFFICIENT_CREDITS',
          error: 'Your credit balance is depleted. Upgrade your plan to continue running flows.',
          message: 'Your credit balance is depleted. Upgrade your plan to continue running flows.',
        });
      });
      const deleted = await http(`${stack.url}/workflows/${workflowId}`, {
        method: 'DELETE',
        cookie: owner.cookie,
      });
      expect(deleted.status).toBe(204);
      await eventually(async () => {
        const gone = await trigger(webhookId, { a: 1 });
        expect(gone.status).toBe(404);
        expect(gone.body).toEqual({ error: 'Webhook not found' });
      });
    });

    test('a paid Stripe checkout at a price on sale grants its credits once per checkout session; a connected account, another price or currency grants nothing', async () => {
      const owner = await newOwner(0);
      const checkout = (
        eventId: string,
        session: Record<string, unknown> = {},
        event: Record<string, unknown> = {},
      ) =>
        JSON.stringify({
          id: eventId,
          object: 'event',
          type: 'checkout.session.completed',
          ...event,
          data: {
            object: {
              id: `cs_${randomUUID()}`,
              object: 'checkout.session',
              payment_status: 'paid',
              amount_total: 2500,
              currency: 'usd',
              payment_intent: 'pi_e2e',
              metadata: { workspace_id: owner.workspaceId, credits: '250' },
              ...session,
            },
          },
        });
      const deliver = (payload: string) =>
        http(`${hooks}/webhooks/stripe`, {
          method: 'POST',
          body: payload,
          headers: {
            'stripe-signature': Stripe.webhooks.generateTestHeaderString({
              payload,
              secret: STRIPE_SECRET,
            }),
          },
        });
      const sessionId = `cs_${randomUUID()}`;
      const first = checkout(`evt_${randomUUID()}`, { id: sessionId });
      expect((await deliver(first)).status).toBe(200);
      expect(await balanceOf(owner)).toBe(250);
      // Stripe redelivers an event it is not sure arrived: nothing more is granted.
      expect((await deliver(first)).status).toBe(200);
      expect(await balanceOf(owner)).toBe(250);
      // Another event of the same checkout session (a forged or a second report) grants nothing.
      const sameSession = checkout(`evt_${randomUUID()}`, { id: sessionId });
      expect((await deliver(sameSession)).status).toBe(200);
      expect(await balanceOf(owner)).toBe(250);
      expect((await deliver(checkout(`evt_${randomUUID()}`))).status).toBe(200);
      expect(await balanceOf(owner)).toBe(500);

      const refused = [
        // A Connect account's own checkout, paying 50 cents for a billion credits.
        checkout(
          `evt_${randomUUID()}`,
          { amount_total: 50, metadata: { workspace_id: owner.workspaceId, credits: '999999999' } },
          { account: 'acct_connected' },
        ),
        // The platform's account, credits that no price sells for what was paid.
        checkout(`evt_${randomUUID()}`, {
          amount_total: 50,
          metadata: { workspace_id: owner.workspaceId, credits: '999999999' },
        }),
        checkout(`evt_${randomUUID()}`, { amount_total: 50 }),
        checkout(`evt_${randomUUID()}`, { currency: 'jpy' }),
        // The right price from a connected account.
        checkout(`evt_${randomUUID()}`, {}, { account: 'acct_connected' }),
        // A session not paid yet.
        checkout(`evt_${randomUUID()}`, { payment_status: 'unpaid' }),
      ];
      for (const payload of refused) expect((await deliver(payload)).status).toBe(200);
      expect(await balanceOf(owner)).toBe(500);
    });
  },
);
