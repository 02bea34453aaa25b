import { z } from 'zod';
import { CustomResponse, RunningHours, RunStatus } from './automation';
import { looksLikeJson, parseJsonTemplate } from './custom-response-template';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { credentialNamesIn } from './workspace-credentials';
import { ProviderEventsTrigger } from './provider-events';
import { defineRoutes } from './route-spec';
import type { ServiceReply } from './service-protocol';

/*
 * Workflows: a Custom Webhook trigger and an ordered list of steps. Settings values that are
 * strings may hold templates: `{{Custom Webhook.<key>.<subkey>}}` (the trigger's JSON body) and
 * `{{steps.<step name>.<path>}}` (an earlier step's output); a missing variable becomes "".
 * `{{= <CEL expression> }}` computes a value from `webhook` (the trigger's body) and `steps`, as
 * `{{= webhook.order.total * 1.2 }}` or `{{= steps["fetch order"].body.id }}` (decision 161).
 */

/** A step name: referenced as `{{steps.<name>...}}`, so no dots and no braces. */
export const StepName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[^.{}]+$/, 'a step name cannot contain dots or braces');

const HttpMethodName = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

export const HttpRequestSettings = z.object({
  method: HttpMethodName,
  /** An absolute http(s) URL once templates are filled. */
  url: z.string().min(1).max(4096),
  headers: z.record(z.string(), z.string()).optional(),
  /** A string is sent as it is; any other JSON value is sent as application/json. */
  body: z.unknown().optional(),
});
export const DelaySettings = z.object({
  /** Up to 7 days; the run waits in the scheduler table, not in memory. */
  seconds: z.number().min(0).max(604_800),
});
export const McpToolSettings = z
  .object({
    toolId: z.string().min(1).optional(),
    serverId: z.string().min(1).optional(),
    toolName: z.string().min(1).optional(),
    arguments: z.record(z.string(), z.unknown()).default({}),
  })
  .refine(
    (settings) => settings.toolId !== undefined || (settings.serverId && settings.toolName),
    'give toolId, or serverId and toolName',
  );
export const AssistantPromptSettings = z.object({ prompt: z.string().min(1).max(20_000) });
export const ApprovalSettings = z.object({
  reviewerIds: z.array(z.uuid()).min(1).max(50),
  message: z.string().max(5_000).optional(),
});
export const TableRowSettings = z.object({
  tableId: z.string().min(1),
  values: z.record(z.string(), z.unknown()),
});

/**
 * Control steps (issue 43, decision 165) decide what runs: `if` and `switch` take a branch,
 * `for_each` runs its steps once per item of a list, `call_workflow` runs another workflow of the
 * workspace, `set` names values (`vars.<name>`), `stop` ends the run. A condition, a case's
 * `when` and a loop's `items` are CEL expressions as written (no `{{= }}` around them).
 */
const Condition = z.string().trim().min(1).max(1_000);
export const IfSettings = z.object({ condition: Condition });
export const SwitchSettings = z.object({});
/** The most items one loop takes, whatever its `maxItems` says. */
export const MAX_LOOP_ITEMS = 10_000;
/** Iterations of one loop running at once, at the most. */
export const MAX_LOOP_CONCURRENCY = 20;
/**
 * A for_each's output is `{count, iterations: [{index, run_id, steps}]}`, `steps` each iteration's
 * step outputs by name; past 256 KB the iterations keep `index` and `run_id` alone and
 * `outputs_left_out` is true (each iteration's run has them).
 */
export const ForEachSettings = z.object({
  /** A CEL expression giving a list, as `webhook.order.lines`. */
  items: Condition,
  /** A list longer than this fails the step before any iteration starts. */
  maxItems: z.number().int().min(1).max(MAX_LOOP_ITEMS).default(1_000),
  /** Iterations that run side by side; 1 runs them in order. */
  concurrency: z.number().int().min(1).max(MAX_LOOP_CONCURRENCY).default(1),
});
/** How deep calls and loops may nest at run time: a run of depth 5 starts none. */
export const MAX_RUN_DEPTH = 5;
export const CallWorkflowSettings = z.object({
  workflowId: z.uuid(),
  /** The called run's `Custom Webhook` body; templates are filled. */
  input: z.unknown().optional(),
  /** Wait for the called run and take its result as this step's output (default), or not. */
  wait: z.boolean().default(true),
});
export const SetSettings = z.object({
  /** Each value is filled like any setting and readable later as `vars.<name>`. */
  values: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), z.unknown()),
});
export const StopSettings = z.object({
  status: z.enum(['succeeded', 'failed']),
  message: z.string().max(2_000).optional(),
});

