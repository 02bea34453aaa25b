import { parseCommandLine, UsageError } from './command-line';

const WORKSPACE = '0b6f1c1e-5d7a-4c55-9a55-3f1f0a3f7e10';

describe('parseCommandLine', () => {
  test.each([
    [[], { command: { kind: 'help' }, json: false }],
    [['--help'], { command: { kind: 'help' }, json: false }],
    [
      ['credits', 'grant', WORKSPACE, '10', '--reason', 'trial'],
      {
        command: { kind: 'grant-credits', workspaceId: WORKSPACE, amount: 10, reason: 'trial' },
        json: false,
      },
    ],
    [
      ['credits', 'grant', WORKSPACE, '-3', '--reason=a typo', '--json'],
      {
        command: { kind: 'grant-credits', workspaceId: WORKSPACE, amount: -3, reason: 'a typo' },
        json: true,
      },
    ],
    [
      ['workspaces', 'list', '--all'],
      { command: { kind: 'list-workspaces', includeDeleted: true }, json: false },
    ],
    [
      ['workspaces', 'delete', WORKSPACE],
      { command: { kind: 'delete-workspace', workspaceId: WORKSPACE }, json: false },
    ],
    [
      ['session', 'Ada@Example.com', 'Ada', '--admin'],
      {
        command: { kind: 'session', email: 'Ada@Example.com', name: 'Ada', platformAdmin: true },
        json: false,
      },
    ],
    [
      ['sign-in-link', 'ada@example.com'],
      {
        command: { kind: 'sign-in-link', email: 'ada@example.com', platformAdmin: false },
        json: false,
      },
    ],
    [['credentials', 'rotate'], { command: { kind: 'rotate-credentials-key' }, json: false }],
    [['streams', '--json'], { command: { kind: 'streams' }, json: true }],
    [
      ['runs', 'retry', WORKSPACE],
      { command: { kind: 'retry-run', runId: WORKSPACE, from: 'failed_step' }, json: false },
    ],
    [
      ['runs', 'retry', '--from-start', WORKSPACE, '--json'],
      { command: { kind: 'retry-run', runId: WORKSPACE, from: 'start' }, json: true },
    ],
  ])('%j', (argv, expected) => {
    expect(parseCommandLine(argv)).toEqual(expected);
  });

  test.each([
    [['credits', 'grant', 'nope', '5', '--reason', 'x'], 'not a workspace id (a UUID): nope'],
    [['credits', 'grant', WORKSPACE, '0', '--reason', 'x'], 'amount: amount must not be zero'],
    [['credits', 'grant', WORKSPACE, '1.5', '--reason', 'x'], 'amount: Invalid input'],
    [['credits', 'grant', WORKSPACE, '5'], 'reason: Too small'],
    [['credits', 'grant', WORKSPACE, '5', '--reason'], '--reason needs a value'],
    [['workspaces', 'list', '--admin'], '--admin does not apply to this command'],
    [['workspaces', 'delete'], 'expected: workspaces delete <workspaceId>'],
    [['session', 'not-an-email'], 'expected: session <email> [name] [--admin]'],
    [['streams', 'extra'], 'expected: streams'],
    [['runs', 'retry', 'run-7'], 'not a run id (a UUID): run-7'],
    [['runs', 'retry'], 'expected: runs retry <runId> [--from-start]'],
    [['workspaces', 'list', '--from-start'], '--from-start does not apply to this command'],
    [['--force'], 'unknown option --force'],
    [['workspaces', 'rename'], 'unknown command: workspaces rename'],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});
