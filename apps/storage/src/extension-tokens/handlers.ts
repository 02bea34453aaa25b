import type { Logger } from 'pino';
import { signExtensionToken, verifyExtensionToken, type ExtensionTokenIssuer } from '@wap/auth';
import {
  AppError,
  CreateExtensionTokenBody,
  EXTENSION_TOKEN_LIFETIME_SECONDS,
  ExtensionTokenIdParams,
  MAX_ACTIVE_EXTENSION_TOKENS,
  type ExtensionToken,
  type extensionTokenRoutes,
  type OperationsOf,
  type VerifyExtensionTokenReply,
  type VerifyExtensionTokenRequest,
} from '@wap/contracts';
import { type Clock } from '@wap/platform';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import type { ExtensionTokenRecord, ExtensionTokenRepository } from './repository';

export type ExtensionTokenOperation = OperationsOf<typeof extensionTokenRoutes, 'storage'>;

export interface ExtensionTokenHandlers {
  routes: Record<ExtensionTokenOperation, RouteHandler>;
  verify(request: VerifyExtensionTokenRequest): Promise<VerifyExtensionTokenReply>;
}

const INVALID: VerifyExtensionTokenReply = { valid: false, reason: 'invalid' };

function toExtensionToken(record: ExtensionTokenRecord): ExtensionToken {
  return {
    id: record.id,
    name: record.name,
    created_at: record.createdAt.toISOString(),
    expires_at: record.expiresAt.toISOString(),
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * Issuing, listing and revoking a person's extension tokens, and verifying a presented one for
 * the gateway (decision 128). Without an issuer (EXTENSION_TOKEN_SECRET unset) nothing is
 * issued and nothing verifies.
 */
export function createExtensionTokenHandlers(deps: {
  repository: ExtensionTokenRepository;
  issuer: ExtensionTokenIssuer | undefined;
  clock: Clock;
  logger: Logger;
}): ExtensionTokenHandlers {
  const { repository, issuer, clock, logger } = deps;

  const routes: Record<ExtensionTokenOperation, RouteHandler> = {
    async list_extension_tokens(request) {
      const actor = actorOf(request);
      const tokens = await repository.listActive(actor.userId);
      return { status: 200, body: { extension_tokens: tokens.map(toExtensionToken) } };
    },

    async create_extension_token(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(CreateExtensionTokenBody, request.body);
      if (!issuer) {
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'Extension tokens are not configured on this platform (EXTENSION_TOKEN_SECRET of the storage service)',
        );
      }
      const record = await repository.createWithin(
        {
          userId: actor.userId,
          name: body.name,
          lifetimeMs: EXTENSION_TOKEN_LIFETIME_SECONDS * 1000,
        },
        MAX_ACTIVE_EXTENSION_TOKENS,
      );
      if (!record) {
        throw new AppError(
          'CONFLICT',
          `You already hold ${MAX_ACTIVE_EXTENSION_TOKENS} extension tokens; revoke one first`,
        );
      }
      const token = await signExtensionToken(issuer, {
        userId: actor.userId,
        tokenId: record.id,
        issuedAt: record.createdAt,
        expiresAt: record.expiresAt,
      });
      logger.info({ userId: actor.userId, tokenId: record.id }, 'extension token issued');
      return { status: 201, body: { extension_token: toExtensionToken(record), token } };
    },

    async revoke_extension_token(request) {
      const actor = actorOf(request);
      const { tokenId } = parseRequestPart(ExtensionTokenIdParams, request.params);
      // Someone else's token and an unknown id answer alike: ids are not confirmed to strangers.
      if (!(await repository.revoke(actor.userId, tokenId))) {
        throw new AppError('NOT_FOUND', 'Extension token not found');
      }
      logger.info({ userId: actor.userId, tokenId }, 'extension token revoked');
      return { status: 204 };
    },
  };

  return {
    routes,
    async verify({ token }) {
      if (!issuer) return INVALID;
      const verdict = await verifyExtensionToken(issuer, token, clock.now());
      if (!verdict.valid) return verdict;
      const holder = await repository.findHolder(verdict.tokenId);
      if (!holder || holder.revoked || holder.userId !== verdict.userId) return INVALID;
      if (holder.expiresAt <= clock.now()) return { valid: false, reason: 'expired' };
      await repository.noteUse(holder);
      return { valid: true, tokenId: holder.tokenId, user: holder.user };
    },
  };
}
