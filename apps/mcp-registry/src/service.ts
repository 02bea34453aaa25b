import path from 'node:path';
import type { Logger } from 'pino';
import {
  CancelToolCall,
  MCP_SUBJECTS,
  mcpRoutes,
  SYNC_LOCKS_BUCKET,
  BUS_APIS,
} from '@wap/contracts';
import { createGuardedFetch } from '@wap/egress';
import { decodeJson, type KvBucket, type Platform, type Subscription } from '@wap/platform';
import { serveApi, serveRoutes } from '@wap/bus-protocol';
import type { ServiceHandle } from '@wap/service-runtime';
import { createDirectoryClient } from '@wap/workspace-directory';
import type { McpRegistryConfig } from './config';
import { createPlatformMcpEndpoint } from './platform-mcp/endpoint';
import { createAccountHandlers } from './accounts/handlers';
import { createAccountOAuth } from './accounts/oauth';
import { createAccountRepository, type AccountRepository } from './accounts/repository';
import { createServerHandlers, createServerLookup } from './servers/handlers';
import { rewrapCredentials } from './servers/key-rotation';
import { createServerRepository, type ServerRepository } from './servers/repository';
import { createConnect } from './sync/connections';
import { createToolSync } from './sync/tool-sync';
import { createToolBusApi } from './tools/bus-api';
import { createConnectionPool } from './tools/connection-pool';

const QUEUE_GROUP = 'mcp-registry';
const SQL_SCHEMA = 'mcp_registry';
/** Pooled sessions for tool calls close after this long without a call. */
const POOL_IDLE_MS = 60_000;

export interface McpRegistryServiceDeps {
  platform: Platform;
  logger: Logger;
  config: McpRegistryConfig;
  /** The process environment the env_var auth type reads (allow-listed names only). */
  environment: Readonly<Record<string, string | undefined>>;
  /** Folder of the drizzle-kit migrations; default `../migrations` from this file. */
  migrationsFolder?: string;
}

/** The outbound side: guarded fetch, OAuth accounts, connections, tool sync and their pool. */
function createOutbound(
  deps: McpRegistryServiceDeps,
  repository: ServerRepository,
  accountRepository: AccountRepository,
  locks: KvBucket,
) {
  const { platform, logger, config } = deps;
  const guardedFetch = createGuardedFetch({
    allowlist: config.egressAllowlist,
    ca: config.extraCaCerts,
    connectTimeoutMs: config.connectTimeoutMs,
  });
  const accounts = createAccountOAuth({
    repository: accountRepository,
    keyring: config.keyring,
    fetch: guardedFetch,
    redirectUri: config.oauthRedirectUri,
    clock: platform.clock,
    logger,
  });
  const connect = createConnect({
    keyring: config.keyring,
    envAllowlist: config.envAllowlist,
    egressAllowlist: config.egressAllowlist,
    environment: deps.environment,
    accounts,
    fetch: guardedFetch,
    connectTimeoutMs: config.connectTimeoutMs,
    logger,
  });
  const toolSync = createToolSync({
    repository,
    locks,
    connect,
    syncTimeoutMs: config.syncTimeoutMs,
    clock: platform.clock,
    logger,
  });
  const pool = createConnectionPool({
    connect,
    idleMs: POOL_IDLE_MS,
    logger,
    // A server that says its tools changed gets a fresh sync (skipped when one is running).
    onToolsChanged: (server, userId) => toolSync.runInBackground(server, userId),
  });
  return {
    accounts,
    toolSync,
    pool,
    async close() {
      await toolSync.drain();
      await accounts.drain();
      await pool.closeAll();
      await guardedFetch.close();
    },
  };
}

