import type { Provider } from '@wap/contracts';
import type { Run, RunStatus, StepRun } from '../api/workflows-api';

/** What each step type is called on screen, and what it does, in a line. */
export const STEP_TYPE_TEXT: Record<string, { label: string; description: string }> = {
  http_request: { label: 'HTTP request', description: 'Calls a web address and keeps its answer.' },
  delay: { label: 'Delay', description: 'Waits a number of seconds, up to 7 days.' },
  mcp_tool: { label: 'MCP tool', description: 'Calls a tool of a registered MCP server.' },
  assistant_prompt: {
    label: 'Assistant prompt',
    description: 'Asks the assistant and keeps its answer.',
  },
  approval: {
    label: 'Approval',
    description: 'Waits until a reviewer approves or rejects in the approvals inbox.',
  },
  table_row: { label: 'Table row', description: 'Adds a row to one of the workspace’s tables.' },
  if: {
    label: 'If',
    description: 'Runs its then steps when a condition holds, else its else steps.',
  },
  switch: {
    label: 'Switch',
    description: 'Runs the steps of the first case whose condition holds.',
  },
  for_each: { label: 'For each', description: 'Runs its steps once for each item of a list.' },
  call_workflow: {
    label: 'Call workflow',
    description: 'Runs another workflow of the workspace and takes its result.',
  },
  set: { label: 'Set values', description: 'Names values that later steps read as vars.' },
  stop: { label: 'Stop', description: 'Ends the run as succeeded or failed, with a message.' },
};

export function stepTypeLabel(type: string): string {
  return STEP_TYPE_TEXT[type]?.label ?? type;
}

export const RUN_STATUS_LABELS: Record<RunStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  waiting_approval: 'Waiting for approval',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const STEP_STATUS_LABELS: Record<StepRun['status'], string> = {
  pending: 'Pending',
  running: 'Running',
  waiting: 'Waiting',
  succeeded: 'Succeeded',
  failed: 'Failed',
  skipped: 'Skipped',
};

/** How a run was started, in words. */
export function triggerLabel(trigger: Run['trigger']): string {
  switch (trigger.type) {
    case 'custom_webhook':
      return trigger.failed_run_id ? 'Failure of another run' : 'Webhook';
    case 'provider_event':
      return 'Provider event';
    case 'manual':
      return trigger.test_event_id ? 'Run on a test event' : 'Run';
    case 'mcp':
      return 'MCP server';
    case 'schedule':
      return 'Schedule';
    case 'call_workflow':
      return 'Called by another run';
    case 'for_each':
      return trigger.iteration === null
        ? 'Loop iteration'
        : `Loop iteration ${trigger.iteration + 1}`;
  }
}

export function creditsText(credits: number): string {
  if (credits === 0) return 'free';
  return credits === 1 ? '1 credit' : `${credits.toLocaleString('en-US')} credits`;
}

/** "Each run uses 3 credits." or "Runs are free." */
export function runCostSentence(credits: number): string {
  return credits === 0 ? 'Runs are free.' : `Each run uses ${creditsText(credits)}.`;
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

const SHORT_DATE_TIME = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  second: '2-digit',
});

/** "Nov 25, 10:48:55 AM": for lists, where the year goes without saying. */
export function formatShortDateTime(iso: string): string {
  return SHORT_DATE_TIME.format(new Date(iso));
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return DATE_TIME.format(new Date(iso));
}

/** 850 ms, 12.4 s, 3 min 5 s, 2 h 4 min. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** How long a run took, or has been going, from its start. */
export function runDuration(run: Pick<Run, 'started_at' | 'finished_at'>): number | null {
  if (!run.started_at) return null;
  const end = run.finished_at ? Date.parse(run.finished_at) : null;
  return end === null ? null : end - Date.parse(run.started_at);
}

/** Each provider as people know it. */
export const PROVIDER_LABELS: Record<Provider, string> = {
  github: 'GitHub',
  linear: 'Linear',
  slack: 'Slack',
  stripe: 'Stripe',
};
