import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { openSecret, sealSecret, type CredentialKeyring } from '@wap/auth';
import {
  AppError,
  ConnectProviderAccountBody,
  ReplaceSigningSecretBody,
  eventMatches,
  ListProviderDeliveriesQuery,
  PROVIDER_DELIVERIES_PAGE,
  PROVIDER_MAKES_SECRET,
  ProviderAccountIdParams,
  WorkspaceIdParams,
  type Actor,
  type Provider,
  type ProviderEventTargetsReply,
  type ServiceReply,
  BUS_APIS,
} from '@wap/contracts';
import { type Bus, type Clock, type Subscription } from '@wap/platform';
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
import {
  AccountTakenError,
  type ProviderConnection,
  type ProviderEventsRepository,
} from './repository';

const DELIVERIES_CURSOR = 'provider-deliveries';
const ATTEMPTS_WINDOW_MS = 60 * 60 * 1000;

/** What a connection's signing secret is sealed for: the secret opens for this connection alone. */
export function signingSecretContext(connection: { workspaceId: string; id: string }): string {
  return `provider-connection/${connection.workspaceId}/${connection.id}`;
}

export function openSigningSecret(
  keyring: CredentialKeyring,
  connection: ProviderConnection,
): string | null {
  return connection.signingSecretSealed === null
    ? null
    : openSecret(keyring, connection.signingSecretSealed, signingSecretContext(connection));
}

/** The pasted secret, or (GitHub, none pasted) one made here and shown once. */
function secretToKeep(pasted: string | undefined): { secret: string; made: boolean } {
  return pasted === undefined
    ? { secret: randomBytes(32).toString('hex'), made: true }
    : { secret: pasted, made: false };
}

/**
 * Connected provider accounts and the deliveries view (decision 132): members read them,
 * owners connect and disconnect, anyone else finds no such workspace.
 */
