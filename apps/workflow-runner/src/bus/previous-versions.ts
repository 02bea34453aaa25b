import {
  ACTION_STEP_TYPES,
  AppError,
  type RouteSpec,
  type ServiceReply,
  type ServiceRequest,
} from '@wap/contracts';
import { toWorkflow, type WorkflowRepository } from '../workflows/repository';

/**
 * Requests on a route's previous subject (`.v1`, decision 143) from callers not yet moved to
 * `.v2`, which added control steps and the runs they start (decision 165). The step catalog
 * leaves the control steps out. A request that sends one, or that acts on a workflow holding
 * one, is refused before anything is done; a reply that would show one (a run a loop started)
 * is refused too: a 400 that says so, never a shape the caller does not know.
 */
export function createPreviousVersions(deps: { workflows: Pick<WorkflowRepository, 'find'> }) {
  const refusal = (route: RouteSpec) =>
    new AppError(
      'VALIDATION_ERROR',
      `This holds control steps or runs they started, which ${route.previousSubject} cannot show: the caller needs ${route.subject}`,
    );

  async function actsOnNewerShapes(route: RouteSpec, request: ServiceRequest): Promise<boolean> {
    if (typesSent(request.body as Shown).some(isNewer)) return true;
    const workflowId = route.path.startsWith('/workflows/:id') ? request.params['id'] : undefined;
    if (!workflowId) return false;
    const row = await deps.workflows.find(workflowId);
    return row !== undefined && typesOfWorkflow(toWorkflow(row)).some(isNewer);
  }

  return async function asPreviousVersion(
    route: RouteSpec,
    request: ServiceRequest,
    handle: () => Promise<ServiceReply>,
  ): Promise<ServiceReply> {
    if (await actsOnNewerShapes(route, request)) throw refusal(route);
    const reply = await handle();
    if (reply.status >= 300) return reply;
    const body = reply.body as Shown;
    if (route.operationId === 'list_step_types') {
      const types = asList(body?.['step_types']);
      return { ...reply, body: { step_types: types.filter((info) => !isNewer(typeOf(info)[0])) } };
    }
    if (typesShown(body).some(isNewer)) throw refusal(route);
    return reply;
  };
}

/** The step types and run triggers `.v1` replies could hold. */
const PREVIOUS_TYPES: ReadonlySet<string> = new Set([
  ...ACTION_STEP_TYPES,
  'custom_webhook',
  'provider_event',
  'mcp',
  'manual',
  'schedule',
]);
const isNewer = (type: string | undefined) => type !== undefined && !PREVIOUS_TYPES.has(type);

type Shown = Record<string, unknown> | undefined;
const asList = (value: unknown): Shown[] => (Array.isArray(value) ? (value as Shown[]) : []);
const typeOf = (value: Shown): string[] =>
  typeof value?.['type'] === 'string' ? [value['type']] : [];

/** The step types of a workflow (a control step comes first: nested ones sit inside it). */
const typesOfWorkflow = (workflow: Shown) => asList(workflow?.['steps']).flatMap(typeOf);
const typesOfRun = (run: Shown) => [
  ...typeOf(run?.['trigger'] as Shown),
  ...asList(run?.['steps']).flatMap(typeOf),
];
const typesOfEntries = (entries: unknown) =>
  asList(entries).flatMap((entry) => typesOfWorkflow((entry?.['workflow'] as Shown) ?? entry));

/** The step types a request sends: a workflow's steps, or an import's documents. */
function typesSent(body: Shown): string[] {
  const document = body?.['document'] as Shown;
  return [...typesOfWorkflow(body), ...typesOfEntries(document?.['workflows'])];
}

/** Every type a reply shows where `.v1` had an enum: workflows', versions' and runs'. */
function typesShown(body: Shown): string[] {
  const version = body?.['version'] as Shown;
  return [
    ...typesOfWorkflow(body?.['workflow'] as Shown),
    ...typesOfEntries(body?.['workflows']),
    ...typesOfWorkflow(version?.['definition'] as Shown),
    ...typesOfRun(body?.['run'] as Shown),
    ...asList(body?.['runs']).flatMap(typesOfRun),
  ];
}
