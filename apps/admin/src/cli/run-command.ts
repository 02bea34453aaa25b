import type { Logger } from 'pino';
import { AppError, inboxPrefixOf } from '@wap/contracts';
import {
  BusTimeoutError,
  createDistributedPlatform,
  NoRespondersError,
  withNamespace,
  type Platform,
} from '@wap/platform';
import { withBusKeys } from '@wap/service-runtime';
import type { AdminEnv } from '../config';
import { rotateCredentialsKey } from '../credentials/rotate-credentials-key';
import { grantCredits } from '../credits/grant-credits';
import type { AdminContext } from '../operator';
import { retryRun, retryText } from '../runs/retry-run';
import { developmentSessionCookie, signInLink } from '../sessions/session-command';
import { listDeadLetters, replayDeadLetter } from '../streams/dead-letters';
import { streamStates } from '../streams/stream-state';
import { deleteWorkspace, listWorkspaces } from '../workspaces/workspace-commands';
import { EXIT, USAGE, UsageError, type AdminCommand, type CommandLine } from './command-line';
import { deadLettersText, grantText, streamsText, workspacesText } from './text-output';

/** Where the CLI writes: stdout for results, stderr for errors. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

/** A result, both as data (for --json) and as a line or table for a person. */
interface Outcome {
  data: unknown;
  text: string;
}

const OWNERS: Record<string, string> = {
  storage: 'storage',
  workflow: 'workflow-runner',
  mcp: 'mcp-registry',
  $JS: 'JetStream',
};

/** The service that serves a subject (namespace prefix or not), to say which one to look at. */
function ownerOf(subject: string, namespace: string | undefined): string {
  const local =
    namespace && subject.startsWith(`${namespace}.`)
      ? subject.slice(namespace.length + 1)
      : subject;
  return OWNERS[local.split('.')[0] ?? ''] ?? 'the service';
}

async function runOnPlatform(
  command: Exclude<AdminCommand, { kind: 'help' | 'session' | 'sign-in-link' }>,
  context: AdminContext,
): Promise<Outcome> {
  switch (command.kind) {
    case 'grant-credits': {
      const result = await grantCredits(context, command);
      return { data: result, text: grantText(result) };
    }
    case 'list-workspaces': {
      const workspaces = await listWorkspaces(context, command);
      return { data: { workspaces }, text: workspacesText(workspaces) };
    }
    case 'delete-workspace': {
      const result = await deleteWorkspace(context, command.workspaceId);
      return {
        data: result,
        text: result.deleted
          ? `deleted workspace ${result.workspaceId}`
          : `workspace ${result.workspaceId} was already deleted`,
      };
    }
    case 'rotate-credentials-key': {
      const result = await rotateCredentialsKey(context);
      return {
        data: result,
        text: `${result.rewrapped} stored credential(s) of MCP servers, connected accounts and provider connections re-wrapped; all are now under key ${result.keyId}`,
      };
    }
    case 'streams': {
      const streams = await streamStates(context);
      return { data: { streams }, text: streamsText(streams) };
    }
    case 'list-dead-letters': {
      const deadLetters = await listDeadLetters(context);
      return { data: { deadLetters }, text: deadLettersText(deadLetters) };
    }
    case 'retry-run': {
      const retried = await retryRun(context, command);
      return { data: retried, text: retryText(retried) };
    }
    case 'replay-dead-letter': {
      const replayed = await replayDeadLetter(context, command.seq);
      return {
        data: replayed,
        text: `dead letter ${replayed.seq} published again to ${replayed.subject} (seq ${replayed.replayedSeq}) and removed`,
      };
    }
  }
}

async function connect(env: AdminEnv, logger: Logger): Promise<Platform> {
  try {
    return await createDistributedPlatform({
      natsUrl: env.NATS_URL,
      serviceName: 'admin',
      logger,
      nats: {
        nkeySeed: env.NATS_NKEY_SEED,
        inboxPrefix: inboxPrefixOf('operator'),
        tlsCaFile: env.NATS_TLS_CA_FILE,
      },
    });
  } catch (error) {
    throw new UnavailableError(
      `cannot reach NATS at ${env.NATS_URL}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

class UnavailableError extends Error {}

async function outcomeOf(command: AdminCommand, env: AdminEnv, logger: Logger): Promise<Outcome> {
  if (command.kind === 'help') return { data: { usage: USAGE }, text: USAGE };
  if (command.kind === 'session') {
    const result = await developmentSessionCookie(env, command);
    return { data: result, text: result.cookie };
  }
  if (command.kind === 'sign-in-link') {
    const result = await signInLink(env, command);
    return { data: result, text: result.link };
  }
  if (!env.BUS_SIGNING_KEY || !env.BUS_TRUSTED_KEYS) {
    throw new UsageError(
      'BUS_SIGNING_KEY (the operator key) and BUS_TRUSTED_KEYS are required: services answer only signed requests',
    );
  }
  const keys = { signingKey: env.BUS_SIGNING_KEY, trustedKeys: env.BUS_TRUSTED_KEYS };
  const server = await connect(env, logger);
  try {
    const platform = await withBusKeys(
      env.NATS_NAMESPACE ? withNamespace(server, env.NATS_NAMESPACE) : server,
      'operator',
      keys,
      logger,
    );
    return await runOnPlatform(command, {
      platform,
      server,
      namespace: env.NATS_NAMESPACE,
      timeoutMs: env.ADMIN_REQUEST_TIMEOUT_MS,
    });
  } finally {
    await server.close();
  }
}

/** Runs one parsed command line and returns the process's exit status. */
export async function runCommand(
  commandLine: CommandLine,
  env: AdminEnv,
  logger: Logger,
  output: CommandOutput,
): Promise<number> {
  try {
    const outcome = await outcomeOf(commandLine.command, env, logger);
    output.out(commandLine.json ? JSON.stringify(outcome.data, null, 2) : outcome.text);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof AppError) {
      output.err(`error: ${error.message} (${error.code})`);
      return EXIT.failed;
    }
    if (error instanceof NoRespondersError || error instanceof BusTimeoutError) {
      const namespace = env.NATS_NAMESPACE ? ` in namespace ${env.NATS_NAMESPACE}` : '';
      output.err(
        `error: ${ownerOf(error.subject, env.NATS_NAMESPACE)} did not answer on ${error.subject}${namespace} ` +
          `(${error instanceof NoRespondersError ? 'no responders' : 'timed out'}): is it running?`,
      );
      return EXIT.unavailable;
    }
    if (error instanceof UnavailableError) {
      output.err(`error: ${error.message}`);
      return EXIT.unavailable;
    }
    if (error instanceof UsageError) {
      output.err(`error: ${error.message}`);
      return EXIT.usage;
    }
    output.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.failed;
  }
}
