import {
  AppError,
  PutScheduleBody,
  WorkflowIdOfScheduleParams,
  type ScheduleFire,
  type ScheduleResponse,
  type ServiceRequest,
  type WorkflowAction,
  type WorkflowSchedule,
} from '@wap/contracts';
import { actorOf, type RouteHandler } from '@wap/bus-protocol';
import type { WorkflowAuthority } from '../workflows/permissions';
import type { WorkflowRepository, WorkflowRow } from '../workflows/repository';
import type { WebhookPublisher } from '../workflows/webhook-publisher';
import type { ScheduleRepository } from './repository';
import type { FireRow, ScheduleRow } from './schedule-rows';

export type ScheduleOperation =
  'get_workflow_schedule' | 'put_workflow_schedule' | 'list_schedule_fires';

/** Fires listed per schedule, newest first. */
const FIRES_LISTED = 100;

function scheduleBody(row: ScheduleRow, workflow: WorkflowRow): WorkflowSchedule {
  return {
    workflow_id: row.workflowId,
    is_enabled: row.isEnabled,
    timezone: row.timezone,
    schedule_type: row.scheduleType as WorkflowSchedule['schedule_type'],
    cron_expression: row.cronExpression,
    interval_minutes: row.intervalMinutes,
    max_runs_per_day: row.maxRunsPerDay,
    queue_outside_window: workflow.queueOutsideWindow,
    stop_on_node_failure: workflow.stopOnNodeFailure,
    pause_after_failures: row.pauseAfterFailures,
    updated_at: row.updatedAt.toISOString(),
  };
}

function answer(row: ScheduleRow | undefined, workflow: WorkflowRow): ScheduleResponse {
  return row
    ? {
        schedule: scheduleBody(row, workflow),
        hasSchedule: true,
        nextFireAt: row.isEnabled && row.nextFireAt ? row.nextFireAt.toISOString() : null,
        pausedForFailures:
          row.pausedAt && row.pausedReason
            ? { pausedAt: row.pausedAt.toISOString(), reason: row.pausedReason }
            : null,
      }
    : { schedule: null, hasSchedule: false, nextFireAt: null, pausedForFailures: null };
}

function fireBody(row: FireRow): ScheduleFire {
  return {
    fire_at: row.fireAt.toISOString(),
    outcome: row.outcome as ScheduleFire['outcome'],
    run_id: row.runId,
    detail: row.detail,
    missed_before: row.missedBefore,
    recorded_at: row.recordedAt.toISOString(),
  };
}

/** Endpoint 9 and its PUT: the error bodies carry `details`, as the spec says of this endpoint. */
export function scheduleHandlers(deps: {
  schedules: ScheduleRepository;
  workflows: WorkflowRepository;
  publisher: WebhookPublisher;
  authority: WorkflowAuthority;
}): Record<ScheduleOperation, RouteHandler> {
  const { schedules, workflows, authority } = deps;

  /** The workflow for a member (404 otherwise, with `details`); 403 for an action the role lacks. */
  async function accessible(
    request: ServiceRequest,
    actions: readonly WorkflowAction[] = [],
  ): Promise<WorkflowRow> {
    if (!request.actor) throw new AppError('UNAUTHORIZED', 'Authentication required');
    const params = WorkflowIdOfScheduleParams.safeParse(request.params);
    if (!params.success) {
      throw new AppError('VALIDATION_ERROR', 'Invalid request params', {
        details: params.error.issues,
      });
    }
    const { workflowId } = params.data;
    const row = await workflows.find(workflowId);
    const notFound = new AppError('NOT_FOUND', 'Workflow not found', { details: { workflowId } });
    if (!row) throw notFound;
    const role = await authority.roleIn(row, request.actor.userId);
    if (!role) throw notFound;
    await authority.authorize(row, { kind: 'person', userId: request.actor.userId, role }, actions);
    return row;
  }

  return {
    async get_workflow_schedule(request) {
      const workflow = await accessible(request);
      return { status: 200, body: answer(await schedules.find(workflow.id), workflow) };
    },

    async put_workflow_schedule(request) {
      const workflow = await accessible(request, ['schedule']);
      const parsed = PutScheduleBody.safeParse(request.body);
      if (!parsed.success) {
        throw new AppError('VALIDATION_ERROR', 'Invalid request body', {
          details: parsed.error.issues,
        });
      }
      const body = parsed.data;
      const saved = await schedules.save(workflow.id, workflow.workspaceId, {
        isEnabled: body.is_enabled,
        timezone: body.timezone,
        scheduleType: body.schedule_type,
        cronExpression: body.schedule_type === 'cron' ? (body.cron_expression ?? null) : null,
        intervalMinutes: body.schedule_type === 'interval' ? (body.interval_minutes ?? null) : null,
        maxRunsPerDay: body.max_runs_per_day,
        pauseAfterFailures: body.pause_after_failures,
      });
      let current = workflow;
      if (body.queue_outside_window !== undefined || body.stop_on_node_failure !== undefined) {
        current = await workflows.update(workflow, {
          queueOutsideWindow: body.queue_outside_window,
          stopOnNodeFailure: body.stop_on_node_failure,
          savedBy: actorOf(request).userId,
        });
        // webhook-ingest reads queueOutsideWindow from the published address.
        await deps.publisher.publish(current.id);
      }
      return { status: 200, body: answer(saved, current) };
    },

    async list_schedule_fires(request) {
      const workflow = await accessible(request);
      const fires = await schedules.fires(workflow.id, FIRES_LISTED);
      return { status: 200, body: { fires: fires.map(fireBody) } };
    },
  };
}
