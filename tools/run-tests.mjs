// `npm test`: the same checks locally and in CI — format, lint, typecheck, build, then every
// project's tests against real NATS and PostgreSQL — ending with one "N passed, N failed" line.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const resultsDir = join('tmp', 'test-results');
rmSync(resultsDir, { recursive: true, force: true });

const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };
const steps = [
  ['format', 'npx', ['prettier', '--check', '.']],
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

let failedStep;
for (const [name, command, args] of steps) {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`);
  const { status } = spawnSync(command, args, { stdio: 'inherit', env });
  if (status !== 0) {
    failedStep = name;
    break;
  }
}

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(resultsDir)) {
  for (const file of readdirSync(resultsDir)) {
    const result = JSON.parse(readFileSync(join(resultsDir, file), 'utf8'));
    passed += result.passed;
    failed += result.failed;
    skipped += result.skipped;
  }
}
if (failedStep) console.error(`\n${failedStep} failed`);
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failedStep || failed > 0 || passed === 0 ? 1 : 0);
