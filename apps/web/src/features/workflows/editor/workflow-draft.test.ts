import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { CreateWorkflowBody, STEP_SETTINGS, type StepType, type Workflow } from '@wap/contracts';
import { ApiError } from '../../../lib/api';
import type { StepTypeInfo } from '../api/workflows-api';
import {
  defaultStepName,
  draftCreditCost,
  draftOf,
  errorsFromResponse,
  hasErrors,
  moveStep,
  newDraft,
  newStep,
  savedDraft,
  toRequest,
  validateDraft,
  type WorkflowDraft,
} from './workflow-draft';

const PRICES: Record<StepType, number> = {
  http_request: 1,
  delay: 0,
  mcp_tool: 2,
  assistant_prompt: 5,
  approval: 0,
  table_row: 1,
  if: 0,
  switch: 0,
  for_each: 0,
  call_workflow: 0,
  set: 0,
  stop: 0,
};
const stepTypes: StepTypeInfo[] = (Object.keys(STEP_SETTINGS) as StepType[]).map((type) => ({
  type,
  credit_price: PRICES[type],
  settings_schema: z.toJSONSchema(STEP_SETTINGS[type], { io: 'input' }) as Record<string, unknown>,
}));
function info(type: StepType): StepTypeInfo {
  const found = stepTypes.find((candidate) => candidate.type === type);
  if (!found) throw new Error(`no step type ${type}`);
  return found;
}
const REVIEWER = '4f8c1d5e-6a7b-4c8d-9e0f-1a2b3c4d5e6f';

function draftWith(steps: WorkflowDraft['steps']): WorkflowDraft {
  return { ...newDraft(), name: 'Orders', steps };
}

