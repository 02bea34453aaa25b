import {
  placedSteps,
  AppError,
  ApprovalSettings,
  CreateWorkflowBody,
  creditShortfallMessage,
  insufficientCreditsReply,
  ListRunsQuery,
  RUNS_PAGE,
  RunIdParams,
  RunWorkflowBody,
  TransferWorkflowBody,
  UpdateWorkflowBody,
  type WorkflowAction,
  WorkflowIdParams,
  WorkflowDefinition,
  WorkflowVersionParams,
  WorkspaceQuery,
  WorkspaceIdParams,
  ImportWorkflowsBody,
  MAX_DOCUMENT_WORKFLOWS,
  type FailureAlerts,
  RunStatus,
  type Step,
  type ServiceRequest,
} from '@wap/contracts';
import { type Clock, type IdSource } from '@wap/platform';
import {
  activeTraceparent,
  actorOf,
  parseRequestPart,
  decodeKeysetCursor,
  encodeKeysetCursor,
  type RouteHandler,
} from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import type { CreditLedger } from '../credits/ledger';
import { requireWorkingExpressions } from '../expressions/settings-check';
import type { RunRepository } from '../runs/repository';
import { toRun } from '../runs/run-api';
import { toTestEvent, type TestEventRepository } from '../test-events/repository';
import type { ModelRequirement } from './model-requirement';
import { approvalsOf, contentOf, type WorkflowAuthority } from './permissions';
import { namedSteps, toWorkflow, type WorkflowRepository, type WorkflowRow } from './repository';
import { stepTypeCatalog } from './step-catalog';
import type { VersionRepository } from './versions';
import type { WebhookPublisher } from './webhook-publisher';
import { callsComeBack, withWorkflowIds, workflowReferencesOf } from './workflow-references';

interface Problem {
  path: string;
  message: string;
}

const RUNS_CURSOR = 'runs';

export type WorkflowOperation =
  | 'list_step_types'
  | 'create_workflow'
  | 'list_workflows'
  | 'get_workflow'
  | 'update_workflow'
  | 'delete_workflow'
  | 'run_workflow'
  | 'set_workflow_live'
  | 'set_workflow_draft'
  | 'duplicate_workflow'
  | 'list_test_events'
  | 'list_runs'
  | 'get_run'
  | 'adopt_workflow'
  | 'transfer_workflow'
  | 'restore_workflow_version'
  | 'export_workflow'
  | 'export_workspace_workflows'
  | 'import_workflows';

/** The workflows as a document another workspace can import (decision 164). */
function workflowDocumentOf(rows: readonly WorkflowRow[], now: Date) {
  return {
    format: 'wap.workflows',
    version: 1,
    exported_at: now.toISOString(),
    workflows: rows.map((row) => {
      const workflow = toWorkflow(row);
      return {
        ref: workflow.id,
        name: workflow.name,
        trigger: {
          type: 'custom_webhook',
          ...(workflow.trigger?.customResponse
            ? { customResponse: workflow.trigger.customResponse }
            : {}),
          providerEvents: workflow.trigger?.providerEvents ?? null,
        },
        steps: workflow.steps,
        settings: {
          runningHours: workflow.settings.runningHours,
          queueOutsideWindow: workflow.settings.queueOutsideWindow,
          stopOnNodeFailure: workflow.settings.stopOnNodeFailure,
        },
      };
    }),
  };
}

/** A save's refusal as the import's: each detail's path inside the document's entry. */
async function inEntry(index: number, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'VALIDATION_ERROR') throw error;
    const details = Array.isArray(error.details)
      ? (error.details as { path: string; message: string }[])
      : [];
    throw new AppError('VALIDATION_ERROR', error.message, {
      details: details.map((detail) => ({
        ...detail,
        path: detail.path.replace(/^body\./, `body.document.workflows.${index}.`),
      })),
    });
  }
}

