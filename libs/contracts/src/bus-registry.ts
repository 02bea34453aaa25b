import { APPROVAL_SUBJECTS } from './approvals';
import {
  MCP_SUBJECTS,
  RUN_CANCEL_REQUESTED_SUBJECT,
  RUN_OF_EVENT_SUBJECT,
  WORKFLOW_SUBJECTS,
} from './automation';
import { CHAT_SUBJECTS } from './chat';
import { DIRECTORY_SUBJECTS } from './directory';
import { EXTENSION_TOKEN_SUBJECTS } from './extension-tokens';
import { OPERATIONS_SUBJECTS } from './operations';
import {
  PROVIDER_CONNECTION_SECRET_SUBJECT,
  PROVIDER_EVENT_TARGETS_SUBJECT,
  PROVIDER_EVENT_TARGETS_V1_SUBJECT,
} from './provider-events';
import { SERVICE_NAMES, type RouteSpec, type ServiceName } from './route-spec';
import { ROUTES } from './routes';
import { GRANT_CREDITS_FROM_PAYMENT_SUBJECT, REPLICA_ALIVE_SUBJECT } from './webhooks';
import { STEP_SUBJECTS } from './workflows';
import { TASK_FILE_SUBJECTS } from './workspace-data';

/**
 * Who signs a bus request: the gateway (for the people it authenticated, or for the open edge),
 * a service for work of its own, or the operators' admin CLI. Each holds a signing key of its own.
 */
export const BUS_PRINCIPALS = ['gateway', 'operator', ...SERVICE_NAMES] as const;
export type BusPrincipal = (typeof BUS_PRINCIPALS)[number];

export function isBusPrincipal(value: string): value is BusPrincipal {
  return (BUS_PRINCIPALS as readonly string[]).includes(value);
}

/** One request/reply subject: who serves it, who may ask, and whether a person must be asking. */
export interface RequestSubjectSpec {
  /** The subject's template, `<owner>.api.<name>.v<major>` (per-instance suffixes excluded). */
  subject: string;
  server: ServiceName;
  callers: readonly BusPrincipal[];
  /**
   * True when the request acts for a signed-in person: it must carry a user the gateway (or the
   * operators' CLI) signed for. A service's own identity never satisfies it.
   */
  user: boolean;
  /** Served as `<subject>.<instance>` by one process (a turn's owner, one ingest replica). */
  perInstance?: true;
}

/** Routes the operators' admin CLI calls as a platform administrator, besides the gateway. */
const OPERATOR_ROUTES: ReadonlySet<string> = new Set(['grant_credits']);

/**
 * The registry entries of a route: the gateway asks (and the operators' CLI for its few), on its
 * subject and on the previous version still served beside it.
 */
export function routeSubjects(route: RouteSpec): RequestSubjectSpec[] {
  return [route.subject, ...(route.previousSubject ? [route.previousSubject] : [])].map(
    (subject) => ({
      subject,
      server: route.owner,
      callers: OPERATOR_ROUTES.has(route.operationId) ? ['gateway', 'operator'] : ['gateway'],
      user: route.auth === 'session',
    }),
  );
}

/**
 * Every request subject of the platform. The bus's trust layer refuses a request on a subject
 * that is not listed, from a principal that is not among its callers, or without the person the
 * subject needs; the NATS permissions of each service are derived from the same list.
 */