/** The settings schema of every step type; GET /workflows/step-types publishes them as JSON Schema. */
export const STEP_SETTINGS = {
  http_request: HttpRequestSettings,
  delay: DelaySettings,
  mcp_tool: McpToolSettings,
  assistant_prompt: AssistantPromptSettings,
  approval: ApprovalSettings,
  table_row: TableRowSettings,
  if: IfSettings,
  switch: SwitchSettings,
  for_each: ForEachSettings,
  call_workflow: CallWorkflowSettings,
  set: SetSettings,
  stop: StopSettings,
} as const;
export type StepType = keyof typeof STEP_SETTINGS;
export const StepType = z.enum([
  'http_request',
  'delay',
  'mcp_tool',
  'assistant_prompt',
  'approval',
  'table_row',
  'if',
  'switch',
  'for_each',
  'call_workflow',
  'set',
  'stop',
]);
/** The step types of the `.v1` subjects, from before control steps. */
export const ACTION_STEP_TYPES: readonly StepType[] = [
  'http_request',
  'delay',
  'mcp_tool',
  'assistant_prompt',
  'approval',
  'table_row',
];
export const CONTROL_STEP_TYPES = [
  'if',
  'switch',
  'for_each',
  'call_workflow',
  'set',
  'stop',
] as const satisfies readonly StepType[];
export type ControlStepType = (typeof CONTROL_STEP_TYPES)[number];
/** The steps that act (call out, wait, write): what the step executor runs. */
export type ActionStepType = Exclude<StepType, ControlStepType>;
export function isControlStepType(type: string): type is ControlStepType {
  return (CONTROL_STEP_TYPES as readonly string[]).includes(type);
}

/**
 * The failures a step's `retry` may answer (issue 42, decision 155): the step did not answer in
 * time, it could not be reached, it answered 5xx, or it answered 429 (its `Retry-After` is
 * honoured). A refusal (4xx, settings that do not fit) is never retried: it would fail again.
 */
export const RETRYABLE_FAILURES = ['timeout', 'network', 'server_error', 'rate_limited'] as const;
export const RetryableFailure = z.enum(RETRYABLE_FAILURES);
export type RetryableFailure = z.infer<typeof RetryableFailure>;

/** The longest wait between two attempts, whatever the backoff or `Retry-After` ask: one day. */
export const MAX_RETRY_DELAY_MS = 86_400_000;

export const StepRetryPolicy = z
  .object({
    /** Attempts in all, the first one included. */
    attempts: z.number().int().min(2).max(10),
    /** `fixed` waits `delayMs` each time; `exponential` doubles it after every attempt. */
    backoff: z.enum(['fixed', 'exponential']).default('exponential'),
    /** The wait before the second attempt. */
    delayMs: z.number().int().min(100).max(MAX_RETRY_DELAY_MS).default(1_000),
    /** An exponential backoff grows up to this. */
    maxDelayMs: z.number().int().min(100).max(MAX_RETRY_DELAY_MS).optional(),
    /** Each wait is drawn between half of it and all of it, so that retries do not come in step. */
    jitter: z.boolean().default(true),
    on: z
      .array(RetryableFailure)
      .min(1)
      .default([...RETRYABLE_FAILURES]),
  })
  .refine((policy) => policy.maxDelayMs === undefined || policy.maxDelayMs >= policy.delayMs, {
    message: 'maxDelayMs cannot be below delayMs',
    path: ['maxDelayMs'],
  });
export type StepRetryPolicy = z.infer<typeof StepRetryPolicy>;

/**
 * What a step's failure (after its retries) does: `stop` the run, `continue` with
 * `{error, output}` as the step's output, or stop and `run_workflow`: start a run of another
 * workflow of the workspace, whose `{{Custom Webhook.error}}` and `{{Custom Webhook.run...}}`
 * say what failed. Absent: the workflow's `stopOnNodeFailure` decides.
 */
export const StepFailureRoute = z.discriminatedUnion('action', [
  z.object({ action: z.literal('stop') }),
  z.object({ action: z.literal('continue') }),
  z.object({ action: z.literal('run_workflow'), workflowId: z.uuid() }),
]);
export type StepFailureRoute = z.infer<typeof StepFailureRoute>;

/** The longest a step that calls out may be given, per attempt: five minutes (a tool call's limit). */
export const MAX_STEP_TIMEOUT_MS = 300_000;

/** Steps that wait rather than call out: a retry or a timeout would mean nothing to them. */
export const WAITING_STEP_TYPES: readonly string[] = ['delay', 'approval'];
/** Steps that take no retry or timeout: the waiting ones and the control steps. */
export const STEPS_WITHOUT_ATTEMPTS: readonly string[] = [
  ...WAITING_STEP_TYPES,
  ...CONTROL_STEP_TYPES,
];
/** Control steps that can fail on their own (an iteration, the called run): `onFailure` applies. */
export const CONTROL_STEPS_THAT_FAIL: readonly string[] = ['for_each', 'call_workflow'];

/** Per-step policies, beside `type`, `name` and `settings`. */
const StepPolicyFields = {
  retry: StepRetryPolicy.optional(),
  /** Per attempt, in milliseconds; absent: the runner's own limit for the step type. */
  timeoutMs: z.number().int().min(100).max(MAX_STEP_TIMEOUT_MS).optional(),
  onFailure: StepFailureRoute.optional(),
};

/** The most steps a workflow holds, its branches' and loops' steps included. */
export const MAX_WORKFLOW_STEPS = 100;
/** How deep branches and loops nest in one workflow. */
export const MAX_STEP_NESTING = 4;
/** A switch's cases, at the most. */
export const MAX_SWITCH_CASES = 20;

const actionStep = <Type extends StepType, Settings extends z.ZodType>(
  type: Type,
  settings: Settings,
) => z.object({ type: z.literal(type), name: StepName.optional(), settings, ...StepPolicyFields });

