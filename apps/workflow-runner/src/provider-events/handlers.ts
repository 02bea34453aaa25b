import type { Logger } from 'pino';
import {
  AppError,
  ConnectProviderAccountBody,
  eventMatches,
  ListProviderDeliveriesQuery,
  PROVIDER_DELIVERIES_PAGE,
  ProviderAccountIdParams,
  WorkspaceIdParams,
  type Actor,
  type ProviderEventTargetsReply,
  BUS_APIS,
} from '@wap/contracts';
import { type Bus, type Subscription } from '@wap/platform';
import {
  actorOf,
  decodeKeysetCursor,
  encodeKeysetCursor,
  parseRequestPart,
  serveApi,
  type RouteHandler,
} from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import { toWorkflow, type WorkflowRepository } from '../workflows/repository';
import { AccountTakenError, type ProviderEventsRepository } from './repository';

const DELIVERIES_CURSOR = 'provider-deliveries';

/**
 * Connected provider accounts and the deliveries view (decision 132): members read them,
 * owners connect and disconnect, anyone else finds no such workspace.
 */
/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function providerEventHandlers(deps: {
  providerEvents: ProviderEventsRepository;
  directory: DirectoryClient;
}): {
  list_provider_accounts: RouteHandler;
  connect_provider_account: RouteHandler;
  disconnect_provider_account: RouteHandler;
  list_provider_deliveries: RouteHandler;
} {
  const { providerEvents, directory } = deps;

  async function requireMember(workspaceId: string, actor: Actor): Promise<'owner' | 'member'> {
    const role = await directory.confirmedRoleOf(workspaceId, actor.userId);
    if (!role) throw new AppError('NOT_FOUND', 'Workspace not found');
    return role;
  }

  async function requireOwner(workspaceId: string, actor: Actor): Promise<void> {
    if ((await requireMember(workspaceId, actor)) !== 'owner') {
      throw new AppError('FORBIDDEN', 'Only workspace owners can connect provider accounts');
    }
  }

  return {
    async list_provider_accounts(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      await requireMember(workspaceId, actor);
      return { status: 200, body: { accounts: await providerEvents.listAccounts(workspaceId) } };
    },

    async connect_provider_account(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      const body = parseRequestPart(ConnectProviderAccountBody, request.body);
      await requireOwner(workspaceId, actor);
      try {
        const account = await providerEvents.connect({
          workspaceId,
          provider: body.provider,
          accountId: body.accountId,
          label: body.label ?? body.accountId,
          createdBy: actor.userId,
        });
        return { status: 201, body: { account } };
      } catch (error) {
        if (error instanceof AccountTakenError) {
          // Which workspace holds it is not said: it may be one the caller cannot see.
          throw new AppError('CONFLICT', 'This account is connected to a workspace already');
        }
        throw error;
      }
    },

    async disconnect_provider_account(request) {
      const actor = actorOf(request);
      const { workspaceId, connectionId } = parseRequestPart(
        ProviderAccountIdParams,
        request.params,
      );
      await requireOwner(workspaceId, actor);
      if (!(await providerEvents.disconnect(workspaceId, connectionId))) {
        throw new AppError('NOT_FOUND', 'Provider account not found');
      }
      return { status: 204 };
    },

    async list_provider_deliveries(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      const query = parseRequestPart(ListProviderDeliveriesQuery, request.query);
      await requireMember(workspaceId, actor);
      const limit = query.limit ? Number(query.limit) : PROVIDER_DELIVERIES_PAGE.default;
      const page = await providerEvents.deliveriesPage(
        workspaceId,
        limit,
        decodeKeysetCursor(DELIVERIES_CURSOR, query.cursor),
      );
      return {
        status: 200,
        body: {
          deliveries: page.deliveries,
          nextCursor:
            page.more && page.last ? encodeKeysetCursor(DELIVERIES_CURSOR, page.last) : null,
        },
      };
    },
  };
}

/**
 * Serves webhook-ingest's question for a verified delivery: which addresses it goes to. The
 * delivery is recorded on its first receipt; a repeat gets the same addresses, where the
 * ingest's idempotency claim (the delivery id) keeps it from starting a second run.
 */
export function serveProviderEventTargets(deps: {
  bus: Bus;
  providerEvents: ProviderEventsRepository;
  workflows: Pick<WorkflowRepository, 'listWithProviderEvents'>;
  logger: Logger;
}): Subscription {
  return serveApi(
    deps.bus,
    BUS_APIS.providerEventTargets,
    async (request): Promise<ProviderEventTargetsReply> => {
      const account = await deps.providerEvents.connectedAccount(
        request.provider,
        request.accountIds,
      );
      await deps.providerEvents.recordDelivery({
        provider: request.provider,
        deliveryId: request.deliveryId,
        event: request.event,
        accountId: account?.accountId ?? null,
        workspaceId: account?.workspaceId ?? null,
        receivedAt: new Date(request.receivedAt),
      });
      if (!account) return { workspaceId: null, webhookIds: [] };
      const candidates = await deps.workflows.listWithProviderEvents(
        account.workspaceId,
        request.provider,
      );
      const webhookIds = candidates.flatMap((row) => {
        const filters = toWorkflow(row).trigger?.providerEvents?.events ?? [];
        return row.webhookId && eventMatches(filters, request.event) ? [row.webhookId] : [];
      });
      return { workspaceId: account.workspaceId, webhookIds };
    },
    { queue: 'workflow-runner', logger: deps.logger },
  );
}
