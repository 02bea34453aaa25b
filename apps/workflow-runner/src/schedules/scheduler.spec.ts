import { eq } from 'drizzle-orm';
import {
  ScheduleFiresResponse,
  ScheduleResponse,
  type Actor,
  type StepInput,
} from '@wap/contracts';
import type { Clock, Platform } from '@wap/platform';
import type { ServiceHandle } from '@wap/service-runtime';
import { eventually, testLogger } from '@wap/testing';
import type { WorkflowRunnerSettings } from '../config';
import { runs, workflowSchedules, workflows } from '../db/schema';
import { createRunRepository } from '../runs/repository';
import {
  actorFor,
  callRunnerRoute,
  createWebhookWorkflow,
  publishWorkspace,
  runReaching,
  runtimes,
  startRunner,
  type RuntimeUnderTest,
} from '../testing/runner-harness';
import { createScheduleRepository } from './repository';
import { runIdOfFire } from './schedule-rows';
import { startScheduler, type Scheduler } from './scheduler';

/** A clock the test moves by hand: every time rule runs without sleeping. */
function manualClock(start: string): Clock & { set(iso: string): void } {
  let now = new Date(start);
  return {
    now: () => new Date(now),
    set(iso: string) {
      now = new Date(iso);
    },
  };
}

describe.each(runtimes)('the scheduler on the %s runtime', (_name, makeRuntime) => {
  let runtime: RuntimeUnderTest;
  let platform: Platform;
  let runner: ServiceHandle;
  const clock = manualClock('2026-06-01T10:00:00Z');
  let owner: Actor;
  let admin: Actor;
  let workspaceId: string;

  beforeAll(async () => {
    runtime = await makeRuntime();
    platform = { ...runtime.platform, clock };
    // No scheduler loop: each test decides the fires owed at the clock's time by hand.
    runner = await startRunner(platform, { SCHEDULER_INTERVAL_MS: 0 });
    owner = actorFor('scheduler-owner');
    admin = actorFor('scheduler-admin', { platformAdmin: true });
    workspaceId = await publishWorkspace(platform, [owner]);
    const granted = await callRunnerRoute(platform, 'grant_credits', admin, {
      params: { workspaceId },
      body: { amount: 1000, reason: 'scheduler spec' },
    });
    expect(granted.status).toBe(201);
  });
  afterAll(async () => {
    await runner.stop();
    await runtime.cleanup();
  });

  /** The schedule repository on the hand-moved clock, as a replica's scheduler has it. */
  function scheduleRepository() {
    return createScheduleRepository({
      db: platform.sql.db,
      clock,
      runs: createRunRepository({ db: platform.sql.db, clock }),
    });
  }

  function schedulerOn(): Scheduler {
    const schedules = scheduleRepository();
    return startScheduler({
      schedules,
      clock,
      logger: testLogger(),
      intervalMs: 0,
      lookaheadMs: 0,
      loop: false,
      // The runner under test claims the runs itself.
      executor: {
        reserveAhead: () => ({ lease: undefined, start: () => undefined, cancel: () => undefined }),
      },
    });
  }

  async function liveWorkflow(steps: StepInput[], settings: Record<string, unknown> = {}) {
    const created = await createWebhookWorkflow(platform, owner, workspaceId, steps, settings);
    const id = created.workflow.id;
    const run = await callRunnerRoute(platform, 'run_workflow', owner, { params: { id } });
    expect(run.status).toBe(202);
    expect(
      (await callRunnerRoute(platform, 'set_workflow_live', owner, { params: { id } })).status,
    ).toBe(200);
    return id;
  }

  /** The fires one pass decided for this workflow; the other tests' schedules fire too. */
  async function fireOnce(scheduler: Scheduler, workflowId: string) {
    return (await scheduler.runOnce()).filter((fire) => fire.workflowId === workflowId);
  }

  async function putSchedule(workflowId: string, body: Record<string, unknown>) {
    const reply = await callRunnerRoute(platform, 'put_workflow_schedule', owner, {
      params: { workflowId },
      body,
    });
    expect(reply.status).toBe(200);
    return ScheduleResponse.parse(reply.body);
  }

  async function fires(workflowId: string) {
    const reply = await callRunnerRoute(platform, 'list_schedule_fires', owner, {
      params: { workflowId },
    });
    return ScheduleFiresResponse.parse(reply.body).fires.map((fire) => ({
      fire_at: fire.fire_at,
      outcome: fire.outcome,
      missed_before: fire.missed_before,
    }));
  }

  test('an interval fires on time, each fire starts exactly one run, and the run succeeds', async () => {
    clock.set('2026-06-01T10:00:00Z');
    const workflowId = await liveWorkflow([{ type: 'delay', settings: { seconds: 0 } }]);
    const saved = await putSchedule(workflowId, { schedule_type: 'interval', interval_minutes: 5 });
    expect(saved.nextFireAt).toBe('2026-06-01T10:05:00.000Z');
    const scheduler = schedulerOn();

    clock.set('2026-06-01T10:04:59Z');
    expect(await scheduler.runOnce()).toEqual([]);
    clock.set('2026-06-01T10:05:00Z');
    // Two schedulers deciding the same fire at once (two replicas): one run.
    const [first, second] = await Promise.all([scheduler.runOnce(), schedulerOn().runOnce()]);
    const decided = [...first, ...second].filter((fire) => fire.workflowId === workflowId);
    expect(decided).toHaveLength(1);
    const runId = runIdOfFire(workflowId, new Date('2026-06-01T10:05:00Z'));
    expect(decided[0]).toMatchObject({ outcome: 'started', runId, missed: 0 });
    const run = await runReaching(platform, owner, runId, ['succeeded']);
    expect(run.trigger.type).toBe('schedule');
    const rows = await platform.sql.db.select().from(runs).where(eq(runs.workflowId, workflowId));
    expect(rows.filter((row) => row.triggerType === 'schedule')).toHaveLength(1);
    expect(await fires(workflowId)).toEqual([
      { fire_at: '2026-06-01T10:05:00.000Z', outcome: 'started', missed_before: 0 },
    ]);
    await scheduler.stop();
  });

  test('a cron schedule fires at its wall-clock time in its timezone', async () => {
    clock.set('2026-06-02T05:00:00Z');
    const workflowId = await liveWorkflow([]);
    const saved = await putSchedule(workflowId, {
      schedule_type: 'cron',
      cron_expression: '0 9 * * *',
      timezone: 'Europe/Berlin',
    });
    expect(saved.nextFireAt).toBe('2026-06-02T07:00:00.000Z');
    const scheduler = schedulerOn();
    clock.set('2026-06-02T07:00:01Z');
    expect((await fireOnce(scheduler, workflowId)).map((fire) => fire.outcome)).toEqual([
      'started',
    ]);
    const schedule = await callRunnerRoute(platform, 'get_workflow_schedule', owner, {
      params: { workflowId },
    });
    expect(ScheduleResponse.parse(schedule.body).nextFireAt).toBe('2026-06-03T07:00:00.000Z');
  });

  test('max_runs_per_day stops the day’s fires and resets at local midnight', async () => {
    clock.set('2026-06-03T20:40:00Z');
    const workflowId = await liveWorkflow([]);
    await putSchedule(workflowId, {
      schedule_type: 'interval',
      interval_minutes: 20,
      max_runs_per_day: 2,
      timezone: 'Europe/Berlin',
    });
    const scheduler = schedulerOn();
    // 23:00, 23:20, 23:40 in Berlin on 1 June, then 00:00, 00:20, 00:40 on 2 June.
    for (const time of ['21:00', '21:20', '21:40', '22:00', '22:20', '22:40']) {
      clock.set(`2026-06-03T${time}:00Z`);
      const [fire] = await fireOnce(scheduler, workflowId);
      // Each run ends before the next fire, so no fire is skipped as overlapping.
      if (fire?.runId) await runReaching(platform, owner, fire.runId, ['succeeded']);
    }
    expect(await fires(workflowId)).toEqual([
      { fire_at: '2026-06-03T22:40:00.000Z', outcome: 'skipped_daily_limit', missed_before: 0 },
      { fire_at: '2026-06-03T22:20:00.000Z', outcome: 'started', missed_before: 0 },
      { fire_at: '2026-06-03T22:00:00.000Z', outcome: 'started', missed_before: 0 },
      { fire_at: '2026-06-03T21:40:00.000Z', outcome: 'skipped_daily_limit', missed_before: 0 },
      { fire_at: '2026-06-03T21:20:00.000Z', outcome: 'started', missed_before: 0 },
      { fire_at: '2026-06-03T21:00:00.000Z', outcome: 'started', missed_before: 0 },
    ]);
  });

  test('outside running hours a fire waits for the window with queueing on, is dropped with it off', async () => {
    clock.set('2026-06-04T06:00:00Z');
    const runningHours = { timezone: 'UTC', days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' };
    const queued = await liveWorkflow([], { runningHours, queueOutsideWindow: true });
    const dropped = await liveWorkflow([], { runningHours, queueOutsideWindow: false });
    for (const workflowId of [queued, dropped]) {
      await putSchedule(workflowId, { schedule_type: 'interval', interval_minutes: 60 });
    }
    const scheduler = schedulerOn();
    clock.set('2026-06-04T07:00:00Z');
    const decided = await scheduler.runOnce();
    const outcomeOf = (workflowId: string) =>
      decided.find((fire) => fire.workflowId === workflowId)?.outcome;
    expect(outcomeOf(queued)).toBe('queued_for_window');
    expect(outcomeOf(dropped)).toBe('dropped_outside_window');
    const runId = runIdOfFire(queued, new Date('2026-06-04T07:00:00Z'));
    const [row] = await platform.sql.db.select().from(runs).where(eq(runs.id, runId));
    expect(row).toMatchObject({ status: 'queued', notBefore: new Date('2026-06-04T09:00:00Z') });
  });

  test('a fire while the previous scheduled run is still running is skipped', async () => {
    clock.set('2026-06-05T10:00:00Z');
    const workflowId = await liveWorkflow([{ type: 'delay', settings: { seconds: 3600 } }]);
    await putSchedule(workflowId, { schedule_type: 'interval', interval_minutes: 10 });
    const scheduler = schedulerOn();
    clock.set('2026-06-05T10:10:00Z');
    const [started] = await fireOnce(scheduler, workflowId);
    expect(started?.outcome).toBe('started');
    await runReaching(platform, owner, started?.runId ?? '', ['running']);
    clock.set('2026-06-05T10:20:00Z');
    await scheduler.runOnce();
    expect((await fires(workflowId))[0]).toEqual({
      fire_at: '2026-06-05T10:20:00.000Z',
      outcome: 'skipped_running',
      missed_before: 0,
    });
  });

  test('after a day of downtime only the latest owed fire runs', async () => {
    clock.set('2026-06-07T00:00:00Z');
    const workflowId = await liveWorkflow([]);
    await putSchedule(workflowId, { schedule_type: 'interval', interval_minutes: 60 });
    clock.set('2026-06-08T00:30:00Z');
    await schedulerOn().runOnce();
    expect(await fires(workflowId)).toEqual([
      { fire_at: '2026-06-08T00:00:00.000Z', outcome: 'started', missed_before: 23 },
    ]);
    const schedule = await callRunnerRoute(platform, 'get_workflow_schedule', owner, {
      params: { workflowId },
    });
    expect(ScheduleResponse.parse(schedule.body).nextFireAt).toBe('2026-06-08T01:00:00.000Z');
  });

  test('a fire decided ahead waits for its due time, leased to its decider, and another replica runs it if the decider died', async () => {
    clock.set('2026-06-11T10:00:00Z');
    const workflowId = await liveWorkflow([]);
    await putSchedule(workflowId, { schedule_type: 'interval', interval_minutes: 5 });
    const schedules = scheduleRepository();
    // A decider that dies right after its commit: nobody renews or starts what it holds.
    const lease = {
      owner: 'runner-died-after-deciding',
      count: 500,
      aheadMs: 10_000,
      leaseMs: 30_000,
    };

    clock.set('2026-06-11T10:04:49Z');
    const tooEarly = await schedules.fireDue(clock.now(), 500, { aheadMs: 10_000, lease });
    expect(tooEarly.decided.filter((fire) => fire.workflowId === workflowId)).toEqual([]);
    clock.set('2026-06-11T10:04:51Z');
    const ahead = await schedules.fireDue(clock.now(), 500, { aheadMs: 10_000, lease });
    const runId = runIdOfFire(workflowId, new Date('2026-06-11T10:05:00Z'));
    expect(ahead.decided.filter((fire) => fire.workflowId === workflowId)).toEqual([
      {
        workflowId,
        fireAt: new Date('2026-06-11T10:05:00Z'),
        outcome: 'started',
        runId,
        missed: 0,
      },
    ]);
    const [row] = await platform.sql.db.select().from(runs).where(eq(runs.id, runId));
    expect(row).toMatchObject({
      status: 'queued',
      notBefore: new Date('2026-06-11T10:05:00Z'),
      wakeAt: new Date('2026-06-11T10:05:00Z'),
      leaseOwner: lease.owner,
      leaseUntil: new Date('2026-06-11T10:05:30Z'),
      startedAt: null,
    });
    // The runner under test claims nothing held: not before the due time, nor within the lease.
    clock.set('2026-06-11T10:05:20Z');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await runReaching(platform, owner, runId, ['queued'])).status).toBe('queued');
    clock.set('2026-06-11T10:05:31Z');
    const run = await runReaching(platform, owner, runId, ['succeeded']);
    expect(run.started_at).toBe('2026-06-11T10:05:31.000Z');
    expect(await fires(workflowId)).toEqual([
      { fire_at: '2026-06-11T10:05:00.000Z', outcome: 'started', missed_before: 0 },
    ]);
  });

  test('a schedule whose previous run has not ended is decided at its due time, not ahead', async () => {
    clock.set('2026-06-12T10:00:00Z');
    const workflowId = await liveWorkflow([{ type: 'delay', settings: { seconds: 3600 } }]);
    await putSchedule(workflowId, { schedule_type: 'interval', interval_minutes: 10 });
    const scheduler = schedulerOn();
    clock.set('2026-06-12T10:10:00Z');
    const [started] = await fireOnce(scheduler, workflowId);
    await runReaching(platform, owner, started?.runId ?? '', ['running']);
    const schedules = scheduleRepository();

    clock.set('2026-06-12T10:19:55Z');
    const ahead = await schedules.fireDue(clock.now(), 500, { aheadMs: 10_000, lease: undefined });
    expect(ahead.decided.filter((fire) => fire.workflowId === workflowId)).toEqual([]);
    clock.set('2026-06-12T10:20:00Z');
    const due = await schedules.fireDue(clock.now(), 500, { aheadMs: 10_000, lease: undefined });
    expect(due.decided.filter((fire) => fire.workflowId === workflowId)).toMatchObject([
      { outcome: 'skipped_running', fireAt: new Date('2026-06-12T10:20:00Z') },
    ]);
  });

  test('a draft workflow’s fire is skipped; a workspace without credits has its fire refused', async () => {
    clock.set('2026-06-09T10:00:00Z');
    const poor = actorFor('poor-owner');
    const poorWorkspace = await publishWorkspace(platform, [poor]);
    const created = await createWebhookWorkflow(platform, poor, poorWorkspace, []);
    const workflowId = created.workflow.id;
    const put = await callRunnerRoute(platform, 'put_workflow_schedule', poor, {
      params: { workflowId },
      body: { schedule_type: 'interval', interval_minutes: 5 },
    });
    expect(put.status).toBe(200);
    clock.set('2026-06-09T10:05:00Z');
    const [draft] = await fireOnce(schedulerOn(), workflowId);
    expect(draft).toMatchObject({ workflowId, outcome: 'skipped_draft', runId: null });

    // Live while it had credits, then a correction takes them all away.
    const grant = (amount: number) =>
      callRunnerRoute(platform, 'grant_credits', admin, {
        params: { workspaceId: poorWorkspace },
        body: { amount, reason: 'scheduler spec' },
      });
    expect((await grant(5)).status).toBe(201);
    await callRunnerRoute(platform, 'run_workflow', poor, { params: { id: workflowId } });
    expect(
      (await callRunnerRoute(platform, 'set_workflow_live', poor, { params: { id: workflowId } }))
        .status,
    ).toBe(200);
    expect((await grant(-5)).status).toBe(201);
    clock.set('2026-06-09T10:10:00Z');
    const [refused] = await fireOnce(schedulerOn(), workflowId);
    expect(refused).toMatchObject({ workflowId, outcome: 'refused_credits', runId: null });
    const listed = await callRunnerRoute(platform, 'list_schedule_fires', poor, {
      params: { workflowId },
    });
    expect(ScheduleFiresResponse.parse(listed.body).fires[0]).toMatchObject({
      outcome: 'refused_credits',
      detail: 'Your credit balance is depleted. Upgrade your plan to continue running flows.',
    });
  });
});

