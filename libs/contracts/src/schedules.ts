import { Cron } from 'croner';
import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes } from './route-spec';

/** Interval bounds, in minutes: one minute to thirty days (decision 70). */
export const INTERVAL_MINUTES = { min: 1, max: 30 * 24 * 60 } as const;
/** Runs a schedule may start per day of its timezone, at the most (decision 70). */
export const MAX_RUNS_PER_DAY_LIMIT = 100_000;

/** An IANA timezone name the runtime knows ("Europe/Berlin", "UTC"). */
export const TimezoneName = z
  .string()
  .min(1)
  .max(64)
  .refine((timezone) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: timezone });
      return true;
    } catch {
      return false;
    }
  }, 'timezone must be an IANA timezone name such as Europe/Berlin or UTC');

/**
 * A cron expression in croner's dialect: 5 fields (minute hour day-of-month month day-of-week)
 * or 6 with seconds first; ranges, lists, steps, names (JAN, MON), `L`, `W`, `#` and the
 * @nicknames (decision 70).
 */
export const CronExpression = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((expression) => {
    // croner also takes a seventh field (years); the documented dialect is 5 or 6.
    const fields = expression.split(/\s+/u).length;
    if (!expression.startsWith('@') && fields !== 5 && fields !== 6) return false;
    try {
      new Cron(expression, { paused: true });
      return true;
    } catch {
      return false;
    }
  }, 'cron_expression is not a valid cron expression (5 fields, or 6 with seconds first)');

/** Failed runs in a row after which a schedule pauses itself, at the most (decision 160). */
export const MAX_PAUSE_AFTER_FAILURES = 100;

/**
 * The spec's Workflow schedule record, and `pause_after_failures` beside it: how many scheduled
 * runs in a row may fail before the schedule pauses itself (null: never). The field of the
 * other schedule type is null.
 */
export const WorkflowSchedule = z.object({
  workflow_id: z.uuid(),
  is_enabled: z.boolean(),
  timezone: z.string(),
  schedule_type: z.enum(['cron', 'interval']),
  cron_expression: z.string().nullable(),
  interval_minutes: z.number().int().nullable(),
  max_runs_per_day: z.number().int().nullable(),
  queue_outside_window: z.boolean(),
  stop_on_node_failure: z.boolean(),
  pause_after_failures: z.number().int().nullable(),
  updated_at: z.iso.datetime(),
});
export type WorkflowSchedule = z.infer<typeof WorkflowSchedule>;

/**
 * `PUT /workflows/{workflowId}/schedule`: `schedule_type` chooses; a cron schedule takes
 * `cron_expression` and no interval, an interval schedule `interval_minutes` and no expression.
 */
export const PutScheduleBody = z
  .object({
    is_enabled: z.boolean().default(true),
    timezone: TimezoneName.default('UTC'),
    schedule_type: z.enum(['cron', 'interval']),
    cron_expression: CronExpression.nullable().optional(),
    interval_minutes: z
      .number()
      .int()
      .min(INTERVAL_MINUTES.min)
      .max(INTERVAL_MINUTES.max)
      .nullable()
      .optional(),
    max_runs_per_day: z.number().int().min(1).max(MAX_RUNS_PER_DAY_LIMIT).nullable().default(null),
    queue_outside_window: z.boolean().optional(),
    stop_on_node_failure: z.boolean().optional(),
    pause_after_failures: z
      .number()
      .int()
      .min(1)
      .max(MAX_PAUSE_AFTER_FAILURES)
      .nullable()
      .default(null),
  })
  .superRefine((body, context) => {
    const needs = body.schedule_type === 'cron' ? 'cron_expression' : 'interval_minutes';
    const other = body.schedule_type === 'cron' ? 'interval_minutes' : 'cron_expression';
    if (body[needs] === undefined || body[needs] === null) {
      context.addIssue({
        code: 'custom',
        path: [needs],
        message: `${needs} is required when schedule_type is ${body.schedule_type}`,
      });
    }
    if (body[other] !== undefined && body[other] !== null) {
      context.addIssue({
        code: 'custom',
        path: [other],
        message: `${other} must be left out when schedule_type is ${body.schedule_type}`,
      });
    }
  });
export type PutScheduleBody = z.infer<typeof PutScheduleBody>;

/** Why a schedule stopped firing by itself; saving it again resumes it. */
export const SchedulePause = z.object({
  pausedAt: z.iso.datetime(),
  reason: z.string(),
});

/**
 * Spec endpoint 9's answer; `nextFireAt` says when the schedule next fires (null: it does not),
 * `pausedForFailures` why it paused itself (null: it did not).
 */
export const ScheduleResponse = z.object({
  schedule: WorkflowSchedule.nullable(),
  hasSchedule: z.boolean(),
  nextFireAt: z.iso.datetime().nullable(),
  pausedForFailures: SchedulePause.nullable(),
});
export type ScheduleResponse = z.infer<typeof ScheduleResponse>;

export const WorkflowIdOfScheduleParams = z.object({ workflowId: z.uuid() });

/** What became of one fire of a schedule (decision 71). */
export const FIRE_OUTCOMES = [
  'started',
  'queued_for_window',
  'dropped_outside_window',
  'skipped_running',
  'skipped_daily_limit',
  'skipped_draft',
  'refused_credits',
] as const;
export const FireOutcome = z.enum(FIRE_OUTCOMES);
export type FireOutcome = z.infer<typeof FireOutcome>;
export const ScheduleFire = z.object({
  fire_at: z.iso.datetime(),
  outcome: FireOutcome,
  run_id: z.uuid().nullable(),
  detail: z.string().nullable(),
  /** Earlier fires missed while no runner was up, replaced by this one. */
  missed_before: z.number().int().nonnegative(),
  recorded_at: z.iso.datetime(),
});
export type ScheduleFire = z.infer<typeof ScheduleFire>;
export const ScheduleFiresResponse = z.object({ fires: z.array(ScheduleFire) });

const scheduleErrorResponses = {
  ...sessionErrorResponses,
  400: { description: 'VALIDATION_ERROR with details (zod issues)', schema: ErrorBodySchema },
  404: { description: 'NOT_FOUND with details', schema: ErrorBodySchema },
};

export const scheduleRoutes = defineRoutes([
  {
    operationId: 'get_workflow_schedule',
    summary: "The workflow's schedule (spec endpoint 9); members of its workspace",
    method: 'GET',
    path: '/workflows/:workflowId/schedule',
    owner: 'workflow-runner',
    subject: 'workflow.api.get_workflow_schedule.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdOfScheduleParams },
    responses: {
      200: { description: 'The schedule, or null', schema: ScheduleResponse },
      ...scheduleErrorResponses,
    },
  },
  {
    operationId: 'put_workflow_schedule',
    summary: "Save the workflow's schedule; members of its workspace",
    method: 'PUT',
    path: '/workflows/:workflowId/schedule',
    owner: 'workflow-runner',
    subject: 'workflow.api.put_workflow_schedule.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: WorkflowIdOfScheduleParams, body: PutScheduleBody },
    responses: {
      200: { description: 'Saved', schema: ScheduleResponse },
      ...scheduleErrorResponses,
    },
  },
  {
    operationId: 'list_schedule_fires',
    summary: 'What became of the schedule’s latest fires, newest first (at most 100)',
    method: 'GET',
    path: '/workflows/:workflowId/schedule/fires',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_schedule_fires.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdOfScheduleParams },
    responses: {
      200: { description: 'The fires', schema: ScheduleFiresResponse },
      ...scheduleErrorResponses,
    },
  },
] as const);
