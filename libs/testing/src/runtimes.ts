import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { createEmbeddedPlatform, withNamespace, type Platform } from '@wap/platform';
import { createTestPlatform } from './platform';
import { removeNamespaceFromNats } from './nats-namespace';
import { testLogger, testNatsUrl } from './services';

/** A platform a test owns, and how to give it back. */
export interface RuntimeUnderTest {
  platform: Platform;
  /** The NATS namespace of a distributed runtime, for processes that join it (NATS_NAMESPACE). */
  natsNamespace?: string;
  cleanup(): Promise<void>;
}

export type RuntimeKind = 'distributed' | 'embedded';

/**
 * A fresh platform of either runtime: distributed on the shared NATS server in a namespace of
 * its own (parallel test files serve the same subjects) with a database of its own, or embedded
 * in a temporary data folder.
 */
export async function startTestRuntime(
  kind: RuntimeKind,
  options: { serviceName: string; logger?: Logger },
): Promise<RuntimeUnderTest> {
  const logger = options.logger ?? testLogger();
  if (kind === 'distributed') {
    const test = await createTestPlatform({ serviceName: options.serviceName, logger });
    const namespace = `t${randomBytes(6).toString('hex')}`;
    return {
      platform: withNamespace(test.platform, namespace),
      natsNamespace: namespace,
      async cleanup() {
        try {
          await test.cleanup();
        } finally {
          await removeNamespaceFromNats(testNatsUrl(), namespace);
        }
      },
    };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${options.serviceName}-`));
  const platform = await createEmbeddedPlatform({ dataDir, logger });
  return {
    platform,
    async cleanup() {
      await platform.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `describe.each` rows: a label and a starter per runtime. */
export function testRuntimes(
  serviceName: string,
): ReadonlyArray<[string, () => Promise<RuntimeUnderTest>]> {
  return [
    ['distributed (NATS + PostgreSQL)', () => startTestRuntime('distributed', { serviceName })],
    ['embedded (in-process bus + PGlite)', () => startTestRuntime('embedded', { serviceName })],
  ];
}