describe.each(runtimes)('fires decided ahead on the %s runtime', (_name, makeRuntime) => {
  let runtime: RuntimeUnderTest;
  let platform: Platform;
  let owner: Actor;
  let workspaceId: string;
  const runners: ServiceHandle[] = [];
  /** Claims only by the poll come a minute apart: a run started sooner was started held. */
  const holdingRunner = {
    SCHEDULER_INTERVAL_MS: 100,
    SCHEDULER_LOOKAHEAD_MS: 5_000,
    RUN_POLL_INTERVAL_MS: 60_000,
  };

  beforeAll(async () => {
    runtime = await makeRuntime();
    platform = runtime.platform;
    owner = actorFor('ahead-owner');
    workspaceId = await publishWorkspace(platform, [owner]);
    const granter = await startedRunner({ SCHEDULER_INTERVAL_MS: 0 });
    const granted = await callRunnerRoute(
      platform,
      'grant_credits',
      actorFor('ahead-admin', { platformAdmin: true }),
      {
        params: { workspaceId },
        body: { amount: 1000, reason: 'scheduler spec' },
      },
    );
    expect(granted.status).toBe(201);
    await stopRunner(granter);
  });
  // Each test's runners only: a runner left running would decide the next test's fires.
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
  });
  afterAll(async () => {
    await runtime.cleanup();
  });

  async function stopRunner(runner: ServiceHandle) {
    runners.splice(runners.indexOf(runner), 1);
    await runner.stop();
  }

  async function startedRunner(settings: Partial<WorkflowRunnerSettings>) {
    const runner = await startRunner(platform, settings);
    runners.push(runner);
    return runner;
  }

  /** A live workflow whose schedule's next fire is moved to `inMs` from now. */
  async function firingIn(inMs: number) {
    const created = await createWebhookWorkflow(platform, owner, workspaceId, []);
    const workflowId = created.workflow.id;
    const put = await callRunnerRoute(platform, 'put_workflow_schedule', owner, {
      params: { workflowId },
      body: { schedule_type: 'interval', interval_minutes: 60 },
    });
    expect(put.status).toBe(200);
    // Straight to the table: the API's next fire is an hour away and drafts never run.
    const fireAt = new Date(Math.ceil((Date.now() + inMs) / 1000) * 1000);
    await platform.sql.db
      .update(workflows)
      .set({ status: 'live' })
      .where(eq(workflows.id, workflowId));
    await platform.sql.db
      .update(workflowSchedules)
      .set({ nextFireAt: fireAt })
      .where(eq(workflowSchedules.workflowId, workflowId));
    return { workflowId, fireAt, runId: runIdOfFire(workflowId, fireAt) };
  }

  async function heldRow(runId: string) {
    return eventually(async () => {
      const [row] = await platform.sql.db.select().from(runs).where(eq(runs.id, runId));
      if (!row) throw new Error('not decided yet');
      return row;
    }, 10_000);
  }

  test('the deciding runner starts a fire’s run at its due time and not before, without a claim', async () => {
    await startedRunner(holdingRunner);
    const { fireAt, runId } = await firingIn(3_000);

    const held = await heldRow(runId);
    expect(held).toMatchObject({ status: 'queued', wakeAt: fireAt, startedAt: null });
    expect(held.leaseOwner).toMatch(/^runner-/);
    const run = await runReaching(platform, owner, runId, ['succeeded'], 15_000);
    const startedAt = new Date(run.started_at ?? 0).getTime();
    expect(startedAt).toBeGreaterThanOrEqual(fireAt.getTime());
    expect(startedAt - fireAt.getTime()).toBeLessThan(10_000);
  });

  test('a runner stopped before the due time gives its held run back, and another runs it on time', async () => {
    const first = await startedRunner(holdingRunner);
    // Far enough ahead for the runner to stop before the due time on a busy machine.
    const { fireAt, runId } = await firingIn(8_000);
    expect((await heldRow(runId)).leaseOwner).toMatch(/^runner-/);

    await stopRunner(first);
    const [given] = await platform.sql.db.select().from(runs).where(eq(runs.id, runId));
    expect(given).toMatchObject({
      status: 'queued',
      wakeAt: fireAt,
      leaseOwner: null,
      leaseUntil: null,
    });
    // No scheduler: only its executor's claim can start the run.
    await startedRunner({ SCHEDULER_INTERVAL_MS: 0 });
    const run = await runReaching(platform, owner, runId, ['succeeded'], 15_000);
    expect(new Date(run.started_at ?? 0).getTime()).toBeGreaterThanOrEqual(fireAt.getTime());
  });
});
