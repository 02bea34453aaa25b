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

export async function startStorageService(deps: StorageServiceDeps): Promise<StorageService> {
  const { platform, logger } = deps;
  await platform.sql.migrate({
    schema: SQL_SCHEMA,
    migrationsFolder: deps.migrationsFolder ?? path.join(__dirname, '../migrations'),
  });
  const bucket = await platform.kv.bucket(DIRECTORY_BUCKET);
  const repository = createDirectoryRepository({
    db: platform.sql.db,
    clock: platform.clock,
    ids: platform.ids,
  });
  const publisher = createDirectoryPublisher({ bucket, repository, logger });
  await publisher.publishAll();

  const meCache = createMeCache({
    bus: platform.bus,
    logger,
    now: () => platform.clock.now().getTime(),
  });
  const directory = createDirectoryHandlers({ repository, publisher, meCache, logger });
  const serveOptions = { queue: QUEUE_GROUP, logger };
  const storeDeps = { db: platform.sql.db, clock: platform.clock, ids: platform.ids };
  const standingOf = repository.standingOf;
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

  const extensionTokens = createExtensionTokenHandlers({
    repository: createExtensionTokenRepository(storeDeps),
    issuer: deps.extensionTokenIssuer,
    clock: platform.clock,
    logger,
  });

  const subscriptions: Subscription[] = [
    ...serveRoutes(platform.bus, directoryRoutes, 'storage', directory.routes, serveOptions),
    ...serveRoutes(
      platform.bus,
      extensionTokenRoutes,
      'storage',
      extensionTokens.routes,
      serveOptions,
    ),
    serveApi(platform.bus, BUS_APIS.verifyExtensionToken, extensionTokens.verify, serveOptions),
    ...serveRoutes(
      platform.bus,
      workspaceDataRoutes,
      'storage',
      workspaceDataHandlers,
      serveOptions,
    ),
    ...serveRoutes(platform.bus, taskRoutes, 'storage', taskHandlers.routes, serveOptions),
    serveApi(
      platform.bus,
      BUS_APIS.tableRow,
      createWorkflowRowWriter({ repository: tables, standingOf }),
      serveOptions,
    ),
    serveApi(
      platform.bus,
      BUS_APIS.approvalRecipients,
      createApprovalRecipients({ db: platform.sql.db }),
      serveOptions,
    ),
    serveApi(
      platform.bus,
      BUS_APIS.prepareTaskAttachment,
      taskHandlers.prepareUpload,
      serveOptions,
    ),
    serveApi(platform.bus, BUS_APIS.ensureUser, directory.ensureUser, serveOptions),
    serveApi(platform.bus, BUS_APIS.firstWorkspace, directory.firstWorkspace, serveOptions),
    serveApi(platform.bus, BUS_APIS.verifyApiKey, directory.verifyApiKey, serveOptions),
    serveApi(
      platform.bus,
      BUS_APIS.operatorDeleteWorkspace,
      directory.operatorDeleteWorkspace,
      serveOptions,
    ),
  ];
  logger.info({ subjects: subscriptions.length }, 'storage service serving');

  return {
    async stop() {
      await Promise.all([
        ...subscriptions.map((subscription) => subscription.unsubscribe()),
        meCache.stop(),
      ]);
    },
  };
}
