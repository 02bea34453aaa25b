import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { WEBHOOK_PAYLOADS_BUCKET, type WebhookReceived } from '@wap/contracts';
import type { Platform } from '@wap/platform';
import type { ServiceHandle } from '@wap/service-runtime';
import { eventually } from '@wap/testing';
import {
  actorFor,
  callRunnerRoute,
  createWebhookWorkflow,
  publishWebhookEvent,
  publishWorkspace,
  runReaching,
  runtimes,
  startRunner,
  webhookEventFor,
  type RuntimeUnderTest,
} from '../testing/runner-harness';
import { testEvents } from '../db/schema';

async function* chunksOf(body: unknown): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode(JSON.stringify(body));
}

const REDELIVERED = 'webhook event delivered again after it was stored';
const BODY_GONE = 'webhook event body is no longer stored';

describe.each(runtimes)(
  'webhook events with parked bodies on the %s runtime',
  (_name, makeRuntime) => {
    let runtime: RuntimeUnderTest;
    let platform: Platform;
    let runner: ServiceHandle;
    const logLines: { msg?: string; eventId?: string }[] = [];
    const logged = (msg: string, eventId: string) =>
      logLines.some((line) => line.msg === msg && line.eventId === eventId);

    beforeAll(async () => {
      runtime = await makeRuntime();
      platform = runtime.platform;
      const logger = pino(
        { level: 'debug' },
        { write: (line: string) => logLines.push(JSON.parse(line) as (typeof logLines)[number]) },
      );
      // One test event kept per workflow, pruned at once: an event's own test event can be gone
      // while its run stays.
      runner = await startRunner(
        platform,
        { TEST_EVENTS_PER_WORKFLOW: 1, TEST_EVENTS_PRUNE_INTERVAL_MS: 50 },
        logger,
      );
    });
    afterAll(async () => {
      await runner.stop();
      await runtime.cleanup();
    });

    async function testEventBody(eventId: string): Promise<{ body: unknown } | undefined> {
      const [row] = await platform.sql.db
        .select({ body: testEvents.body })
        .from(testEvents)
        .where(eq(testEvents.id, eventId));
      return row;
    }

    const publish = (data: WebhookReceived, options: { dedupe: boolean }) =>
      publishWebhookEvent(platform, data, options);

    test('an event delivered again after it was stored is acked as it is, found by its test event or, once that is pruned, by its run; a body that never arrived is stored as null, with a warning', async () => {
      const owner = actorFor('owner');
      const workspaceId = await publishWorkspace(platform, [owner]);
      const created = await createWebhookWorkflow(platform, owner, workspaceId, [
        { type: 'delay', name: 'pause', settings: { seconds: 0 } },
      ]);
      /** An event whose body was parked in the object store (`undefined`: never parked). */
      const parkedEvent = async (body: unknown, run?: WebhookReceived['run']) => {
        const event = webhookEventFor(created, null, run);
        const parked =
          body === undefined
            ? null
            : await platform.objects.put(WEBHOOK_PAYLOADS_BUCKET, event.eventId, chunksOf(body));
        const payload: WebhookReceived['payload'] = {
          kind: 'object',
          bucket: WEBHOOK_PAYLOADS_BUCKET,
          name: event.eventId,
          size: parked?.size ?? 100,
        };
        return { ...event, payload };
      };

      const runId = randomUUID();
      const withRun = await parkedEvent(
        { order: 1 },
        { runId, inflightKey: null, notBefore: null },
      );
      await publish(withRun, { dedupe: true });
      await runReaching(platform, owner, runId, ['succeeded', 'failed']);
      expect(await testEventBody(withRun.eventId)).toEqual({ body: { order: 1 } });
      await eventually(async () =>
        expect(await platform.objects.info(WEBHOOK_PAYLOADS_BUCKET, withRun.eventId)).toBeNull(),
      );

      const withoutRun = await parkedEvent({ order: 2 });
      await publish(withoutRun, { dedupe: true });
      await eventually(async () =>
        expect(await testEventBody(withoutRun.eventId)).toEqual({ body: { order: 2 } }),
      );
      // The cap of one prunes the first event's test event; its run stays.
      await eventually(async () => expect(await testEventBody(withRun.eventId)).toBeUndefined());

      // Published again past JetStream's dedupe: a delivery repeated after the body was deleted.
      await publish(withRun, { dedupe: false });
      await publish(withoutRun, { dedupe: false });
      await eventually(async () => {
        expect(logged(REDELIVERED, withRun.eventId)).toBe(true);
        expect(logged(REDELIVERED, withoutRun.eventId)).toBe(true);
      });
      expect(logged(BODY_GONE, withRun.eventId)).toBe(false);
      expect(logged(BODY_GONE, withoutRun.eventId)).toBe(false);
      expect(await testEventBody(withRun.eventId)).toBeUndefined();
      const runs = await callRunnerRoute(platform, 'list_runs', owner, {
        params: { id: created.workflow.id },
      });
      expect((runs.body as { runs: unknown[] }).runs).toHaveLength(1);

      const neverParked = await parkedEvent(undefined);
      await publish(neverParked, { dedupe: true });
      await eventually(async () =>
        expect(await testEventBody(neverParked.eventId)).toEqual({ body: null }),
      );
      expect(logged(BODY_GONE, neverParked.eventId)).toBe(true);
      expect(logged(REDELIVERED, neverParked.eventId)).toBe(false);
    });
  },
);