const StepsWithoutBranches = [
  actionStep('http_request', HttpRequestSettings),
  actionStep('delay', DelaySettings),
  actionStep('mcp_tool', McpToolSettings),
  actionStep('assistant_prompt', AssistantPromptSettings),
  actionStep('approval', ApprovalSettings),
  actionStep('table_row', TableRowSettings),
  actionStep('call_workflow', CallWorkflowSettings),
  actionStep('set', SetSettings),
  actionStep('stop', StopSettings),
] as const;
const IfStepBase = actionStep('if', IfSettings);
const SwitchStepBase = actionStep('switch', SwitchSettings).extend({
  settings: SwitchSettings.default({}),
});
const ForEachStepBase = actionStep('for_each', ForEachSettings);

type Parsed<Schema extends z.ZodType> = z.infer<Schema>;
type Sent<Schema extends z.ZodType> = z.input<Schema>;
/** A step as parsed (defaults filled); the types are written out because the schema is recursive. */
export type StepInput =
  | Parsed<(typeof StepsWithoutBranches)[number]>
  | (Parsed<typeof IfStepBase> & { then: StepInput[]; else: StepInput[] })
  | (Parsed<typeof SwitchStepBase> & {
      cases: { when: string; steps: StepInput[] }[];
      default: StepInput[];
    })
  | (Parsed<typeof ForEachStepBase> & { steps: StepInput[] });
/** A step as a caller sends it. */
export type StepInputSent =
  | Sent<(typeof StepsWithoutBranches)[number]>
  | (Sent<typeof IfStepBase> & { then?: StepInputSent[]; else?: StepInputSent[] })
  | (Sent<typeof SwitchStepBase> & {
      cases: { when: string; steps: StepInputSent[] }[];
      default?: StepInputSent[];
    })
  | (Sent<typeof ForEachStepBase> & { steps: StepInputSent[] });

const StepListInput: z.ZodType<StepInput[], StepInputSent[]> = z.lazy(() =>
  z.array(StepInput).max(MAX_WORKFLOW_STEPS),
);
export const StepInput: z.ZodType<StepInput, StepInputSent> = z.discriminatedUnion('type', [
  ...StepsWithoutBranches,
  IfStepBase.extend({ then: StepListInput.default([]), else: StepListInput.default([]) }),
  SwitchStepBase.extend({
    cases: z
      .array(z.object({ when: Condition, steps: StepListInput }))
      .min(1)
      .max(MAX_SWITCH_CASES),
    default: StepListInput.default([]),
  }),
  ForEachStepBase.extend({
    steps: z.lazy(() => z.array(StepInput).min(1).max(MAX_WORKFLOW_STEPS)),
  }),
]);

/** One list of steps a step holds: a branch (`then`, `else`, `case:<n>`, `default`) or a loop's `body`. */
export interface ChildSteps<Item> {
  branch: string;
  /** Where the list is in the step, for error paths. */
  path: (string | number)[];
  steps: readonly Item[];
}

interface NestingStep<Item> {
  type: string;
  then?: readonly Item[];
  else?: readonly Item[];
  cases?: readonly { steps: readonly Item[] }[];
  default?: readonly Item[];
  steps?: readonly Item[];
}

/** The lists of steps a control step holds, in the order they are written. */
export function childStepsOf<Item extends NestingStep<Item>>(step: Item): ChildSteps<Item>[] {
  switch (step.type) {
    case 'if':
      return [
        { branch: 'then', path: ['then'], steps: step.then ?? [] },
        { branch: 'else', path: ['else'], steps: step.else ?? [] },
      ];
    case 'switch':
      return [
        ...(step.cases ?? []).map((found, index) => ({
          branch: `case:${index}`,
          path: ['cases', index, 'steps'],
          steps: found.steps,
        })),
        { branch: 'default', path: ['default'], steps: step.default ?? [] },
      ];
    case 'for_each':
      return [{ branch: 'body', path: ['steps'], steps: step.steps ?? [] }];
    default:
      return [];
  }
}

/** A step of a workflow's tree, with where it is. */
export interface PlacedStep<Item> {
  step: Item;
  /** Its path from the workflow's `steps`, as error paths give it. */
  path: (string | number)[];
  /** The control steps it is inside, outermost first, with the branch it is in. */
  ancestors: { step: Item; branch: string }[];
}

/** Every step of the tree in the order it is written (a step before the steps it holds). */
export function placedSteps<Item extends NestingStep<Item>>(
  steps: readonly Item[],
  path: (string | number)[] = [],
  ancestors: PlacedStep<Item>['ancestors'] = [],
): PlacedStep<Item>[] {
  return steps.flatMap((step, index) => {
    const at = [...path, index];
    return [
      { step, path: at, ancestors },
      ...childStepsOf(step).flatMap((child) =>
        placedSteps(
          child.steps,
          [...at, ...child.path],
          [...ancestors, { step, branch: child.branch }],
        ),
      ),
    ];
  });
}

/** What a step's policies may be: none for the waiting and control steps but a failure route. */
function policyProblems(step: StepInput): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  if (STEPS_WITHOUT_ATTEMPTS.includes(step.type)) {
    for (const field of ['retry', 'timeoutMs'] as const) {
      if (step[field] === undefined) continue;
      problems.push({
        field,
        message: `${field} applies to steps that call out, not to ${step.type}`,
      });
    }
  }
  if (
    step.onFailure !== undefined &&
    isControlStepType(step.type) &&
    !CONTROL_STEPS_THAT_FAIL.includes(step.type)
  ) {
    problems.push({ field: 'onFailure', message: `onFailure does not apply to ${step.type}` });
  }
  return problems;
}

/**
 * Steps as sent: at most MAX_WORKFLOW_STEPS in all, nested at most MAX_STEP_NESTING deep; names,
 * when given, unique in the whole workflow (they are how later steps refer to outputs).
 */
