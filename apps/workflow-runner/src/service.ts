import { join } from 'node:path';
import type { Logger } from 'pino';
import { ROUTES } from '@wap/contracts';
import { serveRoutes, type Platform } from '@wap/platform';
import type { ServiceHandle } from '@wap/service-runtime';
import { createDirectoryClient } from '@wap/workspace-directory';
import { creditHandlers } from './credits/handlers';
import { createCreditLedger } from './credits/ledger';

/**
 * Composes the workflow runner. It owns the credit ledger today; workflows, runs, schedules and
 * approvals join it in issue #3.
 */
export async function startWorkflowRunnerService(deps: {
  platform: Platform;
  logger: Logger;
  migrationsFolder?: string;
}): Promise<ServiceHandle> {
  const { platform, logger } = deps;
  await platform.sql.migrate({
    schema: 'workflow_runner',
    migrationsFolder: deps.migrationsFolder ?? join(__dirname, '../migrations'),
  });
  const directory = await createDirectoryClient({ kv: platform.kv, logger });
  const ledger = createCreditLedger({
    db: platform.sql.db,
    clock: platform.clock,
    ids: platform.ids,
  });
  const subscriptions = serveRoutes(
    platform.bus,
    ROUTES,
    'workflow-runner',
    creditHandlers({ ledger, directory }),
    { queue: 'workflow-runner', logger },
  );
  return {
    stop: async () => {
      await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
      await directory.stop();
    },
  };
}
