import path from 'node:path';
import type { Logger } from 'pino';
import { chatRoutes, BUS_APIS } from '@wap/contracts';
import { type Platform, type Subscription } from '@wap/platform';
import { serveApi, serveRoutes } from '@wap/bus-protocol';
import type { ServiceHandle } from '@wap/service-runtime';
import { createDirectoryClient } from '@wap/workspace-directory';
import { createAssistantPrompt } from './brain/assistant-prompt';
import { createModelClient, type ModelClient } from './brain/model-client';
import { chatSettings, type ChatSettings } from './config';
import { createConversationGuard } from './conversations/guard';
import { createConversationHandlers } from './conversations/handlers';
import { createConversationRepository } from './conversations/repository';
import { answerAccessDenied } from './http/access-denied';
import { createToolGateway } from './tools/tool-gateway';
import { createTurnHandlers } from './turns/handlers';
import { createTurnRepository } from './turns/repository';
import { createTurnRunner } from './turns/runner';
import { createTurnWaiters } from './turns/waiters';

const QUEUE_GROUP = 'chat';
const SQL_SCHEMA = 'chat';

export interface ChatServiceDeps {
  platform: Platform;
  logger: Logger;
  /** The chat settings (LLM_*, CHAT_*, TURN_*); defaults for any left out. */
  settings?: Partial<ChatSettings>;
  /** Folder of the drizzle-kit migrations; default `../migrations` from this file. */
  migrationsFolder?: string;
}

/** The assistant's turns: their rows, the runner that streams them, the waiters on their end. */
async function createTurns(
  platform: Platform,
  logger: Logger,
  settings: ChatSettings,
  model: ModelClient,
) {
  const repository = createTurnRepository({
    db: platform.sql.db,
    clock: platform.clock,
    ids: platform.ids,
  });
  const waiters = await createTurnWaiters({ bus: platform.bus, repository, logger });
  const tools = createToolGateway({
    bus: platform.bus,
    callTimeoutMs: settings.CHAT_TOOL_CALL_TIMEOUT_MS,
  });
  const runner = createTurnRunner({
    bus: platform.bus,
    repository,
    model,
    tools,
    settings,
    clock: platform.clock,
    ids: platform.ids,
    logger,
  });
  return { repository, waiters, runner };
}

/**
 * Composes the chat service: conversations with sharing and access requests (spec endpoint 1),
 * and turns of the assistant that stream from an OpenAI-compatible provider, call the caller's
 * MCP tools through mcp-registry, store their events for any replica to serve, and stop on
 * `POST /brain/cancel` (spec endpoint 6) whichever replica receives it.
 */
export async function startChatService(deps: ChatServiceDeps): Promise<ServiceHandle> {
  const { platform, logger } = deps;
  const settings = chatSettings(deps.settings);
  await platform.sql.migrate({
    schema: SQL_SCHEMA,
    migrationsFolder: deps.migrationsFolder ?? path.join(__dirname, '../migrations'),
  });
  const store = { db: platform.sql.db, clock: platform.clock, ids: platform.ids };
  const directory = await createDirectoryClient({ kv: platform.kv, logger });
  const conversations = createConversationRepository(store);
  const guard = createConversationGuard({ repository: conversations, directory });

  const model = createModelClient(settings, logger);
  const turns = await createTurns(platform, logger, settings, model);
  const turnHandlers = createTurnHandlers({
    guard,
    conversations,
    ...turns,
    clock: platform.clock,
    messageLimits: {
      perUserPerMinute: settings.CHAT_MESSAGES_PER_MINUTE_PER_USER,
      perWorkspacePerMinute: settings.CHAT_MESSAGES_PER_MINUTE_PER_WORKSPACE,
    },
  });
  const handlers = answerAccessDenied({
    ...createConversationHandlers({
      repository: conversations,
      guard,
      directory,
    }),
    ...turnHandlers,
  });

  const serveOptions = { queue: QUEUE_GROUP, logger };
  const subscriptions: Subscription[] = [
    ...serveRoutes(platform.bus, chatRoutes, 'chat', handlers, serveOptions),
    serveApi(
      platform.bus,
      BUS_APIS.assistantPrompt,
      createAssistantPrompt({ model, directory }),
      serveOptions,
    ),
    serveApi(
      platform.bus,
      BUS_APIS.assistantModel,
      async () => ({ configured: model.configured }),
      serveOptions,
    ),
  ];
  turns.runner.start();
  logger.info(
    { subjects: subscriptions.length, model: model.describe(), runtime: platform.runtime },
    'chat service serving',
  );

  return {
    async stop() {
      await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
      await turns.runner.stop();
      await turns.waiters.stop();
      await directory.stop();
    },
  };
}

export { ChatEnv, ChatSettings, ChatServiceEnv, chatSettings } from './config';
