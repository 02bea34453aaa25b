import type { Logger } from 'pino';
import { rewrapSecret, sealedKeyId, type CredentialKeyring } from '@wap/auth';
import { secretContext } from './credentials';
import type { ServerRepository } from './repository';

/**
 * Re-wraps every stored data key under the newest key-encryption key (the first of
 * CREDENTIALS_ENCRYPTION_KEYS). Runs at start: once every replica runs with the new key first
 * and this has run, the old key can be removed from the list. Returns how many rows moved.
 */
export async function rewrapCredentials(deps: {
  repository: ServerRepository;
  keyring: CredentialKeyring;
  logger: Logger;
}): Promise<number> {
  const { keyring } = deps;
  let moved = 0;
  for (const row of await deps.repository.listSealed()) {
    const stale = (sealed: string | null) =>
      sealed !== null && sealedKeyId(sealed) !== keyring.current.id;
    if (!stale(row.sealedSecret) && !stale(row.sealedHeaders)) continue;
    const context = (field: string) => secretContext(row.workspaceId, row.id, field);
    await deps.repository.replaceSealed(row.id, {
      sealedSecret: row.sealedSecret && rewrapSecret(keyring, row.sealedSecret, context('secret')),
      sealedHeaders:
        row.sealedHeaders && rewrapSecret(keyring, row.sealedHeaders, context('headers')),
    });
    moved += 1;
  }
  if (moved > 0)
    deps.logger.info({ servers: moved, keyId: keyring.current.id }, 'credentials re-wrapped');
  return moved;
}