export const StepsInput = z
  .array(StepInput)
  .max(MAX_WORKFLOW_STEPS)
  .superRefine((steps, ctx) => {
    const placed = placedSteps(steps);
    if (placed.length > MAX_WORKFLOW_STEPS) {
      ctx.addIssue({
        code: 'custom',
        message: `a workflow holds at most ${MAX_WORKFLOW_STEPS} steps, its branches' and loops' included`,
        path: [],
      });
    }
    const seen = new Set<string>();
    for (const { step, path, ancestors } of placed) {
      if (ancestors.length >= MAX_STEP_NESTING) {
        ctx.addIssue({
          code: 'custom',
          message: `branches and loops nest at most ${MAX_STEP_NESTING} deep`,
          path,
        });
      }
      // A credential is sent only where the request goes: never into a prompt, a tool's
      // arguments, a table or a reviewer's email (decision 152).
      if (step.type !== 'http_request' && credentialNamesIn(step.settings).length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: '{{credentials.<name>}} can be used in http_request steps only',
          path: [...path, 'settings'],
        });
      }
      for (const problem of policyProblems(step)) {
        ctx.addIssue({ code: 'custom', message: problem.message, path: [...path, problem.field] });
      }
      if (step.name === undefined) continue;
      if (seen.has(step.name)) {
        ctx.addIssue({
          code: 'custom',
          message: 'step names must be unique',
          path: [...path, 'name'],
        });
      }
      seen.add(step.name);
    }
  });

/**
 * A Custom Response as saved: one that starts like JSON must be JSON with its placeholders, so
 * that it is filled as JSON (values escaped), never as text a sender's value could bend. Stored
 * ones are read with `CustomResponse` alone: a template saved before this rule keeps working.
 */
export const CustomResponseInput = CustomResponse.extend({
  body: CustomResponse.shape.body.refine(
    (body) => !looksLikeJson(body) || parseJsonTemplate(body) !== undefined,
    'a custom response that starts like JSON must be JSON, each {{body.<key>}} inside a string or as a whole value',
  ),
});

export const TriggerInput = z.object({
  type: z.literal('custom_webhook'),
  customResponse: CustomResponseInput.optional(),
  /** Also start on these events of the workspace's connected provider account (decision 132). */
  providerEvents: ProviderEventsTrigger.nullable().optional(),
});
export type TriggerInput = z.infer<typeof TriggerInput>;

/** How often a workflow's failure alert may be sent, in minutes (decision 160). */
export const ALERT_INTERVAL_MINUTES = { min: 5, max: 1440, default: 60 } as const;
/** Members a failure alert goes to besides the workflow's owner, at the most. */
export const MAX_ALERT_MEMBERS = 20;

/**
 * Emails about failed runs (issue 42 item 5): to the owner and `memberIds`, at most one per
 * `intervalMinutes`, with how many runs failed since the last one and the newest error.
 */
export const FailureAlerts = z.object({
  enabled: z.boolean(),
  memberIds: z.array(z.uuid()).max(MAX_ALERT_MEMBERS).default([]),
  intervalMinutes: z
    .number()
    .int()
    .min(ALERT_INTERVAL_MINUTES.min)
    .max(ALERT_INTERVAL_MINUTES.max)
    .default(ALERT_INTERVAL_MINUTES.default),
});
export type FailureAlerts = z.infer<typeof FailureAlerts>;

export const WorkflowSettingsInput = z.object({
  runningHours: RunningHours.nullable().optional(),
  queueOutsideWindow: z.boolean().optional(),
  /** A failed step stops the run (default); false records the failure and goes on. */
  stopOnNodeFailure: z.boolean().optional(),
  /** null turns the alerts off. */
  failureAlerts: FailureAlerts.nullable().optional(),
});

export const CreateWorkflowBody = z.object({
  workspaceId: z.uuid(),
  name: z.string().trim().min(1).max(200),
  trigger: TriggerInput,
  steps: StepsInput,
  settings: WorkflowSettingsInput.optional(),
});
export type CreateWorkflowBody = z.infer<typeof CreateWorkflowBody>;

/** Every field optional; `trigger: null` removes the trigger (its address then answers 404). */
export const UpdateWorkflowBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  trigger: TriggerInput.nullable().optional(),
  steps: StepsInput.optional(),
  settings: WorkflowSettingsInput.optional(),
});
export type UpdateWorkflowBody = z.infer<typeof UpdateWorkflowBody>;

export const RunWorkflowBody = z.object({ testEventId: z.uuid().optional() }).optional();

export const WorkflowStatus = z.enum(['draft', 'live']);
const StepPolicies = z.object(StepPolicyFields);
/** A step as stored and shown; a control step holds its branches or its loop's steps. */
export type Step = {
  type: StepType;
  name: string;
  settings: Record<string, unknown>;
  then?: Step[];
  else?: Step[];
  cases?: { when: string; steps: Step[] }[];
  default?: Step[];
  /** A for_each's steps, run once per item. */
  steps?: Step[];
} & z.infer<typeof StepPolicies>;
const StepList: z.ZodType<Step[]> = z.lazy(() => z.array(Step));
export const Step: z.ZodType<Step> = StepPolicies.extend({
  type: StepType,
  name: z.string(),
  settings: z.record(z.string(), z.unknown()),
  then: StepList.optional(),
  else: StepList.optional(),
  cases: z.array(z.object({ when: z.string(), steps: StepList })).optional(),
  default: StepList.optional(),
  steps: StepList.optional(),
});

