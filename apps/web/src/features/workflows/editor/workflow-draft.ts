import {
  ALERT_INTERVAL_MINUTES,
  CreateWorkflowBody,
  CustomResponse,
  ProviderEventsTrigger,
  type Provider,
  RunningHours,
  STEP_SETTINGS,
  type StepType,
  type Workflow,
} from '@wap/contracts';
import type { ApiError } from '../../../lib/api';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import type { StepTypeInfo } from '../api/workflows-api';
import { cleanValue, initialValueOf, isRecord, type JsonSchema } from '../schema-form/json-schema';
import type { PathErrors } from '../schema-form/schema-form';
import { stepTypeLabel } from '../shared/labels';
import {
  policyDraftOf,
  policyFieldOfPath,
  policyFieldsOf,
  validatePolicy,
  type PolicyErrors,
  type StepPolicyDraft,
} from './step-policy-draft';

/** A step as the editor holds it; `key` keeps its controls while it moves. */
export interface DraftStep {
  key: string;
  type: string;
  name: string;
  settings: Record<string, unknown>;
  /** Retries, timeout and failure route. */
  policy: StepPolicyDraft;
  /** An if's, a switch's or a for_each's own steps, kept as saved. */
  nested?: NestedSteps;
}

/** The steps a control step holds: its branches, or its loop's steps. */
export type NestedSteps = Pick<
  Workflow['steps'][number],
  'then' | 'else' | 'cases' | 'default' | 'steps'
>;

function nestedOf(step: Workflow['steps'][number]): NestedSteps | undefined {
  const nested: NestedSteps = {
    ...(step.then ? { then: step.then } : {}),
    ...(step.else ? { else: step.else } : {}),
    ...(step.cases ? { cases: step.cases } : {}),
    ...(step.default ? { default: step.default } : {}),
    ...(step.steps ? { steps: step.steps } : {}),
  };
  return Object.keys(nested).length > 0 ? structuredClone(nested) : undefined;
}

/** How many steps a control step holds, its branches' and loops' own included. */
export function nestedStepCount(nested: NestedSteps | undefined): number {
  if (!nested) return 0;
  const lists = [
    nested.then,
    nested.else,
    nested.default,
    nested.steps,
    ...(nested.cases ?? []).map((found) => found.steps),
  ];
  return lists.reduce(
    (sum, list) =>
      sum + (list ?? []).reduce((inner, step) => inner + 1 + nestedStepCount(nestedOf(step)), 0),
    0,
  );
}

export interface RunningHoursDraft {
  timezone: string;
  days: number[];
  start: string;
  end: string;
}

/** Everything the editor form edits, as the person sees it. */
export interface WorkflowDraft {
  name: string;
  customResponseEnabled: boolean;
  customResponseBody: string;
  /** Also start on the events of the workspace's connected provider account (decision 132). */
  providerEventsEnabled: boolean;
  provider: Provider;
  /** The event filters as typed: separated by commas or spaces. */
  providerEventsText: string;
  steps: DraftStep[];
  runningHoursEnabled: boolean;
  runningHours: RunningHoursDraft;
  queueOutsideWindow: boolean;
  stopOnNodeFailure: boolean;
  /** Emails about failed runs to the owner and `alertMemberIds` (decision 160). */
  failureAlertsEnabled: boolean;
  alertMemberIds: string[];
  /** As typed: minutes between two alerts at the least. */
  alertIntervalMinutes: string;
}

export interface DraftErrors {
  /** By field: `name`, `customResponseBody`, `runningHours.days`... */
  fields: FieldErrors;
  /** By step key; `policy` only when a policy field has a problem. */
  steps: Record<string, { name?: string; settings: PathErrors; policy?: PolicyErrors }>;
  /** What belongs to no field. */
  general: string[];
}

export const NO_ERRORS: DraftErrors = { fields: {}, steps: {}, general: [] };

