import type { RunningHours } from './automation';
import { checkRunningHours } from './running-hours';

const weekdaysNineToFive: RunningHours = {
  timezone: 'Europe/Berlin',
  days: [1, 2, 3, 4, 5],
  start: '09:00',
  end: '17:00',
};

describe('checkRunningHours', () => {
  test('no running hours: always open', () => {
    expect(checkRunningHours(null, new Date('2026-11-22T03:00:00Z'))).toEqual({ open: true });
  });

  test.each([
    // 2026-11-23 is a Monday; Berlin is UTC+1 in November.
    ['Monday 10:00 Berlin is open', '2026-11-23T09:00:00Z', null],
    ['Monday 08:59 Berlin waits for 09:00', '2026-11-23T07:59:00Z', '2026-11-23T08:00:00.000Z'],
    [
      'Monday 17:00 Berlin (end is exclusive) waits for Tuesday',
      '2026-11-23T16:00:00Z',
      '2026-11-24T08:00:00.000Z',
    ],
    ['Saturday waits for Monday', '2026-11-21T12:00:00Z', '2026-11-23T08:00:00.000Z'],
    ['Friday 18:30 Berlin waits for Monday', '2026-11-27T17:30:00Z', '2026-11-30T08:00:00.000Z'],
  ])('%s', (_label, now, nextOpenAt) => {
    const check = checkRunningHours(weekdaysNineToFive, new Date(now));
    expect(check).toEqual(
      nextOpenAt === null ? { open: true } : { open: false, nextOpenAt: new Date(nextOpenAt) },
    );
  });

  test('an overnight window belongs to the day it starts', () => {
    const nights: RunningHours = { timezone: 'UTC', days: [5], start: '22:00', end: '06:00' };
    // Friday 23:00 and Saturday 05:59 are inside Friday's night; Saturday 06:00 is not.
    expect(checkRunningHours(nights, new Date('2026-11-27T23:00:00Z'))).toEqual({ open: true });
    expect(checkRunningHours(nights, new Date('2026-11-28T05:59:00Z'))).toEqual({ open: true });
    expect(checkRunningHours(nights, new Date('2026-11-28T06:00:00Z'))).toEqual({
      open: false,
      nextOpenAt: new Date('2026-12-04T22:00:00Z'),
    });
  });

  test('start = end keeps the listed days open all day', () => {
    const sundays: RunningHours = { timezone: 'UTC', days: [7], start: '00:00', end: '00:00' };
    expect(checkRunningHours(sundays, new Date('2026-11-22T23:59:00Z'))).toEqual({ open: true });
    expect(checkRunningHours(sundays, new Date('2026-11-23T00:00:00Z'))).toEqual({
      open: false,
      nextOpenAt: new Date('2026-11-29T00:00:00Z'),
    });
  });

  test('a start time skipped by the spring-forward opens at the first minute that exists', () => {
    // Berlin skips 02:00–03:00 on Sunday 2026-03-29: 02:30 does not exist, 03:00 CEST = 01:00Z.
    const earlySunday: RunningHours = {
      timezone: 'Europe/Berlin',
      days: [7],
      start: '02:30',
      end: '05:00',
    };
    expect(checkRunningHours(earlySunday, new Date('2026-03-29T00:00:00Z'))).toEqual({
      open: false,
      nextOpenAt: new Date('2026-03-29T01:00:00Z'),
    });
  });
});
