const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'short' });

const MINUTE_S = 60;
const HOUR_S = 60 * MINUTE_S;
const DAY_S = 24 * HOUR_S;
const WEEK_S = 7 * DAY_S;

/** "just now", "5 minutes ago", "yesterday"; a date beyond a week, where "3 weeks ago" says little. */
export function describeTime(iso: string, now = Date.now()): string {
  const date = new Date(iso);
  const seconds = Math.round((date.getTime() - now) / 1000);
  const distance = Math.abs(seconds);
  if (distance < MINUTE_S) return 'just now';
  if (distance < HOUR_S) return relativeFormat.format(Math.round(seconds / MINUTE_S), 'minute');
  if (distance < DAY_S) return relativeFormat.format(Math.round(seconds / HOUR_S), 'hour');
  if (distance < WEEK_S) return relativeFormat.format(Math.round(seconds / DAY_S), 'day');
  return dateFormat.format(date);
}

/** A moment of a chat, told relatively, with the full date and time on hover. */
export function ChatTime(props: { value: string; className?: string }) {
  return (
    <time
      className={props.className}
      dateTime={props.value}
      title={fullFormat.format(new Date(props.value))}
    >
      {describeTime(props.value)}
    </time>
  );
}
