import { z } from 'zod';
import { GrantCreditsBody } from '@wap/contracts';

/** What one invocation of the admin CLI asks for. */
export type AdminCommand =
  | { kind: 'help' }
  | { kind: 'grant-credits'; workspaceId: string; amount: number; reason: string }
  | { kind: 'list-workspaces'; includeDeleted: boolean }
  | { kind: 'delete-workspace'; workspaceId: string }
  | { kind: 'session'; email: string; name?: string; platformAdmin: boolean }
  | { kind: 'sign-in-link'; email: string; name?: string; platformAdmin: boolean }
  | { kind: 'rotate-credentials-key' }
  | { kind: 'list-dead-letters' }
  | { kind: 'replay-dead-letter'; seq: number }
  | { kind: 'retry-run'; runId: string; from: 'failed_step' | 'start' }
  | { kind: 'streams' };

export interface CommandLine {
  command: AdminCommand;
  /** Print the result as one JSON document instead of text. */
  json: boolean;
}

/** Exit statuses, so scripts can tell a refusal from a typo from an unreachable platform. */
export const EXIT = {
  ok: 0,
  /** The owning service refused or failed (its Error code is printed). */
  failed: 1,
  /** The command line was wrong; the usage text follows. */
  usage: 2,
  /** NATS, or the service that owns the data, did not answer. */
  unavailable: 3,
} as const;

export const USAGE = `usage: npm run admin -- <command> [--json]
       (in an image: node dist/apps/admin/src/main.js <command> [--json])

commands:
  credits grant <workspaceId> <amount> --reason <text>
        add credits to a workspace (a negative amount is a correction)
  workspaces list [--all]
        every workspace with its members and owners; --all includes deleted ones
  workspaces delete <workspaceId>
        soft-delete a workspace (its webhooks then answer 410)
  session <email> [name] [--admin]
        print a development session cookie (only with DEV_SIGN_IN=on, never in production)
  sign-in-link <email> [name] [--admin]
        print a one-time sign-in link, good for ten minutes, for a gateway with
        secret-signed sessions (refused when NODE_ENV=production)
  credentials rotate
        re-wrap every stored MCP credential under the newest key of mcp-registry's
        CREDENTIALS_ENCRYPTION_KEYS; run it after every replica has the new key first
  streams
        JetStream streams, KV and object buckets of the deployment, with their consumers
  dead-letters list
        the newest 100 messages consumers gave up on: where from, why, after how many tries
  dead-letters replay <seq>
        publish dead letter <seq> again where it came from, and remove it
  runs retry <runId> [--from-start]
        retry an ended run as a new run, from its failed step (or from the start),
        acting as the run's own user and charged to its workspace
  help
        this text

options:
  --json   print the result as JSON

environment:
  NATS_URL, NATS_NAMESPACE    the deployment's NATS, as the services have them
  ADMIN_REQUEST_TIMEOUT_MS    how long to wait for a service (default 10000)
  SESSION_JWT_SECRET, DATA_DIR   the secret sessions are signed with (session, sign-in-link)
  PUBLIC_BASE_URL             the platform's address, for sign-in-link (http://localhost:3000)

exit status: 0 done, 1 refused or failed, 2 usage error, 3 NATS or the service unavailable`;

/** A command line that cannot be run; its message says why, and the usage text follows it. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const FLAGS = new Set(['--json', '--all', '--admin', '--help', '--from-start']);
const VALUED = new Set(['--reason']);

/** Splits argv into positionals, flags and valued options; numbers such as -5 stay positional. */
function tokenize(argv: readonly string[]): {
  positionals: string[];
  flags: Set<string>;
  values: Map<string, string>;
} {
  const positionals: string[] = [];
  const flags = new Set<string>();
  const values = new Map<string, string>();
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (!argument.startsWith('-') || /^-\d+$/.test(argument)) {
      positionals.push(argument);
      continue;
    }
    const [name, inline] = argument.split(/=(.*)/s, 2) as [string, string | undefined];
    if (FLAGS.has(name) && inline === undefined) {
      flags.add(name);
    } else if (VALUED.has(name)) {
      const value = inline ?? argv[(index += 1)];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      values.set(name, value);
    } else {
      throw new UsageError(`unknown option ${argument}`);
    }
  }
  return { positionals, flags, values };
}

