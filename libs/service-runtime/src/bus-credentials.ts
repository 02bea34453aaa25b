import { generateBusKeySet, type BusKeySet } from '@wap/auth';
import type { BusPrincipal } from '@wap/contracts';
import { generateNatsUsers, type NatsUser } from '@wap/platform';

/** What one principal's processes are given: its two secrets and the public trust list. */
export type PrincipalEnvironment = Record<
  'BUS_SIGNING_KEY' | 'BUS_TRUSTED_KEYS' | 'NATS_NKEY_SEED',
  string
>;

/** A deployment's bus credentials: a signing key and a NATS user for every principal. */
export interface BusCredentials {
  keySet: BusKeySet;
  natsUsers: NatsUser[];
  environmentOf(principal: BusPrincipal): PrincipalEnvironment;
}

/**
 * Fresh credentials for every principal (decision 113): what `npm run bus:credentials` writes for
 * development, the cluster test and the security suite use, and production keeps in Secrets.
 * `version` names the keys (`<principal>:<version>`), so a rotation can trust old and new at once.
 */
export function createBusCredentials(version = '1'): BusCredentials {
  const keySet = generateBusKeySet(version);
  const natsUsers = generateNatsUsers();
  const seeds = new Map(natsUsers.map((user) => [user.principal, user.seed]));
  return {
    keySet,
    natsUsers,
    environmentOf: (principal) => ({
      BUS_SIGNING_KEY: keySet.signingKeys[principal],
      BUS_TRUSTED_KEYS: keySet.trustedKeys,
      NATS_NKEY_SEED: seeds.get(principal) ?? '',
    }),
  };
}
