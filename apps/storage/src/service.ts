import path from 'node:path';
import type { Logger } from 'pino';
import {
  DIRECTORY_BUCKET,
  directoryRoutes,
  extensionTokenRoutes,
  TASK_FILES_BUCKET,
  taskRoutes,
  workspaceDataRoutes,
  BUS_APIS,
} from '@wap/contracts';
import type { ExtensionTokenIssuer } from '@wap/auth';
import type { ActorRateLimits } from '@wap/http';
import { type Platform, type Subscription } from '@wap/platform';
import { serveApi, serveRoutes } from '@wap/bus-protocol';
import { createDirectoryHandlers } from './directory/handlers';
import { createMeCache } from './directory/me-cache';
import { createDirectoryPublisher } from './directory/publisher';
import { createDirectoryRepository } from './directory/repository';
import { createExtensionTokenHandlers } from './extension-tokens/handlers';
import { createExtensionTokenRepository } from './extension-tokens/repository';
import { createContactsHandlers } from './contacts/handlers';
import { createContactsRepository } from './contacts/repository';
import { createApprovalRecipients } from './notifications/approval-recipients';
import { createTablesHandlers } from './tables/handlers';
import { DEFAULT_UPLOAD_LIMITS } from './config';
import { createTasksHandlers } from './tasks/handlers';
import { createTasksRepository } from './tasks/repository';
import { createTablesRepository } from './tables/repository';
import { createWorkflowRowWriter } from './tables/workflow-rows';

/** Replicas of storage share every request subject. */
const QUEUE_GROUP = 'storage';
const SQL_SCHEMA = 'storage';

export { StorageEnv, StorageSettings, extensionTokenIssuerOf, uploadLimitsOf } from './config';

export interface StorageServiceDeps {
  platform: Platform;
  logger: Logger;
  /**
   * Folder of the drizzle-kit migrations. Default `../migrations` from this file: right for the
   * sources (apps/storage/src) and for the storage bundle (dist/apps/storage/src/main.js, with
   * the migrations copied to dist/apps/storage/migrations); a launcher bundling several services
   * (apps/embedded) passes its own.
   */
  migrationsFolder?: string;
  /** Rows per transaction of a split-name run (default 1000). */
  splitBatchSize?: number;
  /** Attachment uploads a minute per person and per workspace; defaults of StorageEnv. */
  uploadLimits?: ActorRateLimits;
  /** Signs and verifies extension tokens; without it none are issued (decision 128). */
  extensionTokenIssuer?: ExtensionTokenIssuer;
}

export interface StorageService {
  /** Stops serving; requests being handled still get their reply. */
  stop(): Promise<void>;
}

const serveOptionsOf = (logger: Logger) => ({ queue: QUEUE_GROUP, logger });

/** Users, workspaces, members and API keys: the directory's routes and bus APIs. */
async function serveDirectory({ platform, logger }: StorageServiceDeps) {
  const bus = platform.bus;
  const bucket = await platform.kv.bucket(DIRECTORY_BUCKET);
  const repository = createDirectoryRepository({
    db: platform.sql.db,
    clock: platform.clock,
    ids: platform.ids,
  });
  const publisher = createDirectoryPublisher({ bucket, repository, logger });
  await publisher.publishAll();
  const meCache = createMeCache({ bus, logger, now: () => platform.clock.now().getTime() });
  const directory = createDirectoryHandlers({ repository, publisher, meCache, logger });
  const serveOptions = serveOptionsOf(logger);
  const subscriptions = [
    ...serveRoutes(bus, directoryRoutes, 'storage', directory.routes, serveOptions),
    serveApi(bus, BUS_APIS.ensureUser, directory.ensureUser, serveOptions),
    serveApi(bus, BUS_APIS.firstWorkspace, directory.firstWorkspace, serveOptions),
    serveApi(bus, BUS_APIS.verifyApiKey, directory.verifyApiKey, serveOptions),
    serveApi(
      bus,
      BUS_APIS.operatorDeleteWorkspace,
      directory.operatorDeleteWorkspace,
      serveOptions,
    ),
  ];
  return { subscriptions, meCache, standingOf: repository.standingOf };
}

type StandingOf = Awaited<ReturnType<typeof serveDirectory>>['standingOf'];

/** Tables, contacts, tasks and their attachments, and the workflow steps' row writes. */
async function serveWorkspaceData(deps: StorageServiceDeps, standingOf: StandingOf) {
  const { platform, logger } = deps;
  const bus = platform.bus;
  const serveOptions = serveOptionsOf(logger);
  const storeDeps = { db: platform.sql.db, clock: platform.clock, ids: platform.ids };
  const tables = createTablesRepository(storeDeps);
  const workspaceDataHandlers = {
    ...createTablesHandlers({
      repository: tables,
      standingOf,
      splitBatchSize: deps.splitBatchSize ?? 1000,
    }),
    ...createContactsHandlers({ repository: createContactsRepository(storeDeps), standingOf }),
  };
  await platform.objects.ensureBucket(TASK_FILES_BUCKET);
  const taskHandlers = createTasksHandlers({
    repository: createTasksRepository(storeDeps),
    ids: platform.ids,
    standingOf,
    clock: platform.clock,
    uploadLimits: deps.uploadLimits ?? DEFAULT_UPLOAD_LIMITS,
    objects: platform.objects,
    logger,
  });
  const rowWriter = createWorkflowRowWriter({ repository: tables, standingOf });
  const recipients = createApprovalRecipients({ db: platform.sql.db });
  return [
    ...serveRoutes(bus, workspaceDataRoutes, 'storage', workspaceDataHandlers, serveOptions),
    ...serveRoutes(bus, taskRoutes, 'storage', taskHandlers.routes, serveOptions),
    serveApi(bus, BUS_APIS.tableRow, rowWriter, serveOptions),
    serveApi(bus, BUS_APIS.approvalRecipients, recipients, serveOptions),
    serveApi(bus, BUS_APIS.prepareTaskAttachment, taskHandlers.prepareUpload, serveOptions),
  ];
}

function serveExtensionTokens({ platform, logger, extensionTokenIssuer }: StorageServiceDeps) {
  const storeDeps = { db: platform.sql.db, clock: platform.clock, ids: platform.ids };
  const extensionTokens = createExtensionTokenHandlers({
    repository: createExtensionTokenRepository(storeDeps),
    issuer: extensionTokenIssuer,
    clock: platform.clock,
    logger,
  });
  const serveOptions = serveOptionsOf(logger);
  return [
    ...serveRoutes(
      platform.bus,
      extensionTokenRoutes,
      'storage',
      extensionTokens.routes,
      serveOptions,
    ),
    serveApi(platform.bus, BUS_APIS.verifyExtensionToken, extensionTokens.verify, serveOptions),
  ];
}

export async function startStorageService(deps: StorageServiceDeps): Promise<StorageService> {
  const { platform, logger } = deps;
  await platform.sql.migrate({
    schema: SQL_SCHEMA,
    migrationsFolder: deps.migrationsFolder ?? path.join(__dirname, '../migrations'),
  });
  const directory = await serveDirectory(deps);
  const subscriptions: Subscription[] = [
    ...directory.subscriptions,
    ...serveExtensionTokens(deps),
    ...(await serveWorkspaceData(deps, directory.standingOf)),
  ];
  logger.info({ subjects: subscriptions.length }, 'storage service serving');

  return {
    async stop() {
      await Promise.all([
        ...subscriptions.map((subscription) => subscription.unsubscribe()),
        directory.meCache.stop(),
      ]);
    },
  };
}
