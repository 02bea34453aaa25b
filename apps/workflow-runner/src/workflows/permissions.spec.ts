import { approvalsOf, contentOf, levelPermits, type WorkflowCaller } from './permissions';

const OWNER_OF_WORKFLOW = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';

describe('who a permission level lets act on a workflow', () => {
  const callers: Record<string, WorkflowCaller> = {
    'a member': { kind: 'person', userId: OTHER, role: 'member' },
    "the workflow's owner (a member)": {
      kind: 'person',
      userId: OWNER_OF_WORKFLOW,
      role: 'member',
    },
    'a workspace owner': { kind: 'person', userId: OTHER, role: 'owner' },
    'an API key': { kind: 'api_key' },
  };
  test.each([
    ['member', 'a member', true],
    ['member', 'an API key', true],
    ['workflow_owner', 'a member', false],
    ['workflow_owner', "the workflow's owner (a member)", true],
    ['workflow_owner', 'a workspace owner', true],
    ['workflow_owner', 'an API key', false],
    ['workspace_owner', "the workflow's owner (a member)", false],
    ['workspace_owner', 'a workspace owner', true],
    ['workspace_owner', 'an API key', false],
  ] as const)('%s lets %s act: %s', (level, caller, allowed) => {
    expect(levelPermits(level, callers[caller] as WorkflowCaller, OWNER_OF_WORKFLOW)).toBe(allowed);
  });
});

describe('what a workflow does, compared across a save', () => {
  const stored = {
    webhookId: 'a',
    customResponse: { enabled: true, body: '{}' },
    providerEvents: null,
    steps: [{ type: 'delay', name: 'wait', settings: { seconds: 1 } }],
  };

  test('key order (as jsonb gives it back) and the address itself do not count', () => {
    expect(
      contentOf({
        webhookId: 'new',
        customResponse: { body: '{}', enabled: true },
        providerEvents: undefined,
        steps: [{ settings: { seconds: 1 }, name: 'wait', type: 'delay' }],
      }),
    ).toBe(contentOf(stored));
  });

  test.each([
    ['a step setting', { steps: [{ type: 'delay', name: 'wait', settings: { seconds: 2 } }] }],
    ['a step name', { steps: [{ type: 'delay', name: 'later', settings: { seconds: 1 } }] }],
    ['the custom response', { customResponse: { enabled: false, body: '{}' } }],
    ['provider events', { providerEvents: { provider: 'github', events: ['push'] } }],
    ['the trigger removed', { webhookId: null }],
  ])('%s counts', (_label, change) => {
    expect(contentOf({ ...stored, ...change })).not.toBe(contentOf(stored));
  });

  test('approval steps are compared by their settings, in order', () => {
    const review = (reviewerIds: string[]) => ({
      type: 'approval' as const,
      settings: { reviewerIds },
    });
    const delay = { type: 'delay' as const, settings: { seconds: 1 } };
    expect(approvalsOf([delay, review([OTHER])])).toBe(approvalsOf([review([OTHER])]));
    expect(approvalsOf([review([OTHER])])).not.toBe(approvalsOf([]));
    expect(approvalsOf([review([OTHER])])).not.toBe(approvalsOf([review([OWNER_OF_WORKFLOW])]));
  });
});