export function hasErrors(errors: DraftErrors): boolean {
  return (
    Object.keys(errors.fields).length > 0 ||
    errors.general.length > 0 ||
    Object.values(errors.steps).some(
      (step) =>
        step.name !== undefined ||
        Object.keys(step.settings).length > 0 ||
        Object.keys(step.policy ?? {}).length > 0,
    )
  );
}

let keySequence = 0;
function nextKey(): string {
  keySequence += 1;
  return `step-${keySequence}`;
}

/** The browser's timezone, the likely one for running hours. */
export function localTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function defaultRunningHours(): RunningHoursDraft {
  return { timezone: localTimezone(), days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' };
}

export function newDraft(): WorkflowDraft {
  return {
    name: '',
    customResponseEnabled: false,
    customResponseBody: '',
    providerEventsEnabled: false,
    provider: 'github',
    providerEventsText: '',
    steps: [],
    runningHoursEnabled: false,
    runningHours: defaultRunningHours(),
    queueOutsideWindow: true,
    stopOnNodeFailure: true,
    failureAlertsEnabled: false,
    alertMemberIds: [],
    alertIntervalMinutes: String(ALERT_INTERVAL_MINUTES.default),
  };
}

export function draftOf(workflow: Workflow): WorkflowDraft {
  const response = workflow.trigger?.customResponse ?? null;
  const providerEvents = workflow.trigger?.providerEvents ?? null;
  const hours = workflow.settings.runningHours;
  const alerts = workflow.settings.failureAlerts;
  return {
    name: workflow.name,
    customResponseEnabled: response?.enabled ?? false,
    customResponseBody: response?.body ?? '',
    providerEventsEnabled: providerEvents !== null,
    provider: providerEvents?.provider ?? 'github',
    providerEventsText: providerEvents?.events.join(', ') ?? '',
    steps: workflow.steps.map((step) => ({
      key: nextKey(),
      type: step.type,
      name: step.name,
      settings: structuredClone(step.settings),
      policy: policyDraftOf(step),
      nested: nestedOf(step),
    })),
    runningHoursEnabled: hours !== null,
    runningHours: hours ? { ...hours, days: [...hours.days] } : defaultRunningHours(),
    queueOutsideWindow: workflow.settings.queueOutsideWindow,
    stopOnNodeFailure: workflow.settings.stopOnNodeFailure,
    failureAlertsEnabled: alerts?.enabled ?? false,
    alertMemberIds: [...(alerts?.memberIds ?? [])],
    alertIntervalMinutes: String(alerts?.intervalMinutes ?? ALERT_INTERVAL_MINUTES.default),
  };
}

/** A draft with the saved workflow's values, keeping the keys of steps that stayed in place. */
export function savedDraft(workflow: Workflow, previous: WorkflowDraft): WorkflowDraft {
  const draft = draftOf(workflow);
  draft.steps = draft.steps.map((step, index) => {
    const before = previous.steps[index];
    return before && before.type === step.type ? { ...step, key: before.key } : step;
  });
  return draft;
}

/** A unique name for a new step: its type's label, numbered when taken ("Delay 2"). */
export function defaultStepName(type: string, steps: readonly DraftStep[]): string {
  const base = stepTypeLabel(type);
  const taken = new Set(steps.map((step) => step.name.trim()));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) {
    if (!taken.has(`${base} ${n}`)) return `${base} ${n}`;
  }
}

export function newStep(stepType: StepTypeInfo, steps: readonly DraftStep[]): DraftStep {
  const initial = initialValueOf(stepType.settings_schema as JsonSchema);
  return {
    key: nextKey(),
    type: stepType.type,
    name: defaultStepName(stepType.type, steps),
    settings: isRecord(initial) ? initial : {},
    policy: policyDraftOf(),
  };
}

/** The steps with the one at `index` moved by `delta` places (unchanged at either end). */
export function moveStep<T>(steps: readonly T[], index: number, delta: -1 | 1): T[] {
  const target = index + delta;
  if (index < 0 || index >= steps.length || target < 0 || target >= steps.length) return [...steps];
  const next = [...steps];
  const [moved] = next.splice(index, 1);
  next.splice(target, 0, moved as T);
  return next;
}