/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function providerEventHandlers(deps: {
  providerEvents: ProviderEventsRepository;
  directory: DirectoryClient;
  keyring: CredentialKeyring;
  clock: Clock;
  ids: { uuid(): string };
  /** Connection attempts a workspace may make in an hour, refused ones included. */
  connectAttemptsPerHour: number;
}): {
  list_provider_accounts: RouteHandler;
  connect_provider_account: RouteHandler;
  replace_provider_signing_secret: RouteHandler;
  disconnect_provider_account: RouteHandler;
  list_provider_deliveries: RouteHandler;
} {
  const { providerEvents, directory, keyring } = deps;

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

  /**
   * Counts the attempt; past the hour's allowance a 429 (claims of made-up accounts, or probing
   * which accounts are proven elsewhere, cannot go faster than that).
   */
  async function attemptAllowed(workspaceId: string): Promise<ServiceReply | undefined> {
    const now = deps.clock.now().getTime();
    const attempts = await providerEvents.countAttempt(
      workspaceId,
      new Date(now - ATTEMPTS_WINDOW_MS),
    );
    if (attempts.count <= deps.connectAttemptsPerHour) return undefined;
    const freedAt = (attempts.oldest?.getTime() ?? now) + ATTEMPTS_WINDOW_MS;
    return {
      status: 429,
      headers: { 'retry-after': String(Math.max(1, Math.ceil((freedAt - now) / 1000))) },
      body: {
        error: 'Too many attempts to connect provider accounts; try again later',
        code: 'RATE_LIMITED',
      },
    };
  }

  async function connect(
    workspaceId: string,
    actor: Actor,
    body: ConnectProviderAccountBody,
  ): Promise<ServiceReply> {
    const { secret, made } = secretToKeep(body.signingSecret);
    const id = deps.ids.uuid();
    try {
      const account = await providerEvents.connect({
        id,
        workspaceId,
        provider: body.provider,
        accountId: body.accountId,
        label: body.label ?? body.accountId,
        createdBy: actor.userId,
        signingSecretSealed: sealSecret(keyring, secret, signingSecretContext({ workspaceId, id })),
      });
      return { status: 201, body: { account, ...(made ? { signingSecret: secret } : {}) } };
    } catch (error) {
      if (error instanceof AccountTakenError) {
        // Which workspace holds it is not said: it may be one the caller cannot see.
        throw new AppError('CONFLICT', 'This account is connected to a workspace already');
      }
      throw error;
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
      return (await attemptAllowed(workspaceId)) ?? connect(workspaceId, actor, body);
    },

    async replace_provider_signing_secret(request) {
      const actor = actorOf(request);
      const { workspaceId, connectionId } = parseRequestPart(
        ProviderAccountIdParams,
        request.params,
      );
      const body = parseRequestPart(ReplaceSigningSecretBody, request.body);
      await requireOwner(workspaceId, actor);
      const connection = await providerEvents.connectionIn(workspaceId, connectionId);
      if (!connection) throw new AppError('NOT_FOUND', 'Provider account not found');
      if (PROVIDER_MAKES_SECRET[connection.provider] && body.signingSecret === undefined) {
        throw new AppError(
          'BAD_REQUEST',
          "Paste the signing secret from the provider's webhook settings",
        );
      }
      const { secret, made } = secretToKeep(body.signingSecret);
      const account = await providerEvents.replaceSigningSecret(
        connection,
        sealSecret(keyring, secret, signingSecretContext(connection)),
      );
      if (!account) throw new AppError('NOT_FOUND', 'Provider account not found');
      return { status: 200, body: { account, ...(made ? { signingSecret: secret } : {}) } };
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
 * Serves webhook-ingest's question before it checks a delivery sent to a connection: the
 * connection's signing secret, opened. The reply goes to webhook-ingest's own inbox.
 */
export function serveProviderConnectionSecret(deps: {
  bus: Bus;
  providerEvents: Pick<ProviderEventsRepository, 'connection'>;
  keyring: CredentialKeyring;
  logger: Logger;
}): Subscription {
  return serveApi(
    deps.bus,
    BUS_APIS.providerConnectionSecret,
    async (request) => {
      const connection = await deps.providerEvents.connection(
        request.provider,
        request.connectionId,
      );
      return { signingSecret: connection ? openSigningSecret(deps.keyring, connection) : null };
    },
    { queue: 'workflow-runner', logger: deps.logger },
  );
}

/** Whether a delivery comes from the connection's account: it names it, or names no account. */
function fromConnectedAccount(connection: ProviderConnection, accountIds: readonly string[]) {
  return accountIds.length === 0 || accountIds.includes(connection.accountId);
}

/**
 * Serves webhook-ingest's question for a delivery that held with a connection's secret: which
 * addresses it goes to. The delivery is recorded on its first receipt and proves the connection;
 * a repeat gets the same addresses, where the ingest's idempotency claim (the delivery id) keeps
 * it from starting a second run.
 */
export function serveProviderEventTargets(deps: {
  bus: Bus;
  providerEvents: ProviderEventsRepository;
  workflows: Pick<WorkflowRepository, 'listWithProviderEvents'>;
  logger: Logger;
}): Subscription {
  const nothing: ProviderEventTargetsReply = { workspaceId: null, webhookIds: [] };
  return serveApi(
    deps.bus,
    BUS_APIS.providerEventTargets,
    async (request): Promise<ProviderEventTargetsReply> => {
      const connection = await deps.providerEvents.connection(
        request.provider,
        request.connectionId,
      );
      if (!connection) return nothing;
      const fromAccount = fromConnectedAccount(connection, request.accountIds);
      await deps.providerEvents.recordDelivery({
        provider: request.provider,
        deliveryId: request.deliveryId,
        event: request.event,
        accountId: fromAccount ? connection.accountId : null,
        workspaceId: connection.workspaceId,
        receivedAt: new Date(request.receivedAt),
      });
      if (!fromAccount) {
        deps.logger.info(
          { connectionId: connection.id, deliveryId: request.deliveryId },
          "a delivery from another account than the connection's: nothing started",
        );
        return { workspaceId: connection.workspaceId, webhookIds: [] };
      }
      if (!connection.provenAt) await deps.providerEvents.markProven(connection.id);
      return {
        workspaceId: connection.workspaceId,
        webhookIds: await addressesTaking(deps.workflows, connection, request.event),
      };
    },
    { queue: 'workflow-runner', logger: deps.logger },
  );
}

/** v1's answer (see `PROVIDER_EVENT_TARGETS_V1_SUBJECT`): no targets, said in the log. */
export function serveProviderEventTargetsV1(deps: { bus: Bus; logger: Logger }): Subscription {
  return serveApi(
    deps.bus,
    BUS_APIS.providerEventTargetsV1,
    (request): Promise<ProviderEventTargetsReply> => {
      deps.logger.warn(
        { provider: request.provider, deliveryId: request.deliveryId },
        'a webhook-ingest of an older release routed a delivery by its claimed account: nothing started',
      );
      return Promise.resolve({ workspaceId: null, webhookIds: [] });
    },
    { queue: 'workflow-runner', logger: deps.logger },
  );
}

async function addressesTaking(
  workflows: Pick<WorkflowRepository, 'listWithProviderEvents'>,
  connection: { workspaceId: string; provider: Provider },
  event: string,
): Promise<string[]> {
  const candidates = await workflows.listWithProviderEvents(
    connection.workspaceId,
    connection.provider,
  );
  return candidates.flatMap((row) => {
    const filters = toWorkflow(row).trigger?.providerEvents?.events ?? [];
    return row.webhookId && eventMatches(filters, event) ? [row.webhookId] : [];
  });
}
