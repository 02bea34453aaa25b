import type { Logger } from 'pino';
import { rewrapSecret, sealedKeyId, type CredentialKeyring } from '@wap/auth';
import { BUS_APIS } from '@wap/contracts';
import { serveApi } from '@wap/bus-protocol';
import type { Bus, Subscription } from '@wap/platform';
import { signingSecretContext } from '../provider-events/handlers';
import type { ProviderEventsRepository } from '../provider-events/repository';
import { credentialContext, type CredentialRepository } from './repository';

interface RewrapDeps {
  providerEvents: Pick<ProviderEventsRepository, 'listSealedSecrets' | 'replaceSealedSecret'>;
  credentials: Pick<CredentialRepository, 'listAll' | 'replaceSealed'>;
  keyring: CredentialKeyring;
  logger: Logger;
}

/**
 * Re-wraps the runner's sealed values under the newest key of CREDENTIALS_ENCRYPTION_KEYS (the
 * keys mcp-registry has: decision 151): workspace credentials and providers' signing secrets.
 * Runs at start and on the
 * admin CLI's `credentials rotate`. Returns how many values moved.
 */
export async function rewrapSecrets(deps: RewrapDeps): Promise<number> {
  const { keyring } = deps;
  const stale = (sealed: string) => sealedKeyId(sealed) !== keyring.current.id;
  let moved = 0;
  for (const credential of await deps.credentials.listAll()) {
    if (!stale(credential.sealedValue)) continue;
    await deps.credentials.replaceSealed(
      credential.id,
      rewrapSecret(keyring, credential.sealedValue, credentialContext(credential)),
    );
    moved += 1;
  }
  for (const connection of await deps.providerEvents.listSealedSecrets()) {
    const sealed = connection.signingSecretSealed;
    if (sealed === null || !stale(sealed)) continue;
    await deps.providerEvents.replaceSealedSecret(
      connection.id,
      rewrapSecret(keyring, sealed, signingSecretContext(connection)),
    );
    moved += 1;
  }
  if (moved > 0) deps.logger.info({ rows: moved, keyId: keyring.current.id }, 'secrets re-wrapped');
  return moved;
}

/** The admin CLI's rotation, served by one replica (queue group). */
export function serveRewrapSecrets(deps: RewrapDeps & { bus: Bus }): Subscription {
  return serveApi(
    deps.bus,
    BUS_APIS.operatorRewrapWorkflowSecrets,
    async () => ({ keyId: deps.keyring.current.id, rewrapped: await rewrapSecrets(deps) }),
    { queue: 'workflow-runner', logger: deps.logger },
  );
}
