import type { Logger } from 'pino';
import { createBusSigner, createBusVerifier, type BusKeySet } from '@wap/auth';
import type { BusPrincipal } from '@wap/contracts';
import { platformMetrics } from '@wap/observability';
import { type Platform } from '@wap/platform';
import { withBusTrust } from '@wap/bus-protocol';

/** A principal's keys: its own private signing key and every signer's public key. */
export interface BusKeys {
  /** A private Ed25519 JWK (JSON) whose kid is `<principal>:<version>` (BUS_SIGNING_KEY). */
  signingKey: string;
  /** A JWKS (JSON) of every principal's public keys (BUS_TRUSTED_KEYS). */
  trustedKeys: string;
}

/** One principal's keys out of a generated key set (the embedded runtime). */
export function busKeysOf(keySet: BusKeySet, principal: BusPrincipal): BusKeys {
  return { signingKey: keySet.signingKeys[principal], trustedKeys: keySet.trustedKeys };
}

/**
 * The platform as `principal`, the holder of `keys`, sees it: its requests signed, the requests it serves
 * verified, refusals logged and counted (decision 112).
 */
export async function withBusKeys(
  platform: Platform,
  principal: BusPrincipal,
  keys: BusKeys,
  logger: Logger,
): Promise<Platform> {
  const signer = await createBusSigner(keys.signingKey);
  if (signer.principal !== principal) {
    throw new Error(`the bus signing key given to ${principal} is ${signer.principal}'s`);
  }
  return withBusTrust(platform, {
    signer,
    // Wall time, as the signer's: an assertion's freshness is a fact of the transport, not of
    // the business time a test's platform clock may move to.
    verifier: await createBusVerifier(keys.trustedKeys, { now: () => Date.now() }),
    logger,
    onRefused: (labels) => platformMetrics.busRefused(labels),
  });
}
