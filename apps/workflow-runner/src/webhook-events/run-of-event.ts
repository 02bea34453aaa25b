import type { Logger } from 'pino';
import { type RunStatus, BUS_APIS } from '@wap/contracts';
import { type Bus, type Subscription } from '@wap/platform';
import { serveApi } from '@wap/bus-protocol';
import type { RunRepository } from '../runs/repository';

/**
 * Tells webhook-ingest whether a webhook event started a run, and where the run is: how it
 * recognises a fingerprint claim abandoned by a replica that died before storing its request.
 */
export function serveRunOfEvent(deps: {
  bus: Bus;
  runs: Pick<RunRepository, 'findByEvent'>;
  logger: Logger;
}): Subscription {
  return serveApi(
    deps.bus,
    BUS_APIS.runOfEvent,
    async (request) => {
      const run = await deps.runs.findByEvent(request.eventId);
      return { run: run ? { id: run.id, status: run.status as RunStatus } : null };
    },
    { queue: 'workflow-runner', logger: deps.logger },
  );
}
