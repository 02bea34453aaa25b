import { ACTION_STEP_TYPES, AppError, type RouteSpec, type ServiceReply } from '@wap/contracts';

/**
 * Replies on a route's previous subject (`.v1`, decision 143) for callers not yet moved to
 * `.v2`, which added control steps and the runs they start (decision 165). The step catalog
 * leaves the control steps out; a workflow or run that holds one cannot be shown in the old
 * shape, so it is refused with a 400 that says so rather than sent in a shape the caller does
 * not know.
 */
export function asPreviousVersion(route: RouteSpec, reply: ServiceReply): ServiceReply {
  if (reply.status >= 300) return reply;
  const body = reply.body as Record<string, unknown> | undefined;
  if (route.operationId === 'list_step_types') {
    const types = (body?.['step_types'] ?? []) as { type: string }[];
    return {
      ...reply,
      body: { step_types: types.filter((info) => ACTION_STEP_TYPES.includes(info.type as never)) },
    };
  }
  if (typesShown(body).some((type) => !PREVIOUS_TYPES.has(type))) {
    throw new AppError(
      'VALIDATION_ERROR',
      `This holds control steps or runs they started, which ${route.previousSubject} cannot show: the caller needs ${route.subject}`,
    );
  }
  return reply;
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

type Shown = Record<string, unknown> | undefined;
const asList = (value: unknown): Shown[] => (Array.isArray(value) ? (value as Shown[]) : []);
const typeOf = (value: Shown): string[] =>
  typeof value?.['type'] === 'string' ? [value['type']] : [];

/** The step types of a workflow, and the trigger and step types of a run. */
const typesOfWorkflow = (workflow: Shown) => asList(workflow?.['steps']).flatMap(typeOf);
const typesOfRun = (run: Shown) => [
  ...typeOf(run?.['trigger'] as Shown),
  ...asList(run?.['steps']).flatMap(typeOf),
];

/** Every type a reply shows where `.v1` had an enum: workflows', versions' and runs'. */
function typesShown(body: Shown): string[] {
  const version = body?.['version'] as Shown;
  return [
    ...typesOfWorkflow(body?.['workflow'] as Shown),
    ...asList(body?.['workflows']).flatMap((entry) =>
      typesOfWorkflow((entry?.['workflow'] as Shown) ?? entry),
    ),
    ...typesOfWorkflow(version?.['definition'] as Shown),
    ...typesOfRun(body?.['run'] as Shown),
    ...asList(body?.['runs']).flatMap(typesOfRun),
  ];
}