/** Credits one run of the drafted steps needs, by the step types' prices. */
export function draftCreditCost(
  steps: readonly Pick<DraftStep, 'type'>[],
  stepTypes: readonly StepTypeInfo[],
): number {
  return steps.reduce(
    (sum, step) => sum + (stepTypes.find((info) => info.type === step.type)?.credit_price ?? 0),
    0,
  );
}

/** A create's body without its workspace; also a whole update's body. */
export type WorkflowFields = Omit<CreateWorkflowBody, 'workspaceId'>;

/** The body fields of a create or update (the workspace is added for a create). */
export function toRequest(
  draft: WorkflowDraft,
  stepTypes: readonly StepTypeInfo[],
): WorkflowFields {
  const schemaOf = (type: string) =>
    stepTypes.find((info) => info.type === type)?.settings_schema as JsonSchema | undefined;
  const fields = {
    name: draft.name.trim(),
    trigger: {
      type: 'custom_webhook',
      customResponse: { enabled: draft.customResponseEnabled, body: draft.customResponseBody },
      providerEvents: draft.providerEventsEnabled
        ? { provider: draft.provider, events: eventFiltersOf(draft.providerEventsText) }
        : null,
    },
    steps: draft.steps.map((step) => {
      const schema = schemaOf(step.type);
      return {
        type: step.type,
        name: step.name.trim() === '' ? undefined : step.name.trim(),
        settings: schema ? cleanValue(schema, step.settings) : step.settings,
        ...policyFieldsOf(step.type, step.policy),
        ...step.nested,
      };
    }),
    settings: {
      runningHours: draft.runningHoursEnabled
        ? { ...draft.runningHours, days: [...draft.runningHours.days].sort((a, b) => a - b) }
        : null,
      queueOutsideWindow: draft.queueOutsideWindow,
      stopOnNodeFailure: draft.stopOnNodeFailure,
      failureAlerts: draft.failureAlertsEnabled
        ? {
            enabled: true,
            memberIds: draft.alertMemberIds,
            intervalMinutes: Number(draft.alertIntervalMinutes),
          }
        : null,
    },
  };
  // The values are checked before sending (validateDraft); the service checks them again.
  return fields as WorkflowFields;
}

function alertIntervalReads(text: string): boolean {
  const minutes = Number(text);
  return (
    text.trim() !== '' &&
    Number.isInteger(minutes) &&
    minutes >= ALERT_INTERVAL_MINUTES.min &&
    minutes <= ALERT_INTERVAL_MINUTES.max
  );
}

/** `pull_request.opened, issues` → the filters, in order, each once. */
export function eventFiltersOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((filter) => filter !== ''))];
}

function isKnownStepType(type: string): type is StepType {
  return Object.hasOwn(STEP_SETTINGS, type);
}

