import path from 'node:path';
import type { Logger } from 'pino';
import {
  AppError,
  DIRECTORY_BUCKET,
  DIRECTORY_SUBJECTS,
  directoryRoutes,
  EnsureUserRequest,
  FirstWorkspaceRequest,
  VerifyApiKeyRequest,
} from '@wap/contracts';
import {
  serveApi,
  serveRoutes,
  type Platform,
  type RouteHandler,
  type Subscription,
} from '@wap/platform';
import { createDirectoryHandlers, type DirectoryOperation } from './directory/handlers';
import { createDirectoryPublisher } from './directory/publisher';
import { createDirectoryRepository } from './directory/repository';

/** Replicas of storage share every request subject. */
const QUEUE_GROUP = 'storage';
const SQL_SCHEMA = 'storage';

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
}

export interface StorageService {
  /** Stops serving; requests being handled still get their reply. */
  stop(): Promise<void>;
}

/** User errors are part of normal traffic: logged at info, with their code, never with a body. */
function logUserErrors<Request, Reply>(
  subject: string,
  handler: (request: Request) => Promise<Reply>,
  logger: Logger,
): (request: Request) => Promise<Reply> {
  return async (request) => {
    try {
      return await handler(request);
    } catch (error) {
      if (error instanceof AppError && error.status < 500) {
        logger.info({ subject, code: error.code, status: error.status }, error.message);
      }
      throw error;
    }
  };
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

  const directory = createDirectoryHandlers({ repository, publisher, logger });
  const serveOptions = { queue: QUEUE_GROUP, logger };
  const routeSubjects = new Map<string, string>(
    directoryRoutes.map((route) => [route.operationId, route.subject]),
  );
  const routeHandlers = Object.fromEntries(
    Object.entries(directory.routes).map(([operation, handler]) => [
      operation,
      logUserErrors(routeSubjects.get(operation) ?? operation, handler, logger),
    ]),
  ) as Record<DirectoryOperation, RouteHandler>;

  const subscriptions: Subscription[] = [
    ...serveRoutes(platform.bus, directoryRoutes, 'storage', routeHandlers, serveOptions),
    serveApi(
      platform.bus,
      DIRECTORY_SUBJECTS.ensureUser,
      EnsureUserRequest,
      directory.ensureUser,
      serveOptions,
    ),
    serveApi(
      platform.bus,
      DIRECTORY_SUBJECTS.firstWorkspace,
      FirstWorkspaceRequest,
      directory.firstWorkspace,
      serveOptions,
    ),
    serveApi(
      platform.bus,
      DIRECTORY_SUBJECTS.verifyApiKey,
      VerifyApiKeyRequest,
      directory.verifyApiKey,
      serveOptions,
    ),
  ];
  logger.info({ subjects: subscriptions.length }, 'storage service serving');

  return {
    async stop() {
      await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
    },
  };
}
