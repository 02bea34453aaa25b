import type { RunningHours } from './automation';

/**
 * Running hours of a workflow, evaluated in its own time zone. A window opens at `start` on each
 * listed day (1 = Monday … 7 = Sunday) and closes at `end`; an `end` at or before `start` closes
 * the next day (a night shift such as 22:00–06:00), and `start` = `end` keeps the whole day open.
 */
export type WindowCheck = { open: true } | { open: false; nextOpenAt: Date };

const MINUTE_MS = 60_000;
const DAY_MINUTES = 24 * 60;

interface WallClock {
  /** 1 = Monday … 7 = Sunday. */
  isoDay: number;
  minuteOfDay: number;
}

/** Building a formatter costs far more than using one: one per time zone, kept. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  const known = formatters.get(timezone);
  if (known) return known;
  const formatter = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  formatters.set(timezone, formatter);
  return formatter;
}

const ISO_DAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

function wallClockAt(instant: Date, formatter: Intl.DateTimeFormat): WallClock {
  const parts = Object.fromEntries(formatter.formatToParts(instant).map((p) => [p.type, p.value]));
  return {
    isoDay: ISO_DAYS[parts['weekday'] ?? ''] ?? 1,
    minuteOfDay: Number(parts['hour']) * 60 + Number(parts['minute']),
  };
}

function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

function isOpenAt(hours: RunningHours, clock: WallClock): boolean {
  const start = minutesOf(hours.start);
  const end = minutesOf(hours.end);
  const openOn = (day: number) => hours.days.includes(day);
  if (start === end) return openOn(clock.isoDay);
  if (start < end) {
    return openOn(clock.isoDay) && clock.minuteOfDay >= start && clock.minuteOfDay < end;
  }
  // Overnight: the evening part belongs to today, the early-morning part to yesterday's window.
  const yesterday = clock.isoDay === 1 ? 7 : clock.isoDay - 1;
  return (
    (openOn(clock.isoDay) && clock.minuteOfDay >= start) ||
    (openOn(yesterday) && clock.minuteOfDay < end)
  );
}

/**
 * Whether `now` is inside the window and, when not, the first minute at which it opens. Minute
 * steps over at most eight days keep DST right without a time-zone library: a start time that a
 * spring-forward skips opens at the first minute that exists after it.
 */
export function checkRunningHours(hours: RunningHours | null, now: Date): WindowCheck {
  if (!hours) return { open: true };
  const formatter = formatterFor(hours.timezone);
  if (isOpenAt(hours, wallClockAt(now, formatter))) return { open: true };
  const firstMinute = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  for (let step = 0; step <= 8 * DAY_MINUTES; step += 1) {
    const candidate = new Date(firstMinute + step * MINUTE_MS);
    if (isOpenAt(hours, wallClockAt(candidate, formatter))) {
      return { open: false, nextOpenAt: candidate };
    }
  }
  throw new Error('running hours never open');
}
