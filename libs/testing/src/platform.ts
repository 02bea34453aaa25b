import { createDistributedPlatform, type Platform } from '@wap/platform';
import type { Logger } from 'pino';
import { createTestDatabase } from './database';
import { testLogger, testNatsUrl } from './services';

export interface TestPlatform {
  platform: Platform;
  /** The platform's own fresh database. */
  databaseUrl: string;
  /** Closes the platform and drops its database. */
  cleanup(): Promise<void>;
}

/** A distributed platform on the test NATS server and a fresh database of its own. */
export async function createTestPlatform(options: {
  serviceName: string;
  logger?: Logger;
}): Promise<TestPlatform> {
  const database = await createTestDatabase();
  let platform: Platform;
  try {
    platform = await createDistributedPlatform({
      natsUrl: testNatsUrl(),
      databaseUrl: database.url,
      serviceName: options.serviceName,
      logger: options.logger ?? testLogger(),
      poolSize: 4,
    });
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    platform,
    databaseUrl: database.url,
    async cleanup() {
      try {
        await platform.close();
      } finally {
        await database.drop();
      }
    },
  };
}
