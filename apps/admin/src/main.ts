import pino from 'pino';
import { EXIT, parseCommandLine, USAGE, UsageError, type CommandLine } from './cli/command-line';
import { runCommand } from './cli/run-command';
import { loadConfig, type AdminEnv } from './config';

/** The admin CLI: `npm run admin -- <command>`, or `node dist/apps/admin/src/main.js` in an image. */
async function main(): Promise<number> {
  let commandLine: CommandLine;
  let env: AdminEnv;
  try {
    commandLine = parseCommandLine(process.argv.slice(2));
    env = loadConfig(process.env);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${message}\n`);
    if (error instanceof UsageError) process.stderr.write(`\n${USAGE}\n`);
    return EXIT.usage;
  }
  // Diagnostics go to stderr so that stdout stays the result alone (a cookie, JSON, a table).
  // Plain pino, not @wap/observability's logger: that one loads the OpenTelemetry SDK, over a
  // second of start-up for a command that records no traces.
  const logger = pino({ base: { service: 'admin' }, level: env.LOG_LEVEL }, pino.destination(2));
  return runCommand(commandLine, env, logger, {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  });
}

void main().then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = EXIT.failed;
  },
);