export const Workflow = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  status: WorkflowStatus,
  trigger: z
    .object({
      type: z.literal('custom_webhook'),
      webhook_id: z.uuid(),
      customResponse: CustomResponse.nullable(),
      providerEvents: ProviderEventsTrigger.nullable(),
    })
    .nullable(),
  steps: z.array(Step),
  settings: z.object({
    runningHours: RunningHours.nullable(),
    queueOutsideWindow: z.boolean(),
    stopOnNodeFailure: z.boolean(),
    failureAlerts: FailureAlerts.nullable(),
  }),
  /** Credits one run needs: the sum of its paid steps' prices. */
  credit_cost: z.number().int().nonnegative(),
  /** When the user action Run was last used; Set live needs one. */
  last_test_run_at: z.iso.datetime().nullable(),
  created_by: z.uuid(),
  /** Who answers for it: its creator until handed over (PUT /workflows/{id}/owner). */
  owner_id: z.uuid(),
  /**
   * Whose access its runs use: the person who last saved its trigger or steps, or who adopted it
   * since (decision 147). Equal to `owner_id` while the owner agreed to what it does.
   */
  runs_as: z.uuid(),
  /** Its newest version (GET /workflows/{id}/versions): what this shows and Run runs. */
  version: z.number().int().min(1),
  /**
   * The version live traffic runs (Set live publishes the newest); null until it first went
   * live. Below `version` while edits are not yet published.
   */
  live_version: z.number().int().min(1).nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Workflow = z.infer<typeof Workflow>;
export const WebhookInfo = z.object({ id: z.uuid(), url: z.string() });
export const WorkflowWithWebhook = z.object({
  workflow: Workflow,
  webhook: WebhookInfo.nullable(),
});
export const WorkflowResponse = z.object({ workflow: Workflow });
export const WorkflowListResponse = z.object({ workflows: z.array(Workflow) });

export const TestEvent = z.object({
  id: z.uuid(),
  received_at: z.iso.datetime(),
  body: z.unknown(),
  headers: z.record(z.string(), z.string()),
});
export const TestEventsResponse = z.object({ events: z.array(TestEvent) });

export { RunStatus };
export const StepRunStatus = z.enum([
  'pending',
  'running',
  'waiting',
  'succeeded',
  'failed',
  'skipped',
]);
export type StepRunStatus = z.infer<typeof StepRunStatus>;
/**
 * A run a failed step started (`onFailure: run_workflow`) is `custom_webhook`: the failure is
 * delivered as its trigger's body, as a webhook's would be; `failed_run_id` names the run.
 */
export const RunTriggerType = z.enum([
  'custom_webhook',
  'provider_event',
  'mcp',
  'manual',
  'schedule',
  /** A call_workflow step's run of this workflow (`parent_run_id` when the step waits for it). */
  'call_workflow',
  /** One item of a for_each: a run of the loop's steps, listed on its loop's run, not on its own. */
  'for_each',
]);
export type RunTriggerType = z.infer<typeof RunTriggerType>;
export const RunTrigger = z.object({
  type: RunTriggerType,
  event_id: z.uuid().nullable(),
  test_event_id: z.uuid().nullable(),
  key_id: z.uuid().nullable(),
  /** The run whose failed step started this one (decision 155). */
  failed_run_id: z.uuid().nullable(),
  /** The run whose for_each or call_workflow step waits for this one (decision 165). */
  parent_run_id: z.uuid().nullable(),
  /** The item of that for_each this run is for, from 0. */
  iteration: z.number().int().min(0).nullable(),
});
/**
 * The error of a cancelled run and of the step it stopped, and the comment of the approval it
 * closed (decision 156).
 */
export const RUN_CANCELLED = 'The run was cancelled';

/**
 * The key a step's calls carry so that a receiver can tell a repeat from a new request: the run,
 * the step and the iteration (0 until a step repeats within a run), whatever the attempt.
 */
export function stepIdempotencyKey(runId: string, stepIndex: number, iteration = 0): string {
  return `${runId}:${stepIndex}:${iteration}`;
}