/** Each field's problem, worded for a person, checked with the contracts' schemas. */
export function validateDraft(
  draft: WorkflowDraft,
  stepTypes: readonly StepTypeInfo[],
): DraftErrors {
  const errors: DraftErrors = { fields: {}, steps: {}, general: [] };
  const body = toRequest(draft, stepTypes);

  const name = validateForm(CreateWorkflowBody.pick({ name: true }), { name: draft.name });
  if (!name.ok && name.errors['name']) errors.fields['name'] = name.errors['name'];

  if (draft.customResponseEnabled) {
    const response = validateForm(CustomResponse, {
      enabled: true,
      body: draft.customResponseBody,
    });
    if (!response.ok && response.errors['body']) {
      errors.fields['customResponseBody'] = response.errors['body'];
    }
  }

  if (draft.providerEventsEnabled) {
    const events = eventFiltersOf(draft.providerEventsText);
    const checked = validateForm(ProviderEventsTrigger, { provider: draft.provider, events });
    if (!checked.ok) {
      errors.fields['providerEvents'] =
        events.length === 0
          ? 'Name at least one event, such as pull_request.opened.'
          : 'Use event names such as pull_request.opened or issues, at most 20.';
    }
  }

  if (draft.runningHoursEnabled) {
    const hours = validateForm(RunningHours, draft.runningHours);
    if (!hours.ok) {
      for (const [field, message] of Object.entries(hours.errors)) {
        errors.fields[`runningHours.${field}`] =
          field === 'days' ? 'Choose at least one day.' : message;
      }
    }
  }

  if (draft.failureAlertsEnabled && !alertIntervalReads(draft.alertIntervalMinutes)) {
    errors.fields['alertIntervalMinutes'] =
      `Use whole minutes from ${ALERT_INTERVAL_MINUTES.min} to ${ALERT_INTERVAL_MINUTES.max}.`;
  }

  const seen = new Set<string>();
  draft.steps.forEach((step, index) => {
    const stepErrors: DraftErrors['steps'][string] = { settings: {} };
    const stepName = step.name.trim();
    if (stepName.length > 100) stepErrors.name = 'Use at most 100 characters.';
    else if (/[.{}]/.test(stepName)) stepErrors.name = 'A step name cannot contain dots or braces.';
    else if (stepName && seen.has(stepName)) stepErrors.name = 'Another step has this name.';
    if (stepName) seen.add(stepName);
    if (isKnownStepType(step.type)) {
      const settings = validateForm(STEP_SETTINGS[step.type], body.steps[index]?.settings ?? {});
      if (!settings.ok) {
        for (const [path, message] of Object.entries(settings.errors)) {
          if (!message) continue;
          // Kept under '' too: a step's own form can mark the control the rule is about.
          if (path === '') errors.general.push(`Step ${index + 1}: ${sentence(message)}`);
          stepErrors.settings[path] = message;
        }
      }
    }
    const policy = validatePolicy(step.type, step.policy);
    if (Object.keys(policy).length > 0) stepErrors.policy = policy;
    errors.steps[step.key] = stepErrors;
  });
  return errors;
}

function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * The issues of a 400 from the service, put next to their fields: paths such as
 * `body.steps.1.settings.seconds`, `body.name` or `body.settings.runningHours.start`.
 */
export function errorsFromResponse(error: ApiError, draft: WorkflowDraft): DraftErrors {
  const errors: DraftErrors = { fields: {}, steps: {}, general: [] };
  for (const issue of error.validationIssues) {
    const path = issue.path.replace(/^body\.?/, '');
    const message = sentence(issue.message);
    const policyField = /^steps\.(\d+)\.((?:retry|timeoutMs|onFailure).*)$/.exec(path);
    const policyStepKey = policyField ? draft.steps[Number(policyField[1])]?.key : undefined;
    const policyEntry = policyField ? policyFieldOfPath(policyField[2] ?? '') : undefined;
    if (policyStepKey && policyEntry) {
      const entry = (errors.steps[policyStepKey] ??= { settings: {} });
      (entry.policy ??= {})[policyEntry] ??= message;
      continue;
    }
    const step = /^steps\.(\d+)\.(name|settings)\.?(.*)$/.exec(path);
    const stepKey = step ? draft.steps[Number(step[1])]?.key : undefined;
    if (step && stepKey) {
      const entry = (errors.steps[stepKey] ??= { settings: {} });
      if (step[2] === 'name') entry.name = message;
      else if (step[3]) entry.settings[step[3]] ??= message;
      else errors.general.push(`Step ${Number(step[1]) + 1}: ${message}`);
      continue;
    }
    const field = path === 'name' ? 'name' : fieldOfSettingsPath(path);
    if (field) errors.fields[field] ??= message;
    else errors.general.push(path ? `${path}: ${message}` : message);
  }
  return errors;
}

function fieldOfSettingsPath(path: string): string | undefined {
  if (path === 'trigger.customResponse.body') return 'customResponseBody';
  if (path.startsWith('trigger.providerEvents')) return 'providerEvents';
  const hours = /^settings\.runningHours\.(timezone|days|start|end)/.exec(path);
  return hours ? `runningHours.${hours[1]}` : undefined;
}
