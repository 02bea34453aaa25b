import { Cron } from 'croner';
import type { FireOutcome, WindowCheck } from '@wap/contracts';

/** What decides when a schedule fires (decision 70). */
export interface ScheduleTiming {
  scheduleType: 'cron' | 'interval';
  cronExpression: string | null;
  intervalMinutes: number | null;
  timezone: string;
  /** Interval schedules fire at this instant plus whole intervals. */
  anchorAt: Date;
}

const MINUTE_MS = 60_000;
/** A cron schedule's missed fires are counted one by one up to this many per pass. */
const MAX_CRON_CATCH_UP_STEPS = 10_000;

function intervalMs(timing: ScheduleTiming): number {
  return (timing.intervalMinutes ?? 1) * MINUTE_MS;
}

/**
 * The first fire strictly after `after`, or null when the expression never fires again. Cron
 * times are wall-clock times of the schedule's timezone, with croner's DST rules: a time that
 * a spring-forward skips fires at the first minute after the gap, a time that an autumn
 * fall-back repeats fires once, at its first occurrence.
 */
export function nextFireAfter(timing: ScheduleTiming, after: Date): Date | null {
  if (timing.scheduleType === 'interval') {
    const step = intervalMs(timing);
    const elapsed = after.getTime() - timing.anchorAt.getTime();
    const intervals = elapsed < 0 ? 1 : Math.floor(elapsed / step) + 1;
    return new Date(timing.anchorAt.getTime() + intervals * step);
  }
  const cron = new Cron(timing.cronExpression ?? '', { timezone: timing.timezone, paused: true });
  return cron.nextRun(after);
}

/** The fire to run now, how many earlier owed fires it replaces, and the next one after now. */
export interface CatchUp {
  fireAt: Date;
  missed: number;
  next: Date | null;
}

/**
 * After downtime only the latest owed fire runs (decision 71): from the owed fire `due`
 * (at or before `now`), the latest fire at or before `now`, the number it replaces, and the
 * first fire after `now`. A fire not owed yet (decided ahead, decision 139) is itself the one
 * to run, replacing none; the next is the one after it.
 */
export function catchUp(timing: ScheduleTiming, due: Date, now: Date): CatchUp {
  if (timing.scheduleType === 'interval') {
    const step = intervalMs(timing);
    const missed = Math.max(0, Math.floor((now.getTime() - due.getTime()) / step));
    const fireAt = new Date(due.getTime() + missed * step);
    return { fireAt, missed, next: new Date(fireAt.getTime() + step) };
  }
  let fireAt = due;
  let missed = 0;
  for (;;) {
    const next = nextFireAfter(timing, fireAt);
    if (!next || next.getTime() > now.getTime() || missed >= MAX_CRON_CATCH_UP_STEPS) {
      return { fireAt, missed, next };
    }
    fireAt = next;
    missed += 1;
  }
}

const dayFormatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (YYYY-MM-DD) of an instant in a timezone: what max_runs_per_day counts by. */
export function localDay(instant: Date, timezone: string): string {
  let formatter = dayFormatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dayFormatters.set(timezone, formatter);
  }
  return formatter.format(instant);
}

/** What is known when a fire is decided. */
export interface FireContext {
  workflowLive: boolean;
  /** Runs the schedule started (or queued) on the fire's local day before this fire. */
  runsOnFireDay: number;
  maxRunsPerDay: number | null;
  /** The schedule's previous run has not ended. */
  previousRunActive: boolean;
  /** Why the workspace's credits cannot pay a run, or null when they can. */
  creditShortfall: string | null;
  /** Running hours at the fire time. */
  window: WindowCheck;
  queueOutsideWindow: boolean;
}

export interface FireDecision {
  outcome: FireOutcome;
  /** A run queued for the window starts no earlier than this. */
  notBefore: Date | null;
  detail: string | null;
}

/** Decides one fire; the rules apply in this order (decision 71). */
export function decideFire(context: FireContext): FireDecision {
  if (!context.workflowLive) {
    return { outcome: 'skipped_draft', notBefore: null, detail: 'The workflow is in draft' };
  }
  if (context.previousRunActive) {
    return {
      outcome: 'skipped_running',
      notBefore: null,
      detail: 'The previous scheduled run is still running',
    };
  }
  if (context.maxRunsPerDay !== null && context.runsOnFireDay >= context.maxRunsPerDay) {
    return {
      outcome: 'skipped_daily_limit',
      notBefore: null,
      detail: `max_runs_per_day (${context.maxRunsPerDay}) reached`,
    };
  }
  if (context.creditShortfall) {
    return { outcome: 'refused_credits', notBefore: null, detail: context.creditShortfall };
  }
  if (!context.window.open) {
    return context.queueOutsideWindow
      ? {
          outcome: 'queued_for_window',
          notBefore: context.window.nextOpenAt,
          detail: `Outside running hours; starts at ${context.window.nextOpenAt.toISOString()}`,
        }
      : {
          outcome: 'dropped_outside_window',
          notBefore: null,
          detail: 'Outside running hours and queueing is off',
        };
  }
  return { outcome: 'started', notBefore: null, detail: null };
}