/** One attempt at a step, as the run keeps it. */
export const StepAttempt = z.object({
  number: z.number().int().min(1),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  /** The kind of failure, when it is one a `retry` may answer. */
  failure: RetryableFailure.nullable(),
  /** The runner died during this attempt and it was made again, with the same idempotency key. */
  resumed: z.boolean(),
});
export type StepAttempt = z.infer<typeof StepAttempt>;
export const StepRun = z.object({
  index: z.number().int(),
  name: z.string(),
  type: StepType,
  status: StepRunStatus,
  /** The settings with every template filled, as the step used them. */
  input: z.unknown(),
  output: z.unknown(),
  error: z.string().nullable(),
  credits_charged: z.number().int(),
  started_at: z.iso.datetime().nullable(),
  finished_at: z.iso.datetime().nullable(),
  duration_ms: z.number().int().nullable(),
  /** Every attempt that ended, oldest first (a step that never ran has none). */
  attempts: z.array(StepAttempt),
  /** A retry waits until then (the backoff, or the server's `Retry-After`). */
  next_attempt_at: z.iso.datetime().nullable(),
  /** The step was cut off by a crash of the runner at least once and resumed. */
  resumed: z.boolean(),
  /**
   * What an http_request sends as `Idempotency-Key` and an MCP tool call as
   * `_meta.idempotencyKey`: the same for every attempt and resume of the step.
   */
  idempotency_key: z.string(),
  /** The if or switch whose branch holds this step (its `index`); null at the top. */
  parent_index: z.number().int().nullable(),
  /** That branch: `then`, `else`, `case:<n>` or `default`. */
  branch: z.string().nullable(),
});
export const Run = z.object({
  id: z.uuid(),
  workflow_id: z.uuid(),
  workspace_id: z.uuid(),
  status: RunStatus,
  trigger: RunTrigger,
  /** The trigger's JSON body: the `Custom Webhook` variables. */
  input: z.unknown(),
  steps: z.array(StepRun),
  credits_charged: z.number().int(),
  error: z.string().nullable(),
  not_before: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  started_at: z.iso.datetime().nullable(),
  finished_at: z.iso.datetime().nullable(),
  /** A cancel was asked for: the run is cancelled once its running step has stopped. */
  cancel_requested_at: z.iso.datetime().nullable(),
  /** The run this one retries (POST /runs/{runId}/retry); null for a first attempt. */
  retry_of: z.uuid().nullable(),
  /** 1 for a run, one more for each retry of it. */
  attempt: z.number().int().min(1),
  /** The version of the workflow it ran; null for runs from before versions were kept. */
  workflow_version: z.number().int().min(1).nullable(),
});
export type Run = z.infer<typeof Run>;
export const RunResponse = z.object({ run: Run });
/** A run that retries another (its `retry_of`), as the original's page lists it. */
export const RunRetry = z.object({
  id: z.uuid(),
  status: RunStatus,
  attempt: z.number().int().min(2),
  created_at: z.iso.datetime(),
});
/** GET /runs/{runId}: the run, and the runs that retry it, oldest first (at most 50). */
export const RunDetailsResponse = RunResponse.extend({ retries: z.array(RunRetry) });
/**
 * Runs in a list leave out `input` and each step's `input`, `output` and `attempts` (see
 * GET /runs/{runId}).
 */
export const RunListItem = Run.omit({ input: true, steps: true }).extend({
  steps: z.array(StepRun.omit({ input: true, output: true, attempts: true })),
});
export type RunListItem = z.infer<typeof RunListItem>;
/**
 * Runs pages: newest first; `limit` 1 to 100 (default 50). The filters combine: `status`,
 * `trigger`, `created_after` (at or after) and `created_before` (before), `event_id` (the
 * webhook or provider event that started it).
 */
export const RUNS_PAGE = { default: 50, max: 100 } as const;
/** A count of runs stops here: the list answers "at least this many" past it. */
export const RUN_COUNT_CAP = 10_000;
const isoTime = z.iso.datetime({ offset: true });
/**
 * The triggers runs are filtered by: those that start runs from outside (a run list leaves a
 * loop's iterations out; called runs are listed with the rest).
 */
export const RunFilterTrigger = RunTriggerType.exclude(['call_workflow', 'for_each']);
export type RunFilterTrigger = z.infer<typeof RunFilterTrigger>;
const runFilterFields = {
  status: RunStatus.optional(),
  trigger: RunFilterTrigger.optional(),
  created_after: isoTime.optional(),
  created_before: isoTime.optional(),
  event_id: z.uuid().optional(),
};
function timeRangeInOrder({
  created_after,
  created_before,
}: {
  created_after?: string;
  created_before?: string;
}): boolean {
  return (
    !created_after || !created_before || Date.parse(created_after) < Date.parse(created_before)
  );
}
const TIME_RANGE_ORDER = {
  message: 'created_after must be before created_before',
  path: ['created_after'],
};
/** Which runs of a workflow: the runs list's filters, and what a bulk replay or cancel takes. */
export const RunFilter = z.object(runFilterFields).refine(timeRangeInOrder, TIME_RANGE_ORDER);
export type RunFilter = z.infer<typeof RunFilter>;
export const ListRunsQuery = z
  .object({
    ...runFilterFields,
    cursor: z.string().max(300).optional(),
    limit: z
      .string()
      .regex(/^[0-9]{1,3}$/, 'limit must be a whole number')
      .refine(
        (value) => Number(value) >= 1 && Number(value) <= RUNS_PAGE.max,
        `limit must be 1 to ${RUNS_PAGE.max}`,
      )
      .optional(),
  })
  .refine(timeRangeInOrder, TIME_RANGE_ORDER);
/**
 * How many runs match the filters other than `status`, by status: each at most RUN_COUNT_CAP
 * (`capped` when one reached it), so counting costs the same however long the history.
 */
export const RunCounts = z.object({
  by_status: z.object({
    queued: z.number().int().min(0),
    running: z.number().int().min(0),
    waiting_approval: z.number().int().min(0),
    succeeded: z.number().int().min(0),
    failed: z.number().int().min(0),
    cancelled: z.number().int().min(0),
  }),
  capped: z.boolean(),
});
export type RunCounts = z.infer<typeof RunCounts>;
export const RunListResponse = z.object({
  runs: z.array(RunListItem),
  nextCursor: z.string().nullable(),
  counts: RunCounts,
});
export const RunStartedResponse = z.object({ runId: z.uuid() });

/**
 * `failed_step`: the steps that succeeded keep their outputs (and are not charged again), the
 * run goes on from the one that failed or was cancelled; `start`: every step again.
 */
