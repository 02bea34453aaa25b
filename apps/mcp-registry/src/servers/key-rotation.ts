import type { Logger } from 'pino';
import { rewrapSecret, sealedKeyId, type CredentialKeyring } from '@wap/auth';
import type { AccountRepository } from '../accounts/repository';
import { secretContext } from './credentials';
import type { ServerRepository } from './repository';

/**
 * Re-wraps every stored data key under the newest key-encryption key (the first of
 * CREDENTIALS_ENCRYPTION_KEYS): servers' credentials and headers, the OAuth client secrets,
 * people's connected-account tokens and the PKCE verifiers of authorizations under way. Runs at
 * start: once every replica runs with the new key first and this has run, the old key can be
 * removed from the list. Returns how many rows moved.
 */
export async function rewrapCredentials(deps: {
  repository: ServerRepository;
  accountRepository: AccountRepository;
  keyring: CredentialKeyring;
  logger: Logger;
}): Promise<number> {
  const { keyring } = deps;
  const stale = (sealed: string | null): sealed is string =>
    sealed !== null && sealedKeyId(sealed) !== keyring.current.id;
  let moved = 0;
  const workspaces = new Map<string, string>();
  for (const row of await deps.repository.listSealed()) {
    workspaces.set(row.id, row.workspaceId);
    if (!stale(row.sealedSecret) && !stale(row.sealedHeaders)) continue;
    const context = (field: string) => secretContext(row.workspaceId, row.id, field);
    await deps.repository.replaceSealed(row.id, {
      sealedSecret: row.sealedSecret && rewrapSecret(keyring, row.sealedSecret, context('secret')),
      sealedHeaders:
        row.sealedHeaders && rewrapSecret(keyring, row.sealedHeaders, context('headers')),
    });
    moved += 1;
  }
  const accounts = await deps.accountRepository.listSealed();
  const contextOf = (serverId: string, field: string) =>
    secretContext(workspaces.get(serverId) ?? '', serverId, field);
  for (const client of accounts.clients) {
    if (!stale(client.sealed)) continue;
    await deps.accountRepository.replaceClientSecret(
      client.serverId,
      rewrapSecret(keyring, client.sealed, contextOf(client.serverId, 'oauth-client')),
    );
    moved += 1;
  }
  for (const connection of accounts.connections) {
    if (!stale(connection.sealed)) continue;
    await deps.accountRepository.replaceTokens(
      connection.serverId,
      connection.userId,
      rewrapSecret(
        keyring,
        connection.sealed,
        contextOf(connection.serverId, `account/${connection.userId}`),
      ),
    );
    moved += 1;
  }
  for (const pending of accounts.pending) {
    if (!stale(pending.sealed)) continue;
    await deps.accountRepository.replaceCodeVerifier(
      pending.state,
      rewrapSecret(keyring, pending.sealed, contextOf(pending.serverId, `pkce/${pending.userId}`)),
    );
    moved += 1;
  }
  if (moved > 0)
    deps.logger.info({ rows: moved, keyId: keyring.current.id }, 'credentials re-wrapped');
  return moved;
}