function allowOnly(flags: Set<string>, values: Map<string, string>, allowed: string[]): void {
  for (const name of [...flags, ...values.keys()]) {
    if (name !== '--json' && !allowed.includes(name)) {
      throw new UsageError(`${name} does not apply to this command`);
    }
  }
}

function expectCount(positionals: string[], count: number, shape: string): void {
  if (positionals.length !== count) throw new UsageError(`expected: ${shape}`);
}

function workspaceIdOf(value: string | undefined): string {
  const parsed = z.uuid().safeParse(value);
  if (!parsed.success) throw new UsageError(`not a workspace id (a UUID): ${value ?? ''}`);
  return parsed.data;
}

/** Parses the arguments after `npm run admin --`; throws UsageError for anything it cannot run. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const { positionals, flags, values } = tokenize(argv);
  const json = flags.has('--json');
  const [noun, verb, ...rest] = positionals;
  if (flags.has('--help') || noun === undefined || noun === 'help') {
    return { command: { kind: 'help' }, json };
  }
  const line = `${noun} ${verb ?? ''}`.trim();
  switch (line) {
    case 'credits grant': {
      allowOnly(flags, values, ['--reason']);
      expectCount(rest, 2, 'credits grant <workspaceId> <amount> --reason <text>');
      const workspaceId = workspaceIdOf(rest[0]);
      const body = GrantCreditsBody.safeParse({
        amount: Number(rest[1]),
        reason: values.get('--reason') ?? '',
      });
      if (!body.success) {
        const problems = body.error.issues.map(
          (issue) => `${issue.path.join('.')}: ${issue.message}`,
        );
        throw new UsageError(`credits grant: ${problems.join('; ')}`);
      }
      return { command: { kind: 'grant-credits', workspaceId, ...body.data }, json };
    }
    case 'workspaces list':
      allowOnly(flags, values, ['--all']);
      expectCount(rest, 0, 'workspaces list [--all]');
      return { command: { kind: 'list-workspaces', includeDeleted: flags.has('--all') }, json };
    case 'workspaces delete':
      allowOnly(flags, values, []);
      expectCount(rest, 1, 'workspaces delete <workspaceId>');
      return { command: { kind: 'delete-workspace', workspaceId: workspaceIdOf(rest[0]) }, json };
    case 'dead-letters list':
      allowOnly(flags, values, []);
      expectCount(rest, 0, 'dead-letters list');
      return { command: { kind: 'list-dead-letters' }, json };
    case 'dead-letters replay': {
      allowOnly(flags, values, []);
      expectCount(rest, 1, 'dead-letters replay <seq>');
      const seq = Number(rest[0]);
      if (!Number.isSafeInteger(seq) || seq < 1) {
        throw new UsageError(`not a dead letter's sequence (a positive integer): ${rest[0] ?? ''}`);
      }
      return { command: { kind: 'replay-dead-letter', seq }, json };
    }
    case 'runs retry': {
      allowOnly(flags, values, ['--from-start']);
      expectCount(rest, 1, 'runs retry <runId> [--from-start]');
      const runId = z.uuid().safeParse(rest[0]);
      if (!runId.success) throw new UsageError(`not a run id (a UUID): ${rest[0] ?? ''}`);
      const from = flags.has('--from-start') ? 'start' : 'failed_step';
      return { command: { kind: 'retry-run', runId: runId.data, from }, json };
    }
    case 'credentials rotate':
      allowOnly(flags, values, []);
      expectCount(rest, 0, 'credentials rotate');
      return { command: { kind: 'rotate-credentials-key' }, json };
    default:
      break;
  }
  if (noun === 'session' || noun === 'sign-in-link') {
    allowOnly(flags, values, ['--admin']);
    const [email, name, ...extra] = positionals.slice(1);
    if (!email || !/^[^@\s]+@[^@\s]+$/.test(email) || extra.length > 0) {
      throw new UsageError(`expected: ${noun} <email> [name] [--admin]`);
    }
    return {
      command: { kind: noun, email, name, platformAdmin: flags.has('--admin') },
      json,
    };
  }
  if (noun === 'streams') {
    allowOnly(flags, values, []);
    expectCount(positionals, 1, 'streams');
    return { command: { kind: 'streams' }, json };
  }
  throw new UsageError(`unknown command: ${positionals.join(' ')}`);
}