export const RetryRunBody = z
  .object({ from: z.enum(['failed_step', 'start']).default('failed_step') })
  .optional();

export const StepTypeInfo = z.object({
  type: StepType,
  credit_price: z.number().int().nonnegative(),
  settings_schema: z.record(z.string(), z.unknown()),
});
export const StepTypesResponse = z.object({ step_types: z.array(StepTypeInfo) });

export const WorkflowIdParams = z.object({ id: z.uuid() });
export const RunIdParams = z.object({ runId: z.uuid() });
export const WorkspaceQuery = z.object({ workspaceId: z.uuid() });

/** The spec's 402 body: `{error, code: INSUFFICIENT_CREDITS, message}`. */
export const InsufficientCreditsBody = z.object({
  error: z.string(),
  code: z.literal('INSUFFICIENT_CREDITS'),
  message: z.string(),
});
export type InsufficientCreditsBody = z.infer<typeof InsufficientCreditsBody>;
export const CREDIT_MESSAGES = {
  depleted: 'Your credit balance is depleted. Upgrade your plan to continue running flows.',
  insufficient: 'Insufficient credits to run this flow. Upgrade your plan to continue.',
} as const;
/**
 * The one credit rule of every run (webhook, MCP, Run, at run start): a balance of zero or below
 * is depleted, whatever the workflow costs; below the workflow's cost is insufficient.
 * Returns the spec's message, or null when the run may start.
 */
export function creditShortfallMessage(balance: number, creditCost: number): string | null {
  if (balance <= 0) return CREDIT_MESSAGES.depleted;
  if (balance < creditCost) return CREDIT_MESSAGES.insufficient;
  return null;
}

/** The spec's 402 reply to a run refused for credits (the webhook trigger, the Run action). */
export function insufficientCreditsReply(message: string): ServiceReply {
  const body: InsufficientCreditsBody = { error: message, code: 'INSUFFICIENT_CREDITS', message };
  return { status: 402, body };
}

/**
 * Bus subjects that steps call, served by the services that own tables and the assistant. Until
 * they are served, those steps fail with a clear error.
 */
export const STEP_SUBJECTS = {
  tableRow: 'storage.api.table_row.v1',
  assistantPrompt: 'chat.api.assistant_prompt.v1',
  /** Whether the assistant has a model: a workflow that needs one is refused without it. */
  assistantModel: 'chat.api.assistant_model.v1',
} as const;
export const AssistantModelRequest = z.object({});
export const AssistantModelReply = z.object({ configured: z.boolean() });
export const TableRowRequest = z.object({
  workspaceId: z.uuid(),
  userId: z.uuid(),
  tableId: z.string(),
  values: z.record(z.string(), z.unknown()),
});
export const TableRowReply = z.object({ row: z.record(z.string(), z.unknown()) });
export const AssistantPromptRequest = z.object({
  workspaceId: z.uuid(),
  userId: z.uuid(),
  prompt: z.string(),
});
export const AssistantPromptReply = z.object({ text: z.string() });

const workflowNotFound = { description: 'Not found, or not a member', schema: ErrorBodySchema };

