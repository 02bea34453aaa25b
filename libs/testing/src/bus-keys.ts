import type { Logger } from 'pino';
import { createBusSigner, createBusVerifier, generateBusKeySet, type BusKeySet } from '@wap/auth';
import { subjectTemplate, type BusPrincipal, type RequestSubjectSpec } from '@wap/contracts';
import { type Platform } from '@wap/platform';
import { withBusTrust } from '@wap/bus-protocol';
import { testLogger } from './services';

let keySet: BusKeySet | undefined;

/** One bus key set per test process: every principal's signing key and the trusted JWKS. */
export function testBusKeys(): BusKeySet {
  keySet ??= generateBusKeySet('test');
  return keySet;
}

/**
 * The platform as `principal` sees it, with the test key set: what `withBusKeys` of
 * @wap/service-runtime gives a process, without its metrics. A spec of a library serving
 * subjects of its own passes their registry entries as `subjects`.
 */
export async function asBusPrincipal(
  platform: Platform,
  principal: BusPrincipal,
  options: { logger?: Logger; subjects?: readonly RequestSubjectSpec[] } = {},
): Promise<Platform> {
  const { subjects } = options;
  const keys = testBusKeys();
  return withBusTrust(platform, {
    signer: await createBusSigner(keys.signingKeys[principal]),
    verifier: await createBusVerifier(keys.trustedKeys, { now: () => Date.now() }),
    logger: options.logger ?? testLogger(),
    subjects: subjects
      ? (subject) => subjects.find((spec) => spec.subject === subjectTemplate(subject))
      : undefined,
  });
}

/** BUS_SIGNING_KEY and BUS_TRUSTED_KEYS for a process started as `principal`. */
export function busKeyEnvironment(principal: BusPrincipal): {
  BUS_SIGNING_KEY: string;
  BUS_TRUSTED_KEYS: string;
} {
  const keys = testBusKeys();
  return { BUS_SIGNING_KEY: keys.signingKeys[principal], BUS_TRUSTED_KEYS: keys.trustedKeys };
}
