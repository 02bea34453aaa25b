import { useState } from 'react';
import {
  RUN_COUNT_CAP,
  RunFilter,
  RunStatus,
  RunFilterTrigger,
  type RunCounts,
} from '@wap/contracts';
import { Button, SelectField, TextField } from '../../../components';
import { RUN_STATUS_LABELS } from '../shared/labels';

const TRIGGER_LABELS: Record<RunFilterTrigger, string> = {
  custom_webhook: 'Webhook',
  provider_event: 'Provider event',
  manual: 'Run by hand',
  mcp: 'MCP server',
  schedule: 'Schedule',
};
const STATUS_OPTIONS = [
  { value: '', label: 'All statuses' },
  ...RunStatus.options.map((status) => ({ value: status, label: RUN_STATUS_LABELS[status] })),
];
const TRIGGER_OPTIONS = [
  { value: '', label: 'All triggers' },
  ...RunFilterTrigger.options.map((trigger) => ({
    value: trigger,
    label: TRIGGER_LABELS[trigger],
  })),
];
const FILTER_KEYS = ['status', 'trigger', 'created_after', 'created_before', 'event_id'] as const;
type FilterKey = (typeof FILTER_KEYS)[number];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The filter the address holds (so a reload or a shared link keeps it): each part that does not
 * read is left out, and a time range out of order keeps its start only.
 */
export function filterOfSearch(search: URLSearchParams): RunFilter {
  const parts: Partial<Record<FilterKey, string>> = {};
  for (const key of FILTER_KEYS) {
    const value = search.get(key);
    if (value) parts[key] = value;
  }
  const whole = RunFilter.safeParse(parts);
  if (whole.success) return whole.data;
  const kept: Partial<Record<FilterKey, string>> = {};
  for (const key of FILTER_KEYS) {
    const one = RunFilter.safeParse({ ...kept, [key]: parts[key] });
    if (one.success) Object.assign(kept, one.data);
  }
  return RunFilter.parse(kept);
}

export function searchOfFilter(filter: RunFilter): Record<string, string> {
  return Object.fromEntries(
    Object.entries(filter).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
}

/** A `datetime-local` value (the person's own time) from an instant, and back. */
function localInputOf(iso: string | undefined): string {
  if (!iso) return '';
  const at = new Date(iso);
  const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
function instantOf(local: string): string | undefined {
  const at = new Date(local);
  return local && !Number.isNaN(at.getTime()) ? at.toISOString() : undefined;
}

/** The runs list's filters: each change is a new filter, applied at once. */
export function RunsFilterForm(props: { filter: RunFilter; onChange: (next: RunFilter) => void }) {
  const { filter, onChange } = props;
  const [eventId, setEventId] = useState(filter.event_id ?? '');
  const set = (key: FilterKey, value: string | undefined) =>
    onChange(filterOfSearch(new URLSearchParams(searchOfFilter({ ...filter, [key]: value }))));
  const eventIdError = eventId && !UUID.test(eventId.trim()) ? 'An event id is a UUID' : undefined;
  const filtered = FILTER_KEYS.some((key) => filter[key]);
  return (
    <div className="wf-filter wf-filter--runs" role="group" aria-label="Filter runs">
      <SelectField
        label="Status"
        options={STATUS_OPTIONS}
        value={filter.status ?? ''}
        onChange={(event) => set('status', event.target.value || undefined)}
      />
      <SelectField
        label="Trigger"
        options={TRIGGER_OPTIONS}
        value={filter.trigger ?? ''}
        onChange={(event) => set('trigger', event.target.value || undefined)}
      />
      <TextField
        label="Created from"
        type="datetime-local"
        value={localInputOf(filter.created_after)}
        onChange={(event) => set('created_after', instantOf(event.target.value))}
      />
      <TextField
        label="Created before"
        type="datetime-local"
        value={localInputOf(filter.created_before)}
        onChange={(event) => set('created_before', instantOf(event.target.value))}
      />
      <TextField
        label="Event id"
        hint="Of the webhook or provider event"
        value={eventId}
        error={eventIdError}
        spellCheck={false}
        onChange={(event) => {
          setEventId(event.target.value);
          const trimmed = event.target.value.trim();
          if (!trimmed || UUID.test(trimmed)) set('event_id', trimmed || undefined);
        }}
      />
      {filtered && (
        <p className="wf-filter__clear">
          <Button
            onClick={() => {
              setEventId('');
              onChange({});
            }}
          >
            Clear filters
          </Button>
        </p>
      )}
    </div>
  );
}

/** "3 failed, 2 succeeded": how many runs the filter's other parts keep, by status. */
export function RunCountsLine(props: { counts: RunCounts; onStatus: (status: RunStatus) => void }) {
  const { counts, onStatus } = props;
  const shown = RunStatus.options.filter((status) => counts.by_status[status] > 0);
  if (shown.length === 0) return null;
  return (
    <ul className="wf-run-counts" aria-label="Matching runs by status">
      {shown.map((status) => {
        const count = counts.by_status[status];
        const text =
          count >= RUN_COUNT_CAP ? `${RUN_COUNT_CAP.toLocaleString()}+` : count.toLocaleString();
        return (
          <li key={status}>
            <button type="button" className="wf-run-counts__item" onClick={() => onStatus(status)}>
              {text} {RUN_STATUS_LABELS[status].toLowerCase()}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