/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function workflowHandlers(deps: {
  workflows: WorkflowRepository;
  versions: VersionRepository;
  runs: RunRepository;
  testEvents: TestEventRepository;
  ledger: CreditLedger;
  publisher: WebhookPublisher;
  directory: DirectoryClient;
  authority: WorkflowAuthority;
  ids: IdSource;
  clock: Clock;
  /** Where webhook addresses live: `<publicBaseUrl>/webhooks/<id>`. */
  publicBaseUrl: string;
  requireModelFor: ModelRequirement;
  onRunCreated: () => void;
}): Record<WorkflowOperation, RouteHandler> {
  const { workflows, runs, testEvents, publisher, directory, authority } = deps;
  const baseUrl = deps.publicBaseUrl.replace(/\/+$/, '');

  function withWebhook(row: WorkflowRow) {
    return {
      workflow: toWorkflow(row),
      webhook: row.webhookId
        ? { id: row.webhookId, url: `${baseUrl}/webhooks/${row.webhookId}` }
        : null,
    };
  }

  /**
   * The workflow, when it exists and the caller is a member of its workspace (others get 404)
   * whose role allows every one of `actions` (else 403).
   */
  async function accessible(
    request: ServiceRequest,
    actions: readonly WorkflowAction[] = [],
  ): Promise<WorkflowRow> {
    const actor = actorOf(request);
    const { id } = parseRequestPart(WorkflowIdParams, request.params);
    const row = await workflows.find(id);
    if (!row) throw new AppError('NOT_FOUND', 'Workflow not found');
    await authority.authorizePerson(row, actor.userId, actions);
    return row;
  }

  /**
   * An approval reviewer who is not a member could never open the approval: the run would wait
   * forever. Refused at save with each such reviewer named (decision 123).
   */
  async function requireReviewersAreMembers(
    workspaceId: string,
    steps: readonly Step[] | undefined,
  ): Promise<void> {
    const details: { path: string; message: string }[] = [];
    for (const { step, path } of placedSteps(steps ?? [])) {
      const approval = step.type === 'approval' ? ApprovalSettings.safeParse(step.settings) : null;
      for (const [position, reviewerId] of (approval?.data?.reviewerIds ?? []).entries()) {
        if ((await directory.confirmedRoleOf(workspaceId, reviewerId)) === undefined) {
          details.push({
            path: ['body', 'steps', ...path, 'settings', 'reviewerIds', position].join('.'),
            message: 'Not a member of this workspace',
          });
        }
      }
    }
    if (details.length > 0) {
      throw new AppError('VALIDATION_ERROR', 'Approval reviewers must be workspace members', {
        details,
      });
    }
  }

  /** Failure alerts go to members of the workspace only: an editor cannot mail anyone else. */
  async function requireAlertMembers(
    workspaceId: string,
    settings: { failureAlerts?: FailureAlerts | null } | undefined,
  ): Promise<void> {
    const details: { path: string; message: string }[] = [];
    for (const [position, userId] of (settings?.failureAlerts?.memberIds ?? []).entries()) {
      if ((await directory.confirmedRoleOf(workspaceId, userId)) === undefined) {
        details.push({
          path: `body.settings.failureAlerts.memberIds.${position}`,
          message: 'Not a member of this workspace',
        });
      }
    }
    if (details.length > 0) {
      throw new AppError('VALIDATION_ERROR', 'Alert recipients must be workspace members', {
        details,
      });
    }
  }

  /**
   * A step's `onFailure: run_workflow` and a call_workflow name a workflow of the same workspace,
   * other than its own, that the person saving may run: a failure or a call must not start what
   * they could not start themselves (decisions 155, 165). A call that could come back to this
   * workflow is refused: calls form no cycle. `madeWithIt`: workflows made in the same request
   * (an import's other entries), checked by the request itself.
   */
  async function requireNamedWorkflowsRunnable(
    workspaceId: string,
    ownId: string | undefined,
    steps: readonly Step[] | undefined,
    userId: string,
    madeWithIt: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    const problems = { failure: [] as Problem[], call: [] as Problem[] };
    for (const reference of workflowReferencesOf(steps ?? [])) {
      const { kind, path } = reference;
      if (madeWithIt.has(reference.workflowId) && reference.workflowId !== ownId) continue;
      const target = await workflows.find(reference.workflowId);
      const problem = (message: string) => problems[kind].push({ path, message });
      if (!target || target.workspaceId !== workspaceId) {
        problem('No such workflow in this workspace');
      } else if (target.id === ownId) {
        problem(
          kind === 'failure'
            ? 'A failure cannot start the workflow that failed'
            : 'A workflow cannot call itself',
        );
      } else if (!(await mayRun(target, userId))) {
        problem('You may not run this workflow');
      } else if (kind === 'call' && ownId && (await callsComeBack(target.id, ownId, callsOf))) {
        problem(
          'This workflow calls, directly or not, the workflow calling it: calls cannot form a cycle',
        );
      }
    }
    if (problems.failure.length > 0) {
      throw new AppError('VALIDATION_ERROR', 'A failure route names a workflow it cannot start', {
        details: problems.failure,
      });
    }
    if (problems.call.length > 0) {
      throw new AppError(
        'VALIDATION_ERROR',
        'A call_workflow step names a workflow it cannot call',
        {
          details: problems.call,
        },
      );
    }
  }

  async function callsOf(workflowId: string): Promise<string[]> {
    const row = await workflows.find(workflowId);
    if (!row) return [];
    return workflowReferencesOf(toWorkflow(row).steps)
      .filter((reference) => reference.kind === 'call')
      .map((reference) => reference.workflowId);
  }

  async function mayRun(workflow: WorkflowRow, userId: string): Promise<boolean> {
    try {
      await authority.authorizePerson(workflow, userId, ['run']);
      return true;
    } catch (error) {
      if (error instanceof AppError && error.status < 500) return false;
      throw error;
    }
  }

  return {
    async list_step_types(request) {
      actorOf(request);
      return { status: 200, body: { step_types: stepTypeCatalog() } };
    },

    async create_workflow(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(CreateWorkflowBody, request.body);
      if (!((await directory.confirmedRoleOf(body.workspaceId, actor.userId)) !== undefined)) {
        throw new AppError('NOT_FOUND', 'Workspace not found');
      }
      const steps = namedSteps(body.steps);
      requireWorkingExpressions(steps);
      await requireReviewersAreMembers(body.workspaceId, steps);
      await requireAlertMembers(body.workspaceId, body.settings);
      await requireNamedWorkflowsRunnable(body.workspaceId, undefined, steps, actor.userId);
      const row = await workflows.create({
        workspaceId: body.workspaceId,
        name: body.name,
        hasTrigger: true,
        customResponse: body.trigger.customResponse ?? null,
        providerEvents: body.trigger.providerEvents ?? null,
        steps,
        runningHours: body.settings?.runningHours ?? null,
        queueOutsideWindow: body.settings?.queueOutsideWindow ?? true,
        stopOnNodeFailure: body.settings?.stopOnNodeFailure ?? true,
        failureAlerts: body.settings?.failureAlerts ?? null,
        createdBy: actor.userId,
      });
      await publisher.publish(row.id);
      return { status: 201, body: withWebhook(row) };
    },

    async list_workflows(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceQuery, request.query);
      if (!((await directory.confirmedRoleOf(workspaceId, actor.userId)) !== undefined)) {
        throw new AppError('NOT_FOUND', 'Workspace not found');
      }
      const rows = await workflows.listByWorkspace(workspaceId);
      return { status: 200, body: { workflows: rows.map(toWorkflow) } };
    },

    async get_workflow(request) {
      return { status: 200, body: withWebhook(await accessible(request)) };
    },

    async update_workflow(request) {
      const actor = actorOf(request);
      const current = await accessible(request);
      const body = parseRequestPart(UpdateWorkflowBody, request.body);
      const steps = body.steps === undefined ? undefined : namedSteps(body.steps);
      const trigger =
        body.trigger === undefined
          ? undefined
          : body.trigger === null
            ? null
            : {
                customResponse: body.trigger.customResponse ?? null,
                providerEvents: body.trigger.providerEvents,
              };
      const proposed = {
        webhookId: trigger === null ? null : trigger === undefined ? current.webhookId : 'new',
        customResponse: trigger ? trigger.customResponse : current.customResponse,
        providerEvents:
          trigger && trigger.providerEvents !== undefined
            ? trigger.providerEvents
            : current.providerEvents,
        steps: steps ?? current.steps,
      };
      const changesWhatItDoes = contentOf(proposed) !== contentOf(current);
      const changesApprovals =
        steps !== undefined && approvalsOf(steps) !== approvalsOf(toWorkflow(current).steps);
      await authority.authorizePerson(current, actor.userId, [
        'edit',
        ...(changesApprovals ? (['change_approvals'] as const) : []),
      ]);
      requireWorkingExpressions(steps);
      await requireReviewersAreMembers(current.workspaceId, steps);
      await requireAlertMembers(current.workspaceId, body.settings);
      await requireNamedWorkflowsRunnable(current.workspaceId, current.id, steps, actor.userId);
      const updated = await workflows.update(current, {
        name: body.name,
        trigger,
        steps,
        runningHours: body.settings?.runningHours,
        queueOutsideWindow: body.settings?.queueOutsideWindow,
        stopOnNodeFailure: body.settings?.stopOnNodeFailure,
        failureAlerts: body.settings?.failureAlerts,
        // Whoever changes what it does answers for it: runs act as them from now on.
        runsAs: changesWhatItDoes ? actor.userId : undefined,
        savedBy: actor.userId,
      });
      const retired =
        current.webhookId && current.webhookId !== updated.webhookId ? [current.webhookId] : [];
      await publisher.publish(updated.id, retired);
      return { status: 200, body: withWebhook(updated) };
    },

    async restore_workflow_version(request) {
      const actor = actorOf(request);
      const current = await accessible(request);
      const number = Number(parseRequestPart(WorkflowVersionParams, request.params).number);
      const version = await deps.versions.find(current.id, number);
      if (!version) throw new AppError('NOT_FOUND', `Version ${number} not found`);
      const { steps } = WorkflowDefinition.parse(version.definition);
      const changesApprovals = approvalsOf(steps) !== approvalsOf(toWorkflow(current).steps);
      await authority.authorizePerson(current, actor.userId, [
        'edit',
        ...(changesApprovals ? (['change_approvals'] as const) : []),
      ]);
      // What held when it was saved is checked again: reviewers and failure workflows change.
      await requireReviewersAreMembers(current.workspaceId, steps);
      await requireNamedWorkflowsRunnable(current.workspaceId, current.id, steps, actor.userId);
      const restored = await workflows.restore(current, version, actor.userId);
      const retired =
        current.webhookId && current.webhookId !== restored.webhookId ? [current.webhookId] : [];
      await publisher.publish(restored.id, retired);
      return { status: 200, body: withWebhook(restored) };
    },

    async export_workflow(request) {
      const row = await accessible(request);
      return { status: 200, body: workflowDocumentOf([row], deps.clock.now()) };
    },

    async export_workspace_workflows(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      if ((await directory.confirmedRoleOf(workspaceId, actor.userId)) === undefined) {
        throw new AppError('NOT_FOUND', 'Workspace not found');
      }
      const rows = await workflows.listByWorkspace(workspaceId);
      if (rows.length === 0) throw new AppError('CONFLICT', 'The workspace has no workflows');
      if (rows.length > MAX_DOCUMENT_WORKFLOWS) {
        throw new AppError(
          'CONFLICT',
          `A document holds at most ${MAX_DOCUMENT_WORKFLOWS} workflows: export them one by one`,
        );
      }
      return { status: 200, body: workflowDocumentOf(rows, deps.clock.now()) };
    },

    async import_workflows(request) {
      const actor = actorOf(request);
      const { workspaceId, document } = parseRequestPart(ImportWorkflowsBody, request.body);
      if ((await directory.confirmedRoleOf(workspaceId, actor.userId)) === undefined) {
        throw new AppError('NOT_FOUND', 'Workspace not found');
      }
      // Each entry gets its id now, so that a failure route naming another entry follows it.
      const newIds = new Map(document.workflows.map((entry) => [entry.ref, deps.ids.uuid()]));
      const madeHere = new Set(newIds.values());
      const inputs = [];
      for (const [index, entry] of document.workflows.entries()) {
        const steps = withWorkflowIds(namedSteps(entry.steps), newIds);
        const ownId = newIds.get(entry.ref);
        await inEntry(index, async () => {
          requireWorkingExpressions(steps);
          await requireReviewersAreMembers(workspaceId, steps);
          // Another entry of the document is made with this one, by this person.
          await requireNamedWorkflowsRunnable(workspaceId, ownId, steps, actor.userId, madeHere);
        });
        inputs.push({
          id: ownId,
          workspaceId,
          name: entry.name,
          hasTrigger: true,
          customResponse: entry.trigger.customResponse ?? null,
          providerEvents: entry.trigger.providerEvents ?? null,
          steps,
          runningHours: entry.settings?.runningHours ?? null,
          queueOutsideWindow: entry.settings?.queueOutsideWindow ?? true,
          stopOnNodeFailure: entry.settings?.stopOnNodeFailure ?? true,
          // Alert recipients are members of the workspace it came from: not carried over.
          failureAlerts: null,
          createdBy: actor.userId,
        });
      }
      const rows = await workflows.createMany(inputs, ['imported']);
      for (const row of rows) await publisher.publish(row.id);
      return { status: 201, body: { workflows: rows.map(withWebhook) } };
    },

    async delete_workflow(request) {
      const current = await accessible(request, ['delete']);
      await workflows.softDelete(current.id);
      await publisher.publish(current.id, current.webhookId ? [current.webhookId] : []);
      return { status: 204 };
    },

    async run_workflow(request) {
      const workflow = await accessible(request, ['run']);
      const body = parseRequestPart(RunWorkflowBody, request.body ?? undefined);
      const event = body?.testEventId
        ? await testEvents.find(workflow.id, body.testEventId)
        : await testEvents.latest(workflow.id);
      if (body?.testEventId && !event) throw new AppError('NOT_FOUND', 'Test event not found');
      await deps.requireModelFor(toWorkflow(workflow).steps);
      const shortfall = creditShortfallMessage(
        await deps.ledger.balanceOf(workflow.workspaceId),
        workflow.creditCost,
      );
      if (shortfall) return insufficientCreditsReply(shortfall);
      const runId = deps.ids.uuid();
      await runs.create({
        runId,
        workflow,
        trigger: { type: 'manual', testEventId: event?.id ?? null },
        input: event?.body ?? {},
        inflightKey: null,
        notBefore: null,
        traceparent: activeTraceparent(),
      });
      await workflows.markTestRun(workflow.id);
      deps.onRunCreated();
      return { status: 202, body: { runId } };
    },

    async set_workflow_live(request) {
      const workflow = await accessible(request, ['publish']);
      if (!workflow.webhookId) {
        throw new AppError('CONFLICT', 'The workflow has no trigger to set live');
      }
      if (!workflow.lastTestRunAt) {
        throw new AppError('CONFLICT', 'Run the workflow at least once before setting it live');
      }
      await deps.requireModelFor(toWorkflow(workflow).steps);
      const updated = await workflows.setStatus(workflow.id, 'live');
      await publisher.publish(updated.id);
      return { status: 200, body: { workflow: toWorkflow(updated) } };
    },

    async set_workflow_draft(request) {
      const workflow = await accessible(request, ['publish']);
      const updated = await workflows.setStatus(workflow.id, 'draft');
      await publisher.publish(updated.id);
      return { status: 200, body: { workflow: toWorkflow(updated) } };
    },

    async duplicate_workflow(request) {
      const actor = actorOf(request);
      const original = toWorkflow(await accessible(request));
      await requireNamedWorkflowsRunnable(
        original.workspace_id,
        original.id,
        original.steps,
        actor.userId,
      );
      const copy = await workflows.create({
        workspaceId: original.workspace_id,
        name: `${original.name} (copy)`.slice(0, 200),
        hasTrigger: original.trigger !== null,
        customResponse: original.trigger?.customResponse ?? null,
        providerEvents: original.trigger?.providerEvents ?? null,
        steps: original.steps,
        runningHours: original.settings.runningHours,
        queueOutsideWindow: original.settings.queueOutsideWindow,
        stopOnNodeFailure: original.settings.stopOnNodeFailure,
        failureAlerts: original.settings.failureAlerts,
        createdBy: actor.userId,
      });
      await publisher.publish(copy.id);
      return { status: 201, body: withWebhook(copy) };
    },

    async list_test_events(request) {
      const workflow = await accessible(request);
      const rows = await testEvents.list(workflow.id);
      return { status: 200, body: { events: rows.map(toTestEvent) } };
    },

    async list_runs(request) {
      const workflow = await accessible(request);
      const {
        cursor,
        limit: limitText,
        ...filter
      } = parseRequestPart(ListRunsQuery, request.query);
      const limit = limitText === undefined ? RUNS_PAGE.default : Number(limitText);
      const [found, counts] = await Promise.all([
        runs.listByWorkflow(workflow.id, {
          limit: limit + 1,
          filter,
          before: decodeKeysetCursor(RUNS_CURSOR, cursor),
        }),
        runs.countByWorkflow(workflow.id, filter),
      ]);
      const page = found.slice(0, limit);
      const last = page.at(-1);
      return {
        status: 200,
        body: {
          runs: page,
          nextCursor:
            found.length > limit && last
              ? encodeKeysetCursor(RUNS_CURSOR, { at: new Date(last.created_at), id: last.id })
              : null,
          counts,
        },
      };
    },

    async get_run(request) {
      const actor = actorOf(request);
      const { runId } = parseRequestPart(RunIdParams, request.params);
      const found = await runs.get(runId);
      if (
        !found ||
        !((await directory.confirmedRoleOf(found.run.workspaceId, actor.userId)) !== undefined)
      ) {
        throw new AppError('NOT_FOUND', 'Run not found');
      }
      const retries = await runs.retriesOf(runId);
      return {
        status: 200,
        body: {
          run: toRun(found.run, found.steps),
          retries: retries.map((retry) => ({
            id: retry.id,
            status: RunStatus.parse(retry.status),
            attempt: retry.attempt,
            created_at: retry.createdAt.toISOString(),
          })),
        },
      };
    },

    async adopt_workflow(request) {
      const actor = actorOf(request);
      const workflow = await accessible(request, ['edit']);
      const updated = await workflows.setRunsAs(workflow.id, actor.userId);
      return { status: 200, body: withWebhook(updated) };
    },

    async transfer_workflow(request) {
      const actor = actorOf(request);
      const workflow = await accessible(request);
      const body = parseRequestPart(TransferWorkflowBody, request.body);
      const role = await authority.memberOf(workflow, actor.userId);
      if (role !== 'owner' && workflow.ownerId !== actor.userId) {
        throw new AppError(
          'FORBIDDEN',
          "Only the workflow's owner and the workspace's owners may hand it over",
        );
      }
      if ((await directory.confirmedRoleOf(workflow.workspaceId, body.ownerId)) === undefined) {
        throw new AppError('VALIDATION_ERROR', 'The new owner must be a member of the workspace', {
          details: [{ path: 'body.ownerId', message: 'Not a member of this workspace' }],
        });
      }
      // runs_as stays: the new owner has not agreed to what it does until they adopt it.
      const updated = await workflows.setOwner(workflow.id, body.ownerId);
      return { status: 200, body: withWebhook(updated) };
    },
  };
}
