import { describe, expect, test } from 'vitest';
import type { ScheduleResponse, Workflow } from '@wap/contracts';
import { ApiError } from '../../../lib/api';
import {
  scheduleBodyOf,
  scheduleDraftOf,
  scheduleErrorsFromResponse,
  validateSchedule,
  type ScheduleDraft,
} from './schedule-draft';

const workflow = {
  settings: { runningHours: null, queueOutsideWindow: false, stopOnNodeFailure: true },
} as Workflow;
const none: ScheduleResponse = {
  schedule: null,
  hasSchedule: false,
  nextFireAt: null,
  pausedForFailures: null,
};

function draft(change: Partial<ScheduleDraft> = {}): ScheduleDraft {
  return { ...scheduleDraftOf(none, workflow, 'Europe/Berlin'), ...change };
}

describe('the schedule form', () => {
  test('a new schedule starts as a weekday cron in the browser’s timezone with the workflow’s settings', () => {
    expect(draft()).toEqual({
      is_enabled: true,
      schedule_type: 'cron',
      cron_expression: '0 9 * * MON-FRI',
      interval_minutes: '60',
      timezone: 'Europe/Berlin',
      max_runs_per_day: '',
      queue_outside_window: false,
      stop_on_node_failure: true,
      pause_after_failures: '',
    });
  });

  test('only the chosen type’s field is sent; an empty daily limit is no limit', () => {
    expect(scheduleBodyOf(draft({ schedule_type: 'interval', interval_minutes: '15' }))).toEqual({
      is_enabled: true,
      schedule_type: 'interval',
      interval_minutes: 15,
      timezone: 'Europe/Berlin',
      max_runs_per_day: null,
      queue_outside_window: false,
      stop_on_node_failure: true,
      pause_after_failures: null,
    });
    const checked = validateSchedule(draft({ max_runs_per_day: '3' }));
    expect(checked.ok && checked.body).toMatchObject({
      cron_expression: '0 9 * * MON-FRI',
      max_runs_per_day: 3,
    });
  });

  test.each<[Partial<ScheduleDraft>, string, RegExp]>([
    [{ cron_expression: 'every morning' }, 'cron_expression', /^This is not a cron expression/],
    [{ cron_expression: '0 9 * * 1 2026 x' }, 'cron_expression', /^This is not a cron expression/],
    [{ cron_expression: ' ' }, 'cron_expression', /^Enter a cron expression\.$/],
    [
      { schedule_type: 'interval', interval_minutes: '0' },
      'interval_minutes',
      /^Enter a whole number of minutes from 1 to 43,200/,
    ],
    [{ schedule_type: 'interval', interval_minutes: '' }, 'interval_minutes', /minutes/],
    [{ max_runs_per_day: '0' }, 'max_runs_per_day', /or leave it empty/],
    [{ timezone: 'Mars/Olympus' }, 'timezone', /^Choose a timezone/],
    [{ pause_after_failures: '0' }, 'pause_after_failures', /never to pause\.$/],
    [{ pause_after_failures: '101' }, 'pause_after_failures', /from 1 to 100/],
  ])('%o is refused on %s, readably', (change, field, message) => {
    const checked = validateSchedule(draft(change));
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(Object.keys(checked.errors)).toEqual([field]);
      expect(checked.errors[field]).toMatch(message);
    }
  });

  test('the service’s 400 details land next to their fields, with dotted or array paths', () => {
    const error = new ApiError(
      400,
      {
        error: 'Invalid request body',
        code: 'VALIDATION_ERROR',
        details: [
          {
            path: 'body.cron_expression',
            message: 'cron_expression is not a valid cron expression',
          },
          { path: ['max_runs_per_day'], message: 'Too small' },
          { path: 'body.other', message: 'Something else' },
        ],
      },
      'VALIDATION_ERROR',
    );
    const mapped = scheduleErrorsFromResponse(error, draft({ cron_expression: '61 * * * *' }));
    expect(Object.keys(mapped.fields)).toEqual(['cron_expression', 'max_runs_per_day']);
    expect(mapped.fields['cron_expression']).toMatch(/^This is not a cron expression/);
    expect(mapped.general).toEqual(['Something else']);
  });
});