export const REQUEST_SUBJECTS: readonly RequestSubjectSpec[] = [
  ...ROUTES.flatMap(routeSubjects),
  {
    subject: TASK_FILE_SUBJECTS.prepareUpload,
    server: 'storage',
    callers: ['gateway'],
    user: true,
  },
  {
    subject: DIRECTORY_SUBJECTS.ensureUser,
    server: 'storage',
    callers: ['gateway', 'operator'],
    user: false,
  },
  {
    subject: DIRECTORY_SUBJECTS.verifyApiKey,
    server: 'storage',
    callers: ['gateway'],
    user: false,
  },
  {
    subject: EXTENSION_TOKEN_SUBJECTS.verify,
    server: 'storage',
    callers: ['gateway'],
    user: false,
  },
  {
    subject: DIRECTORY_SUBJECTS.firstWorkspace,
    server: 'storage',
    callers: ['mcp-registry'],
    user: false,
  },
  { subject: STEP_SUBJECTS.tableRow, server: 'storage', callers: ['workflow-runner'], user: false },
  {
    subject: APPROVAL_SUBJECTS.recipients,
    server: 'storage',
    callers: ['workflow-runner'],
    user: false,
  },
  {
    subject: OPERATIONS_SUBJECTS.deleteWorkspace,
    server: 'storage',
    callers: ['operator'],
    user: false,
  },
  {
    subject: STEP_SUBJECTS.assistantPrompt,
    server: 'chat',
    callers: ['workflow-runner'],
    user: false,
  },
  {
    subject: STEP_SUBJECTS.assistantModel,
    server: 'chat',
    callers: ['workflow-runner'],
    user: false,
  },
  {
    subject: CHAT_SUBJECTS.controlTurn,
    server: 'chat',
    callers: ['chat'],
    user: false,
    perInstance: true,
  },
  { subject: MCP_SUBJECTS.listTools, server: 'mcp-registry', callers: ['chat'], user: false },
  {
    subject: MCP_SUBJECTS.callTool,
    server: 'mcp-registry',
    callers: ['chat', 'workflow-runner'],
    user: false,
  },
  {
    subject: OPERATIONS_SUBJECTS.rewrapCredentials,
    server: 'mcp-registry',
    callers: ['operator'],
    user: false,
  },
  {
    subject: OPERATIONS_SUBJECTS.rewrapWorkflowSecrets,
    server: 'workflow-runner',
    callers: ['operator'],
    user: false,
  },
  {
    subject: OPERATIONS_SUBJECTS.retryRun,
    server: 'workflow-runner',
    callers: ['operator'],
    user: false,
  },
  ...Object.values(WORKFLOW_SUBJECTS).map((subject): RequestSubjectSpec => ({
    subject,
    server: 'workflow-runner',
    callers: ['mcp-registry'],
    user: false,
  })),
  {
    subject: RUN_OF_EVENT_SUBJECT,
    server: 'workflow-runner',
    callers: ['webhook-ingest'],
    user: false,
  },
  {
    subject: PROVIDER_CONNECTION_SECRET_SUBJECT,
    server: 'workflow-runner',
    callers: ['webhook-ingest'],
    user: false,
  },
  {
    subject: PROVIDER_EVENT_TARGETS_V1_SUBJECT,
    server: 'workflow-runner',
    callers: ['webhook-ingest'],
    user: false,
  },
  {
    subject: PROVIDER_EVENT_TARGETS_SUBJECT,
    server: 'workflow-runner',
    callers: ['webhook-ingest'],
    user: false,
  },
  {
    subject: GRANT_CREDITS_FROM_PAYMENT_SUBJECT,
    server: 'workflow-runner',
    callers: ['webhook-ingest'],
    user: false,
  },
  {
    subject: REPLICA_ALIVE_SUBJECT,
    server: 'webhook-ingest',
    callers: ['webhook-ingest'],
    user: false,
    perInstance: true,
  },
];

/** Fire-and-forget subjects (core publish/subscribe): who may publish and who listens. */
export interface EventSubjectSpec {
  subject: string;
  publishers: readonly ServiceName[];
  subscribers: readonly ServiceName[];
}

export const EVENT_SUBJECTS: readonly EventSubjectSpec[] = [
  { subject: DIRECTORY_SUBJECTS.meChanged, publishers: ['storage'], subscribers: ['storage'] },
  { subject: CHAT_SUBJECTS.turnProgress, publishers: ['chat'], subscribers: ['chat'] },
  {
    subject: MCP_SUBJECTS.cancelToolCall,
    // A turn stopped (chat), a run cancelled (workflow-runner).
    publishers: ['chat', 'workflow-runner'],
    subscribers: ['mcp-registry'],
  },
  {
    subject: RUN_CANCEL_REQUESTED_SUBJECT,
    publishers: ['workflow-runner'],
    subscribers: ['workflow-runner'],
  },
];

const VERSION_TOKEN = /^v\d+$/;

/**
 * The subject's template, `<owner>.<kind>.<name>.v<major>`, without a namespace before it or a
 * per-instance suffix after it (`chat.api.control_turn.v1.<requestId>`); `other` for a subject
 * outside the convention.
 */
export function subjectTemplate(subject: string): string {
  const tokens = subject.split('.');
  const version = tokens.findIndex((token, index) => index >= 3 && VERSION_TOKEN.test(token));
  return version < 0 ? 'other' : tokens.slice(version - 3, version + 1).join('.');
}

const REQUEST_SUBJECTS_BY_TEMPLATE: ReadonlyMap<string, RequestSubjectSpec> = new Map(
  REQUEST_SUBJECTS.map((spec) => [spec.subject, spec]),
);

/** The registry's entry for a concrete request subject, or undefined when it is not registered. */
export function requestSubjectSpec(subject: string): RequestSubjectSpec | undefined {
  return REQUEST_SUBJECTS_BY_TEMPLATE.get(subjectTemplate(subject));
}
