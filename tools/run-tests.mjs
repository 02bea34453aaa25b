// `npm test`: the same checks locally and in CI — format, dead code and unused dependencies
// (knip.json), lint (module boundaries included), typecheck, build, then every
// project's tests against real NATS and PostgreSQL — ending with one "N passed, N failed" line.
// Run with tsx (`npm test`): the servers are chosen by tools/test-services.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chooseTestServices, machineProbes, startTestServices } from './test-services.ts';

const resultsDir = join('tmp', 'test-results');
rmSync(resultsDir, { recursive: true, force: true });

const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };
const steps = [
  ['format', 'npx', ['prettier', '--check', '.']],
  ['dead code and dependencies', 'npx', ['knip', '--no-progress']],
  [
    'lint, typecheck, build',
    'npx',
    ['nx', 'run-many', '-t', 'lint', 'typecheck', 'build', '--outputStyle=static'],
  ],
  [
    'tests',
    'npx',
    ['nx', 'run-many', '-t', 'test', '--outputStyle=static', '--parallel=1', '--skip-nx-cache'],
  ],
];

// An interrupted step (Ctrl-C reaches the step too) still stops the servers started below.
let interrupted = false;
process.on('SIGINT', () => (interrupted = true));

let failedStep;
let services;
for (const [name, command, args] of steps) {
  if (name === 'tests') {
    console.log('\n=== NATS and PostgreSQL for the tests');
    try {
      const probes = machineProbes();
      services = await startTestServices(await chooseTestServices(env, probes), probes);
    } catch (error) {
      console.error(error instanceof Error ? error.message : error);
      failedStep = 'starting NATS and PostgreSQL';
      break;
    }
    for (const line of services.description) console.log(line);
    Object.assign(env, services.env);
  }
  if (interrupted) {
    failedStep = name;
    break;
  }
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`);
  const { status } = spawnSync(command, args, { stdio: 'inherit', env });
  if (status !== 0 || interrupted) {
    failedStep = name;
    break;
  }
}
await services?.stop();

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
if (existsSync(resultsDir)) {
  for (const file of readdirSync(resultsDir)) {
    const result = JSON.parse(readFileSync(join(resultsDir, file), 'utf8'));
    passed += result.passed;
    failed += result.failed;
    skipped += result.skipped;
    for (const failure of result.failures ?? [])
      failures.push({ project: result.project, ...failure });
  }
}
for (const failure of failures) {
  console.error(`\n✕ ${failure.project}: ${failure.path} › ${failure.test}\n${failure.message}`);
}
if (failedStep) console.error(`\n${failedStep} failed`);
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failedStep || failed > 0 || passed === 0 ? 1 : 0);