/** The tool listing, calls and cancels other services send, and the operators' key rotation. */
function serveBusApis(
  { platform, logger, config }: McpRegistryServiceDeps,
  busApi: ReturnType<typeof createToolBusApi>,
  rewrap: () => Promise<number>,
): Subscription[] {
  const serveOptions = { queue: QUEUE_GROUP, logger };
  return [
    serveApi(platform.bus, BUS_APIS.listTools, busApi.listTools, serveOptions),
    serveApi(platform.bus, BUS_APIS.callTool, busApi.callTool, serveOptions),
    // The admin CLI's rotation: the same re-wrap as at start, on demand, once the replicas run
    // with the new key first (decision 25).
    serveApi(
      platform.bus,
      BUS_APIS.operatorRewrapCredentials,
      async () => ({ keyId: config.keyring.current.id, rewrapped: await rewrap() }),
      serveOptions,
    ),
    // Every replica hears a cancel: only the one running the call has it to abort.
    platform.bus.subscribe(MCP_SUBJECTS.cancelToolCall, (message) => {
      const parsed = CancelToolCall.safeParse(decodeJson(message.data));
      if (parsed.success) busApi.cancelToolCall(parsed.data);
      else logger.warn({ issues: parsed.error.issues }, 'ignoring a malformed tool call cancel');
    }),
  ];
}

/**
 * Composes mcp-registry: registered MCP servers with encrypted credentials, tool sync through
 * the SDK, the bus API for tool listing and calls, and the platform's own MCP server.
 */
export async function startMcpRegistryService(
  deps: McpRegistryServiceDeps,
): Promise<ServiceHandle> {
  const { platform, logger, config } = deps;
  await platform.sql.migrate({
    schema: SQL_SCHEMA,
    migrationsFolder: deps.migrationsFolder ?? path.join(__dirname, '../migrations'),
  });
  const repository = createServerRepository({
    db: platform.sql.db,
    clock: platform.clock,
    ids: platform.ids,
  });
  const accountRepository = createAccountRepository({ db: platform.sql.db, clock: platform.clock });
  const rewrap = () =>
    rewrapCredentials({ repository, accountRepository, keyring: config.keyring, logger });
  await rewrap();

  const directory = await createDirectoryClient({ kv: platform.kv, logger });
  // Per-server sync locks; the TTL frees the lock of a replica that died mid-sync.
  const locks = await platform.kv.bucket(SYNC_LOCKS_BUCKET, {
    ttlMs: config.syncTimeoutMs + 60_000,
  });
  const outbound = createOutbound(deps, repository, accountRepository, locks);
  const { accounts, toolSync, pool } = outbound;
  const busApi = createToolBusApi({
    repository,
    directory,
    pool,
    callTimeoutMs: config.callTimeoutMs,
    clock: platform.clock,
  });
  const rest = createServerHandlers({
    repository,
    directory,
    toolSync,
    pool,
    accounts,
    bus: platform.bus,
    keyring: config.keyring,
    envAllowlist: config.envAllowlist,
    egressAllowlist: config.egressAllowlist,
    logger,
    onChanged: busApi.forget,
  });
  const accountHandlers = createAccountHandlers({
    accounts,
    visibleServer: createServerLookup({ repository, directory }),
    toolSync,
    pool,
    logger,
  });
  const endpoint = createPlatformMcpEndpoint({ bus: platform.bus, logger });

  const routeHandlers = {
    ...rest,
    ...accountHandlers,
    mcp_endpoint: endpoint.post,
    mcp_endpoint_stream: endpoint.stream,
    mcp_endpoint_session: endpoint.session,
  };
  const subscriptions: Subscription[] = [
    ...serveRoutes(platform.bus, mcpRoutes, 'mcp-registry', routeHandlers, {
      queue: QUEUE_GROUP,
      logger,
      objects: platform.objects,
    }),
    ...serveBusApis(deps, busApi, rewrap),
  ];
  logger.info({ subjects: subscriptions.length }, 'mcp-registry service serving');

  return {
    async stop() {
      await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
      await outbound.close();
      await endpoint.close();
      await directory.stop();
    },
  };
}

export {
  McpRegistryEnv,
  McpRegistryServiceEnv,
  oauthRedirectUriFor,
  toMcpRegistryConfig,
  type McpRegistryConfig,
} from './config';
