import { catchUp, decideFire, localDay, nextFireAfter, type ScheduleTiming } from './time-rules';

const at = (iso: string) => new Date(iso);

function cron(expression: string, timezone: string): ScheduleTiming {
  return {
    scheduleType: 'cron',
    cronExpression: expression,
    intervalMinutes: null,
    timezone,
    anchorAt: at('2026-01-01T00:00:00Z'),
  };
}

function every(minutes: number, anchor: string): ScheduleTiming {
  return {
    scheduleType: 'interval',
    cronExpression: null,
    intervalMinutes: minutes,
    timezone: 'UTC',
    anchorAt: at(anchor),
  };
}

/** The fires of a schedule after `from`, one after the other. */
function firesAfter(timing: ScheduleTiming, from: string, count: number): string[] {
  const fires: string[] = [];
  let after = at(from);
  for (let index = 0; index < count; index += 1) {
    const next = nextFireAfter(timing, after);
    if (!next) break;
    fires.push(next.toISOString());
    after = next;
  }
  return fires;
}

describe('nextFireAfter', () => {
  test('a 5-field cron expression in its timezone', () => {
    expect(firesAfter(cron('0 9 * * 1-5', 'Europe/Berlin'), '2026-06-05T12:00:00Z', 2)).toEqual([
      '2026-06-08T07:00:00.000Z',
      '2026-06-09T07:00:00.000Z',
    ]);
  });

  test('a 6-field cron expression takes seconds first', () => {
    expect(firesAfter(cron('30 */15 * * * *', 'UTC'), '2026-06-05T12:00:00Z', 2)).toEqual([
      '2026-06-05T12:00:30.000Z',
      '2026-06-05T12:15:30.000Z',
    ]);
  });

  test('an interval fires at the anchor plus whole intervals, strictly after', () => {
    const timing = every(15, '2026-06-05T12:00:00Z');
    expect(firesAfter(timing, '2026-06-05T12:00:00Z', 3)).toEqual([
      '2026-06-05T12:15:00.000Z',
      '2026-06-05T12:30:00.000Z',
      '2026-06-05T12:45:00.000Z',
    ]);
    expect(nextFireAfter(timing, at('2026-06-05T12:29:59Z'))?.toISOString()).toBe(
      '2026-06-05T12:30:00.000Z',
    );
  });

  describe('a daily job at 02:30 across daylight saving (decision 70)', () => {
    test.each([
      [
        'Europe/Berlin, spring gap (02:30 does not exist on 29 March): runs at 03:00 CEST',
        'Europe/Berlin',
        '2026-03-28T12:00:00Z',
        ['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z'],
      ],
      [
        'Europe/Berlin, autumn repeat (02:30 happens twice on 25 October): runs once, at the first',
        'Europe/Berlin',
        '2026-10-24T12:00:00Z',
        ['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z'],
      ],
      [
        'America/New_York, spring gap (02:30 does not exist on 8 March): runs at 03:00 EDT',
        'America/New_York',
        '2026-03-07T12:00:00Z',
        ['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z'],
      ],
      [
        'America/New_York, autumn (1 November repeats 01:00-02:00, not 02:30): runs once, 02:30 EST',
        'America/New_York',
        '2026-10-31T12:00:00Z',
        ['2026-11-01T07:30:00.000Z', '2026-11-02T07:30:00.000Z'],
      ],
    ])('%s', (_case, timezone, from, expected) => {
      expect(firesAfter(cron('30 2 * * *', timezone), from, 2)).toEqual(expected);
    });
  });
});

describe('catchUp: after downtime only the latest owed fire runs', () => {
  test('an interval down for a day fires once and counts the rest as missed', () => {
    const timing = every(60, '2026-06-01T00:00:00Z');
    expect(catchUp(timing, at('2026-06-01T01:00:00Z'), at('2026-06-02T01:30:00Z'))).toEqual({
      fireAt: at('2026-06-02T01:00:00Z'),
      missed: 24,
      next: at('2026-06-02T02:00:00Z'),
    });
  });

  test('a daily cron down for three days fires once', () => {
    const timing = cron('0 6 * * *', 'UTC');
    expect(catchUp(timing, at('2026-06-01T06:00:00Z'), at('2026-06-04T07:00:00Z'))).toEqual({
      fireAt: at('2026-06-04T06:00:00Z'),
      missed: 3,
      next: at('2026-06-05T06:00:00Z'),
    });
  });

  test('a fire on time replaces nothing', () => {
    const timing = every(5, '2026-06-01T00:00:00Z');
    expect(catchUp(timing, at('2026-06-01T00:05:00Z'), at('2026-06-01T00:05:00.400Z'))).toEqual({
      fireAt: at('2026-06-01T00:05:00Z'),
      missed: 0,
      next: at('2026-06-01T00:10:00Z'),
    });
  });

  test.each([
    ['an interval', every(5, '2026-06-01T00:00:00Z'), '2026-06-01T00:10:00Z'],
    ['a cron every three seconds', cron('*/3 * * * * *', 'UTC'), '2026-06-01T00:05:03Z'],
  ])('%s decided ahead fires at its own due time and no later one', (_kind, timing, next) => {
    expect(catchUp(timing, at('2026-06-01T00:05:00Z'), at('2026-06-01T00:04:50Z'))).toEqual({
      fireAt: at('2026-06-01T00:05:00Z'),
      missed: 0,
      next: at(next),
    });
  });
});

describe('localDay', () => {
  test.each([
    ['2026-06-01T21:59:00Z', 'Europe/Berlin', '2026-06-01'],
    ['2026-06-01T22:00:00Z', 'Europe/Berlin', '2026-06-02'],
    ['2026-06-02T03:59:00Z', 'America/New_York', '2026-06-01'],
    ['2026-06-02T04:00:00Z', 'America/New_York', '2026-06-02'],
  ])('%s in %s is %s', (instant, timezone, day) => {
    expect(localDay(at(instant), timezone)).toBe(day);
  });
});

describe('decideFire', () => {
  const open = { open: true } as const;
  const closed = { open: false, nextOpenAt: at('2026-06-02T07:00:00Z') } as const;
  const base = {
    workflowLive: true,
    runsOnFireDay: 0,
    maxRunsPerDay: null,
    previousRunActive: false,
    creditShortfall: null,
    window: open,
    queueOutsideWindow: true,
  };

  test.each([
    ['every rule passes: started', {}, 'started', null],
    ['a draft workflow', { workflowLive: false }, 'skipped_draft', null],
    ['the previous run still running', { previousRunActive: true }, 'skipped_running', null],
    [
      'the day’s limit reached',
      { maxRunsPerDay: 3, runsOnFireDay: 3 },
      'skipped_daily_limit',
      null,
    ],
    ['below the day’s limit', { maxRunsPerDay: 3, runsOnFireDay: 2 }, 'started', null],
    ['credits short', { creditShortfall: 'no credits' }, 'refused_credits', null],
    ['outside the window, queueing on', { window: closed }, 'queued_for_window', closed.nextOpenAt],
    [
      'outside the window, queueing off',
      { window: closed, queueOutsideWindow: false },
      'dropped_outside_window',
      null,
    ],
    [
      'the previous run counts before the daily limit',
      { previousRunActive: true, maxRunsPerDay: 1, runsOnFireDay: 1 },
      'skipped_running',
      null,
    ],
  ])('%s', (_rule, overrides, outcome, notBefore) => {
    const decision = decideFire({ ...base, ...overrides });
    expect({ outcome: decision.outcome, notBefore: decision.notBefore }).toEqual({
      outcome,
      notBefore,
    });
  });
});