/** The REST routes of workflow-runner (workflows, runs, test events). */
export const workflowRoutes = defineRoutes([
  {
    operationId: 'list_step_types',
    summary: 'Step types with their credit price and the JSON Schema of their settings',
    method: 'GET',
    path: '/workflows/step-types',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_step_types.v2',
    previousSubject: 'workflow.api.list_step_types.v1',
    auth: 'session',
    bodyKind: 'none',
    responses: {
      200: { description: 'The step types', schema: StepTypesResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'create_workflow',
    summary: 'Create a workflow (draft) with its Custom Webhook address',
    method: 'POST',
    path: '/workflows',
    owner: 'workflow-runner',
    subject: 'workflow.api.create_workflow.v2',
    previousSubject: 'workflow.api.create_workflow.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { body: CreateWorkflowBody },
    responses: {
      201: { description: 'Created', schema: WorkflowWithWebhook },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'list_workflows',
    summary: "The workspace's workflows, newest first",
    method: 'GET',
    path: '/workflows',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_workflows_of_workspace.v2',
    previousSubject: 'workflow.api.list_workflows_of_workspace.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { query: WorkspaceQuery },
    responses: {
      200: { description: 'The workflows', schema: WorkflowListResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'get_workflow',
    summary: 'One workflow',
    method: 'GET',
    path: '/workflows/:id',
    owner: 'workflow-runner',
    subject: 'workflow.api.get_workflow.v2',
    previousSubject: 'workflow.api.get_workflow.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams },
    responses: {
      200: { description: 'The workflow', schema: WorkflowWithWebhook },
      ...sessionErrorResponses,
      404: workflowNotFound,
    },
  },
  {
    operationId: 'update_workflow',
    summary: 'Change name, trigger (null removes it), steps or settings',
    method: 'PATCH',
    path: '/workflows/:id',
    owner: 'workflow-runner',
    subject: 'workflow.api.update_workflow.v2',
    previousSubject: 'workflow.api.update_workflow.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: WorkflowIdParams, body: UpdateWorkflowBody },
    responses: {
      200: { description: 'The workflow', schema: WorkflowWithWebhook },
      ...sessionErrorResponses,
      404: workflowNotFound,
    },
  },
  {
    operationId: 'delete_workflow',
    summary: 'Delete a workflow; its address answers 404 from then on, its runs stay readable',
    method: 'DELETE',
    path: '/workflows/:id',
    owner: 'workflow-runner',
    subject: 'workflow.api.delete_workflow.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams },
    responses: { 204: { description: 'Deleted' }, ...sessionErrorResponses, 404: workflowNotFound },
  },
  {
    operationId: 'run_workflow',
    summary: 'The user action Run: one run on the chosen, else the latest, test event',
    method: 'POST',
    path: '/workflows/:id/run',
    owner: 'workflow-runner',
    subject: 'workflow.api.run_workflow.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: WorkflowIdParams, body: RunWorkflowBody },
    responses: {
      202: { description: 'The run is queued', schema: RunStartedResponse },
      402: { description: 'INSUFFICIENT_CREDITS', schema: InsufficientCreditsBody },
      ...sessionErrorResponses,
      404: workflowNotFound,
    },
  },
  {
    operationId: 'set_workflow_live',
    summary: 'Set live: webhook requests start runs from now on',
    method: 'POST',
    path: '/workflows/:id/live',
    owner: 'workflow-runner',
    subject: 'workflow.api.set_workflow_live.v2',
    previousSubject: 'workflow.api.set_workflow_live.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams },
    responses: {
      200: { description: 'Live', schema: WorkflowResponse },
      409: { description: 'Not Run yet, or no trigger', schema: ErrorBodySchema },
      ...sessionErrorResponses,
      404: workflowNotFound,
    },
  },
  {
    operationId: 'set_workflow_draft',
    summary: 'Back to draft: webhook requests are only saved as test events',
    method: 'POST',
    path: '/workflows/:id/draft',
    owner: 'workflow-runner',
    subject: 'workflow.api.set_workflow_draft.v2',
    previousSubject: 'workflow.api.set_workflow_draft.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams },
    responses: {
      200: { description: 'Draft', schema: WorkflowResponse },
      ...sessionErrorResponses,
      404: workflowNotFound,
    },
  },
  {
    operationId: 'duplicate_workflow',
    summary: 'Copy a workflow (as a draft) with a new webhook address',
    method: 'POST',
    path: '/workflows/:id/duplicate',
    owner: 'workflow-runner',
    subject: 'workflow.api.duplicate_workflow.v2',
    previousSubject: 'workflow.api.duplicate_workflow.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams },
    responses: {
      201: { description: 'The copy', schema: WorkflowWithWebhook },
      ...sessionErrorResponses,
      404: workflowNotFound,
    },
  },
  {
    operationId: 'list_test_events',
    summary: "The workflow's captured webhook requests, newest first",
    method: 'GET',
    path: '/workflows/:id/test-events',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_test_events.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams },
    responses: {
      200: { description: 'The test events', schema: TestEventsResponse },
      ...sessionErrorResponses,
      404: workflowNotFound,
    },
  },
  {
    operationId: 'list_runs',
    summary:
      "The workflow's runs, newest first, cursor-paged, by status, trigger, time and event, with counts",
    method: 'GET',
    path: '/workflows/:id/runs',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_runs.v2',
    previousSubject: 'workflow.api.list_runs.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams, query: ListRunsQuery },
    responses: {
      200: { description: 'A page of runs', schema: RunListResponse },
      400: {
        description: 'VALIDATION_ERROR (also a cursor not issued here)',
        schema: ErrorBodySchema,
      },
      ...sessionErrorResponses,
      404: workflowNotFound,
    },
  },
  {
    operationId: 'retry_run',
    summary: 'Retry an ended run, from its failed step or from the start, as a new run',
    method: 'POST',
    path: '/runs/:runId/retry',
    owner: 'workflow-runner',
    subject: 'workflow.api.retry_run.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: RunIdParams, body: RetryRunBody },
    responses: {
      202: { description: 'The retry is queued: a new run', schema: RunStartedResponse },
      ...sessionErrorResponses,
      402: {
        description: 'Not enough credits for the steps to run again',
        schema: ErrorBodySchema,
      },
      403: {
        description: 'The workspace does not let the caller run this workflow',
        schema: ErrorBodySchema,
      },
      404: workflowNotFound,
      409: {
        description: 'The run has not ended, or has no failed step to retry from',
        schema: ErrorBodySchema,
      },
    },
  },
  {
    operationId: 'cancel_run',
    summary: 'Cancel a run: its running step is stopped, no later step runs',
    description:
      'Answers the run once the cancel took hold (status cancelled), or with the final status of a run that ended first (decision 156).',
    method: 'POST',
    path: '/runs/:runId/cancel',
    owner: 'workflow-runner',
    subject: 'workflow.api.cancel_run.v2',
    previousSubject: 'workflow.api.cancel_run.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: RunIdParams },
    responses: {
      200: { description: 'The run as the cancel left it', schema: RunResponse },
      ...sessionErrorResponses,
      403: {
        description: 'The workspace does not let the caller run this workflow',
        schema: ErrorBodySchema,
      },
      404: workflowNotFound,
    },
  },
  {
    operationId: 'get_run',
    summary: 'One run with its steps',
    method: 'GET',
    path: '/runs/:runId',
    owner: 'workflow-runner',
    subject: 'workflow.api.get_run_details.v2',
    previousSubject: 'workflow.api.get_run_details.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: RunIdParams },
    responses: {
      200: { description: 'The run and its retries', schema: RunDetailsResponse },
      ...sessionErrorResponses,
      404: workflowNotFound,
    },
  },
] as const);
