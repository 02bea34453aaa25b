import {
  AppError,
  ListWorkflowVersionsQuery,
  VERSIONS_PAGE,
  VersionDiffQuery,
  WorkflowIdParams,
  WorkflowVersionParams,
  type ServiceRequest,
} from '@wap/contracts';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import type { WorkflowAuthority } from './permissions';
import type { WorkflowRepository, WorkflowRow } from './repository';
import { differences, toVersion, toVersionSummary, type VersionRepository } from './versions';

/** A workflow's history, for its workspace's members (decision 163); restore is an edit. */
export function workflowVersionHandlers(deps: {
  workflows: WorkflowRepository;
  versions: VersionRepository;
  authority: WorkflowAuthority;
}): Record<
  'list_workflow_versions' | 'get_workflow_version' | 'diff_workflow_versions',
  RouteHandler
> {
  const { workflows, versions, authority } = deps;

  async function readable(request: ServiceRequest): Promise<WorkflowRow> {
    const actor = actorOf(request);
    const { id } = parseRequestPart(WorkflowIdParams, request.params);
    const row = await workflows.find(id);
    if (!row) throw new AppError('NOT_FOUND', 'Workflow not found');
    await authority.authorizePerson(row, actor.userId, []);
    return row;
  }

  async function version(workflow: WorkflowRow, number: number) {
    const found = await versions.find(workflow.id, number);
    if (!found) throw new AppError('NOT_FOUND', `Version ${number} not found`);
    return found;
  }

  return {
    async list_workflow_versions(request) {
      const workflow = await readable(request);
      const { before } = parseRequestPart(ListWorkflowVersionsQuery, request.query);
      const rows = await versions.list(
        workflow.id,
        before === undefined ? undefined : Number(before),
      );
      const page = rows.slice(0, VERSIONS_PAGE);
      return {
        status: 200,
        body: {
          versions: page.map((row) => toVersionSummary(row, workflow.liveVersion)),
          nextBefore: rows.length > VERSIONS_PAGE ? (page.at(-1)?.number ?? null) : null,
        },
      };
    },

    async get_workflow_version(request) {
      const workflow = await readable(request);
      const number = Number(parseRequestPart(WorkflowVersionParams, request.params).number);
      return {
        status: 200,
        body: { version: toVersion(await version(workflow, number), workflow.liveVersion) },
      };
    },

    async diff_workflow_versions(request) {
      const workflow = await readable(request);
      const number = Number(parseRequestPart(WorkflowVersionParams, request.params).number);
      const { against } = parseRequestPart(VersionDiffQuery, request.query);
      const to = await version(workflow, number);
      const fromNumber = against === undefined ? number - 1 : Number(against);
      // Version 1 against nothing: every field is new.
      const from = fromNumber >= 1 ? await version(workflow, fromNumber) : undefined;
      return {
        status: 200,
        body: {
          from: from?.number ?? number,
          to: number,
          differences: differences(from?.definition ?? {}, to.definition),
        },
      };
    },
  };
}
