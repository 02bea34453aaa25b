import {
  INTERVAL_MINUTES,
  MAX_PAUSE_AFTER_FAILURES,
  PutScheduleBody,
  type ScheduleResponse,
  type Workflow,
} from '@wap/contracts';
import type { ApiError } from '../../../lib/api';
import { validateForm, type FieldErrors } from '../../../lib/forms';

/** The schedule form's values, as typed. */
export interface ScheduleDraft {
  is_enabled: boolean;
  schedule_type: 'cron' | 'interval';
  cron_expression: string;
  interval_minutes: string;
  timezone: string;
  max_runs_per_day: string;
  queue_outside_window: boolean;
  stop_on_node_failure: boolean;
  /** Empty: never pause. */
  pause_after_failures: string;
}

export const CRON_HELP =
  'Five fields (minute hour day-of-month month day-of-week), or six with seconds first; for example 0 9 * * MON-FRI, */15 * * * *, or @daily.';

/** The form's values: the saved schedule, or a weekday-morning cron in `timezone` for a new one. */
export function scheduleDraftOf(
  answer: ScheduleResponse,
  workflow: Workflow,
  timezone: string,
): ScheduleDraft {
  const saved = answer.schedule;
  return {
    is_enabled: saved?.is_enabled ?? true,
    schedule_type: saved?.schedule_type ?? 'cron',
    cron_expression: saved?.cron_expression ?? '0 9 * * MON-FRI',
    interval_minutes: String(saved?.interval_minutes ?? 60),
    timezone: saved?.timezone ?? timezone,
    max_runs_per_day: saved?.max_runs_per_day == null ? '' : String(saved.max_runs_per_day),
    queue_outside_window: saved?.queue_outside_window ?? workflow.settings.queueOutsideWindow,
    stop_on_node_failure: saved?.stop_on_node_failure ?? workflow.settings.stopOnNodeFailure,
    pause_after_failures:
      saved?.pause_after_failures == null ? '' : String(saved.pause_after_failures),
  };
}

function numberOrNull(text: string): number | null {
  if (text.trim() === '') return null;
  return Number(text);
}

/** The PUT body: only the field of the chosen type is sent (decision 70). */
export function scheduleBodyOf(draft: ScheduleDraft): Record<string, unknown> {
  return {
    is_enabled: draft.is_enabled,
    schedule_type: draft.schedule_type,
    ...(draft.schedule_type === 'cron'
      ? { cron_expression: draft.cron_expression.trim() }
      : { interval_minutes: numberOrNull(draft.interval_minutes) }),
    timezone: draft.timezone,
    max_runs_per_day: numberOrNull(draft.max_runs_per_day),
    queue_outside_window: draft.queue_outside_window,
    stop_on_node_failure: draft.stop_on_node_failure,
    pause_after_failures: numberOrNull(draft.pause_after_failures),
  };
}

/** A message for a person, for a field whose schema message is written for developers. */
function readableMessage(field: string, message: string, draft: ScheduleDraft): string {
  switch (field) {
    case 'cron_expression':
      return draft.cron_expression.trim() === ''
        ? 'Enter a cron expression.'
        : `This is not a cron expression the scheduler understands. ${CRON_HELP}`;
    case 'interval_minutes':
      return `Enter a whole number of minutes from ${INTERVAL_MINUTES.min} to ${INTERVAL_MINUTES.max.toLocaleString('en-US')} (30 days).`;
    case 'max_runs_per_day':
      return 'Enter a whole number of at least 1, or leave it empty for no limit.';
    case 'timezone':
      return 'Choose a timezone from the list.';
    case 'pause_after_failures':
      return `Enter a whole number from 1 to ${MAX_PAUSE_AFTER_FAILURES}, or leave it empty never to pause.`;
    default:
      return message;
  }
}

/** Checks the form with the contracts' schema; one readable message per field. */
export function validateSchedule(
  draft: ScheduleDraft,
): { ok: true; body: PutScheduleBody } | { ok: false; errors: FieldErrors } {
  const result = validateForm(PutScheduleBody, scheduleBodyOf(draft));
  if (result.ok) return { ok: true, body: result.data };
  const errors: FieldErrors = {};
  for (const [field, message] of Object.entries(result.errors)) {
    if (message) errors[field] = readableMessage(field, message, draft);
  }
  return { ok: false, errors };
}

/**
 * A 400's `details`, next to their fields: the service answers paths such as
 * `body.cron_expression` (or `cron_expression`); the rest is said once above the form.
 */
export function scheduleErrorsFromResponse(
  error: ApiError,
  draft: ScheduleDraft,
): { fields: FieldErrors; general: string[] } {
  const fields: FieldErrors = {};
  const general: string[] = [];
  const known = new Set<string>(Object.keys(draft));
  for (const issue of issuesOf(error)) {
    const field = issue.path.replace(/^body\./, '').split('.')[0] ?? '';
    if (known.has(field)) fields[field] ??= readableMessage(field, issue.message, draft);
    else general.push(issue.message);
  }
  return { fields, general };
}

/** `details` as the platform writes them: `{path, message}` with a dotted or an array path. */
function issuesOf(error: ApiError): { path: string; message: string }[] {
  const details = error.body.details;
  if (!Array.isArray(details)) return [];
  return details.flatMap((detail: unknown) => {
    if (typeof detail !== 'object' || detail === null) return [];
    const { path, message } = detail as { path?: unknown; message?: unknown };
    if (typeof message !== 'string') return [];
    const dotted = Array.isArray(path)
      ? path.map(String).join('.')
      : typeof path === 'string'
        ? path
        : '';
    return [{ path: dotted, message }];
  });
}
