import { MAX_RETRY_DELAY_MS, StepRetryPolicy } from '@wap/contracts';
import {
  failureRouteOf,
  retryAfter,
  retryAfterMsOf,
  retryDelayMs,
  routeStopsRun,
} from './step-policy';

const policy = (fields: Record<string, unknown>) =>
  StepRetryPolicy.parse({ attempts: 5, ...fields });

describe('step policies', () => {
  test('an exponential backoff doubles from delayMs up to maxDelayMs', () => {
    const retry = policy({ delayMs: 1_000, maxDelayMs: 5_000, jitter: false });
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(retry, attempt, {}))).toEqual([
      1_000, 2_000, 4_000, 5_000,
    ]);
  });

  test('a fixed backoff waits delayMs every time; jitter draws between half and all of it', () => {
    const fixed = policy({ backoff: 'fixed', delayMs: 800, jitter: false });
    expect([1, 3].map((attempt) => retryDelayMs(fixed, attempt, {}))).toEqual([800, 800]);
    const jittered = policy({ backoff: 'fixed', delayMs: 800 });
    expect(retryDelayMs(jittered, 1, {}, () => 0)).toBe(400);
    expect(retryDelayMs(jittered, 1, {}, () => 0.999_999)).toBe(800);
  });

  test("a 429's Retry-After wins when it asks for longer, up to a day", () => {
    const retry = policy({ delayMs: 1_000, jitter: false });
    expect(retryDelayMs(retry, 1, { failure: 'rate_limited', retryAfterMs: 7_000 })).toBe(7_000);
    expect(retryDelayMs(retry, 1, { failure: 'rate_limited', retryAfterMs: 10 })).toBe(1_000);
    expect(retryDelayMs(retry, 1, { failure: 'server_error', retryAfterMs: 7_000 })).toBe(1_000);
    expect(
      retryDelayMs(retry, 1, { failure: 'rate_limited', retryAfterMs: 10 * MAX_RETRY_DELAY_MS }),
    ).toBe(MAX_RETRY_DELAY_MS);
  });

  test('Retry-After is read as seconds or as an HTTP date', () => {
    const now = new Date('2026-12-03T10:00:00Z');
    expect(retryAfterMsOf('7', now)).toBe(7_000);
    expect(retryAfterMsOf('Thu, 03 Dec 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMsOf('Thu, 03 Dec 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMsOf('soon', now)).toBeUndefined();
    expect(retryAfterMsOf(null, now)).toBeUndefined();
  });

  test('a failure is retried while attempts are left and only for the failures named', () => {
    const retry = policy({ attempts: 3, on: ['server_error'] });
    expect(retryAfter({ retry }, 1, { failure: 'server_error' })).toBe(retry);
    expect(retryAfter({ retry }, 2, { failure: 'server_error' })).toBe(retry);
    expect(retryAfter({ retry }, 3, { failure: 'server_error' })).toBeUndefined();
    expect(retryAfter({ retry }, 1, { failure: 'timeout' })).toBeUndefined();
    expect(retryAfter({ retry }, 1, {})).toBeUndefined();
    expect(retryAfter({}, 1, { failure: 'server_error' })).toBeUndefined();
  });

  test("without onFailure the workflow's stopOnNodeFailure decides", () => {
    expect(failureRouteOf({}, true)).toEqual({ action: 'stop' });
    expect(failureRouteOf({}, false)).toEqual({ action: 'continue_with_output' });
    expect(failureRouteOf({ onFailure: { action: 'continue' } }, true)).toEqual({
      action: 'continue',
    });
    expect(routeStopsRun({ action: 'run_workflow', workflowId: 'x' })).toBe(true);
    expect(routeStopsRun({ action: 'continue' })).toBe(false);
  });
});