describe('the editor draft', () => {
  test('a filled draft becomes a body the contracts accept', () => {
    const delay = { ...newStep(info('delay'), []), settings: { seconds: 1 } };
    const approval = newStep(info('approval'), [delay]);
    approval.settings = { reviewerIds: [REVIEWER, ''], message: 'Ship it?' };
    const draft = draftWith([delay, approval]);
    expect(hasErrors(validateDraft(draft, stepTypes))).toBe(false);
    const body = { workspaceId: REVIEWER, ...toRequest(draft, stepTypes) };
    expect(CreateWorkflowBody.safeParse(body).success).toBe(true);
    expect(body.steps).toEqual([
      { type: 'delay', name: 'Delay', settings: { seconds: 1 } },
      {
        type: 'approval',
        name: 'Approval',
        settings: { reviewerIds: [REVIEWER], message: 'Ship it?' },
      },
    ]);
    expect(body.settings).toEqual({
      runningHours: null,
      queueOutsideWindow: true,
      stopOnNodeFailure: true,
      failureAlerts: null,
    });
  });

  test('each problem is put on its field, by step', () => {
    const delay = newStep(info('delay'), []);
    const approval = { ...newStep(info('approval'), [delay]), name: 'Delay' };
    const http = { ...newStep(info('http_request'), []), name: 'fetch.order' };
    const draft = { ...draftWith([delay, approval, http]), name: '  ' };
    const errors = validateDraft(draft, stepTypes);
    expect(errors.fields).toEqual({ name: 'Enter a value.' });
    expect(errors.steps[delay.key]).toEqual({ settings: { seconds: 'Enter a value.' } });
    expect(errors.steps[approval.key]).toEqual({
      name: 'Another step has this name.',
      settings: { reviewerIds: 'Enter at least 1.' },
    });
    expect(errors.steps[http.key]).toEqual({
      name: 'A step name cannot contain dots or braces.',
      settings: { url: 'Enter a value.' },
    });
  });

  test('running hours need a day', () => {
    const draft = {
      ...draftWith([]),
      runningHoursEnabled: true,
      runningHours: { timezone: 'UTC', days: [], start: '09:00', end: '17:00' },
    };
    expect(validateDraft(draft, stepTypes).fields).toEqual({
      'runningHours.days': 'Choose at least one day.',
    });
  });

  test('new steps are named by their type, numbered when the name is taken', () => {
    const first = newStep(info('delay'), []);
    expect(first.name).toBe('Delay');
    expect(defaultStepName('delay', [first])).toBe('Delay 2');
    expect(defaultStepName('http_request', [first])).toBe('HTTP request');
  });

  test('steps move up and down, and stay put at either end', () => {
    expect(moveStep(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moveStep(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moveStep(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moveStep(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
  });

  test('the credit cost follows the step types’ prices', () => {
    expect(
      draftCreditCost(
        [{ type: 'http_request' }, { type: 'assistant_prompt' }, { type: 'delay' }],
        stepTypes,
      ),
    ).toBe(6);
  });

  test('a saved workflow becomes a draft again, keeping the keys of steps in place', () => {
    const workflow: Workflow = {
      id: REVIEWER,
      workspace_id: REVIEWER,
      name: 'Orders',
      status: 'draft',
      trigger: {
        type: 'custom_webhook',
        webhook_id: REVIEWER,
        customResponse: { enabled: true, body: '{"ok": true}' },
        providerEvents: { provider: 'linear', events: ['Issue.create', 'Comment'] },
      },
      steps: [{ type: 'delay', name: 'step_1', settings: { seconds: 2 } }],
      settings: {
        runningHours: { timezone: 'Europe/Berlin', days: [1, 2], start: '08:00', end: '18:00' },
        queueOutsideWindow: false,
        stopOnNodeFailure: true,
        failureAlerts: { enabled: true, memberIds: [REVIEWER], intervalMinutes: 30 },
      },
      credit_cost: 0,
      last_test_run_at: null,
      created_by: REVIEWER,
      owner_id: REVIEWER,
      runs_as: REVIEWER,
      version: 1,
      live_version: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    const draft = draftOf(workflow);
    expect(draft).toMatchObject({
      customResponseEnabled: true,
      customResponseBody: '{"ok": true}',
      providerEventsEnabled: true,
      provider: 'linear',
      providerEventsText: 'Issue.create, Comment',
      runningHoursEnabled: true,
      queueOutsideWindow: false,
      steps: [{ type: 'delay', name: 'step_1', settings: { seconds: 2 } }],
    });
    expect(toRequest(draft, [info('delay')]).trigger.providerEvents).toEqual({
      provider: 'linear',
      events: ['Issue.create', 'Comment'],
    });
    expect(
      toRequest({ ...draft, providerEventsEnabled: false }, [info('delay')]).trigger.providerEvents,
    ).toBeNull();
    expect(toRequest(draft, [info('delay')]).settings?.failureAlerts).toEqual({
      enabled: true,
      memberIds: [REVIEWER],
      intervalMinutes: 30,
    });
    expect(
      toRequest({ ...draft, failureAlertsEnabled: false }, [info('delay')]).settings?.failureAlerts,
    ).toBeNull();
    expect(validateDraft({ ...draft, alertIntervalMinutes: '2' }, [info('delay')]).fields).toEqual({
      alertIntervalMinutes: 'Use whole minutes from 5 to 1440.',
    });
    const [first] = draft.steps;
    if (!first) throw new Error('the draft has no step');
    const before = { ...first, name: '' };
    const after = savedDraft(workflow, { ...draft, steps: [before] });
    expect(after.steps[0]).toEqual({ ...before, name: 'step_1' });
  });

  test('a 400 from the service lands on the fields it names', () => {
    const delay = newStep(info('delay'), []);
    const draft = draftWith([delay]);
    const error = new ApiError(
      400,
      {
        error: 'Invalid request body',
        code: 'VALIDATION_ERROR',
        details: [
          {
            path: 'body.steps.0.settings.seconds',
            message: 'Too big: expected number to be <=604800',
          },
          { path: 'body.settings.runningHours.start', message: 'Invalid string' },
          { path: 'body.name', message: 'Too small' },
          { path: 'body.somethingElse', message: 'unexpected' },
        ],
      },
      'VALIDATION_ERROR',
    );
    expect(errorsFromResponse(error, draft)).toEqual({
      fields: { 'runningHours.start': 'Invalid string.', name: 'Too small.' },
      steps: { [delay.key]: { settings: { seconds: 'Too big: expected number to be <=604800.' } } },
      general: ['somethingElse: Unexpected.'],
    });
  });

  test("a step's retry, timeout and failure route go to the API in milliseconds and come back", () => {
    const call = newStep(info('http_request'), []);
    call.settings = { method: 'GET', url: 'https://example.com/orders' };
    call.policy = {
      ...call.policy,
      retryEnabled: true,
      attempts: '4',
      backoff: 'exponential',
      delaySeconds: '1.5',
      maxDelaySeconds: '30',
      jitter: false,
      on: ['server_error', 'timeout'],
      timeoutSeconds: '2',
      onFailure: 'run_workflow',
      failureWorkflowId: REVIEWER,
    };
    const body = toRequest(draftWith([call]), stepTypes);
    expect(body.steps[0]).toMatchObject({
      retry: {
        attempts: 4,
        backoff: 'exponential',
        delayMs: 1_500,
        maxDelayMs: 30_000,
        jitter: false,
        on: ['timeout', 'server_error'],
      },
      timeoutMs: 2_000,
      onFailure: { action: 'run_workflow', workflowId: REVIEWER },
    });
    expect(CreateWorkflowBody.safeParse({ workspaceId: REVIEWER, ...body }).success).toBe(true);
    const [saved] = CreateWorkflowBody.parse({ workspaceId: REVIEWER, ...body }).steps;
    if (!saved) throw new Error('the step is gone');
    const again = draftOf({
      ...workflowOf(body),
      steps: [{ ...saved, name: 'call' }],
    } as Workflow);
    expect(again.steps[0]?.policy).toEqual({ ...call.policy, on: ['timeout', 'server_error'] });
  });

  test('a policy that cannot hold is named on its field, and the defaults send nothing', () => {
    const call = newStep(info('http_request'), []);
    expect(toRequest(draftWith([call]), stepTypes).steps[0]).not.toHaveProperty('retry');
    call.policy = {
      ...call.policy,
      retryEnabled: true,
      attempts: '11',
      delaySeconds: 'soon',
      on: [],
      timeoutSeconds: '9999',
      onFailure: 'run_workflow',
      failureWorkflowId: '',
    };
    expect(validateDraft(draftWith([call]), stepTypes).steps[call.key]?.policy).toEqual({
      attempts: 'Use a whole number from 2 to 10 (the first attempt included).',
      delaySeconds: 'Wait at least 0.1 seconds.',
      on: 'Choose at least one failure to retry.',
      timeoutSeconds: 'Use 0.1 to 300 seconds, or leave it empty.',
      failureWorkflowId: 'Choose the workflow to start.',
    });
    const delay = newStep(info('delay'), []);
    delay.policy = { ...delay.policy, retryEnabled: true, timeoutSeconds: '3' };
    expect(toRequest(draftWith([delay]), stepTypes).steps[0]).toEqual({
      type: 'delay',
      name: 'Delay',
      settings: expect.anything(),
    });
  });

  test("the service's objection to a failure route lands on its field", () => {
    const call = newStep(info('http_request'), []);
    const error = new ApiError(
      400,
      {
        error: 'A failure route names a workflow it cannot start',
        code: 'VALIDATION_ERROR',
        details: [
          { path: 'body.steps.0.onFailure.workflowId', message: 'You may not run this workflow' },
        ],
      },
      'VALIDATION_ERROR',
    );
    expect(errorsFromResponse(error, draftWith([call])).steps[call.key]).toEqual({
      settings: {},
      policy: { failureWorkflowId: 'You may not run this workflow.' },
    });
  });
});

function workflowOf(body: ReturnType<typeof toRequest>): Omit<Workflow, 'steps'> {
  return {
    id: REVIEWER,
    workspace_id: REVIEWER,
    name: body.name,
    status: 'draft',
    trigger: null,
    settings: {
      runningHours: null,
      queueOutsideWindow: true,
      stopOnNodeFailure: true,
      failureAlerts: null,
    },
    credit_cost: 1,
    last_test_run_at: null,
    created_by: REVIEWER,
    owner_id: REVIEWER,
    runs_as: REVIEWER,
    version: 1,
    live_version: null,
    created_at: '2026-12-03T10:00:00.000Z',
    updated_at: '2026-12-03T10:00:00.000Z',
  };
}
