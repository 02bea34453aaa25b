import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  eventually,
  freePort,
  repositoryRoot,
  runCommand,
  type RunningProcess,
} from '@wap/testing';

/** The README's set-up section: from its heading to the next one. */
function setUpSection(): string {
  const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('## Set up');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end);
}

/** The section's `sh` blocks, in order. */
function shellBlocks(section: string): string[] {
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

/** The one block that contains `marker`. */
function blockWith(blocks: string[], marker: string): string {
  const found = blocks.filter((block) => block.includes(marker));
  if (found.length !== 1) throw new Error(`${found.length} README blocks contain ${marker}`);
  return found[0] ?? '';
}

/**
 * The README followed as a new user follows it: `npm start` on a port of one's choosing, then
 * its curl blocks pasted in order into one shell, then the example MCP server and the restart it
 * prints, then the `/tool` block. The only change made to the text is the port number, which the
 * README keeps in one variable: so a port written anywhere else fails here.
 */
describe('the README, followed as written', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wap-readme-'));
  const stateFile = join(dataDir, 'shell-state.sh');
  const blocks = shellBlocks(setUpSection());
  const running: RunningProcess[] = [];
  let platform: RunningProcess | undefined;
  let port = '';

  /**
   * What a fresh shell has: no test settings, no session secret of another run. The data folder
   * is the test's own, and npm start's web build leaves no Nx daemon behind.
   */
  const userEnv = (extra: Record<string, string> = {}) => ({
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    DATA_DIR: dataDir,
    NX_DAEMON: 'false',
    NX_NO_CLOUD: 'true',
    ...extra,
  });

  async function startPlatform(extra: Record<string, string> = {}): Promise<void> {
    await platform?.stop('SIGTERM');
    platform = runCommand('npm start', 'npm', ['start'], userEnv({ PORT: port, ...extra }));
    running.push(platform);
    await platform.waitForLine(/Platform running at http/, 120_000);
  }

  /**
   * Runs README blocks in bash as pasted, in the shell state the earlier ones left, and keeps
   * the state for the next; a failed command fails the test with everything it printed.
   */
  async function paste(...pasted: string[]): Promise<string> {
    const script = [
      'set -eo pipefail',
      `[ -f '${stateFile}' ] && . '${stateFile}'`,
      ...pasted.map((block) => block.replaceAll('3100', port)),
      `declare -p BASE COOKIE WORKSPACE_ID WORKFLOW_ID WEBHOOK_ID CHAT_ID REQUEST_ID SERVER_ID 2>/dev/null | sed 's/^declare -[^ ]* /declare -g /' > '${stateFile}' || true`,
      `declare -f json >> '${stateFile}'`,
      `echo "export PORT=$PORT DEV_SIGN_IN=$DEV_SIGN_IN" >> '${stateFile}'`,
    ].join('\n');
    const shell = runCommand('bash', 'bash', ['-c', script], userEnv());
    running.push(shell);
    const exited = await shell.exited;
    if (exited !== 0) throw new Error(`a README block failed (exit ${exited}):\n${shell.output()}`);
    return shell.output();
  }

  const state = (name: string) =>
    readFileSync(stateFile, 'utf8').match(new RegExp(`${name}="([^"]*)"`))?.[1] ?? '';

  beforeAll(async () => {
    port = String(await freePort());
    writeFileSync(stateFile, '');
  });
  afterAll(async () => {
    for (const started of running.reverse()) await started.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the set-up section starts the platform with PORT=3100 and no other port', () => {
    expect(blocks).toContain('PORT=3100 npm start\n');
    const elsewhere = blocks.join('\n').match(/localhost:\d+|127\.0\.0\.1:(?!3443)\d+/g) ?? [];
    expect(elsewhere).toEqual([]);
  });

  test('a session, a workspace, credits, a workflow run by hand and by its webhook', async () => {
    await startPlatform();
    const signedIn = await paste(blockWith(blocks, 'WORKSPACE_ID=$('));
    expect(signedIn).toContain('"email":"you@example.com"');
    expect(state('WORKSPACE_ID')).toMatch(/^[0-9a-f-]{36}$/);

    await paste(blockWith(blocks, 'credits/grants'));
    const workflowId = state('WORKFLOW_ID');
    expect(workflowId).toMatch(/^[0-9a-f-]{36}$/);
    expect(state('WEBHOOK_ID')).not.toBe('');
    // The run by hand and the run the webhook started both succeed.
    await eventually(async () => {
      const runs = JSON.parse(
        await paste(`curl -sf -b "$COOKIE" $BASE/workflows/$WORKFLOW_ID/runs`),
      ) as { runs: { status: string; trigger_type?: string }[] };
      expect(runs.runs.map((run) => run.status)).toEqual(['succeeded', 'succeeded']);
    }, 30_000);
  }, 240_000);

  test('a chat turn streams its events, and the stop line answers for its request id', async () => {
    const streamed = await paste(blockWith(blocks, 'CHAT_ID=$('));
    expect(state('CHAT_ID')).toMatch(/^[0-9a-f-]{36}$/);
    expect(state('REQUEST_ID')).not.toBe('');
    // No model is configured here: the turn says so in its events.
    expect(streamed).toMatch(/^event: /m);
    expect(streamed).toContain('No language model is configured');
    // The turn had ended: the stop finds nothing left to stop, and says so for that turn.
    expect(streamed.trim().split('\n').at(-1)).toContain(`"requestId":"${state('REQUEST_ID')}"`);
  }, 120_000);

  test('/tool calls a tool of the example MCP server, with the platform restarted as it prints', async () => {
    const example = runCommand('example:mcp', 'npm', ['run', 'example:mcp'], userEnv());
    running.push(example);
    const [, printed] = await example.waitForLine(
      /^ {2}(MCP_SSRF_ALLOWLIST=\S+ MCP_EXTRA_CA_CERTS=\S+) npm start$/m,
      120_000,
    );
    const restartEnv = Object.fromEntries(
      (printed ?? '').split(' ').map((assignment) => assignment.split('=') as [string, string]),
    );
    await startPlatform(restartEnv);

    const called = await paste(blockWith(blocks, 'SERVER_ID=$('));
    expect(state('SERVER_ID')).toMatch(/^[0-9a-f-]{36}$/);
    expect(called).toContain('Echo: hi');
  }, 240_000);
});
