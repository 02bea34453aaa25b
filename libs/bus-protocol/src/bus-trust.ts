import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import {
  requestSubjectSpec,
  subjectTemplate,
  type Actor,
  type BusPrincipal,
  type RequestSubjectSpec,
} from '@wap/contracts';
import type { Bus, BusMessage, BusReply, MessageHeaders, Platform, Streams } from '@wap/platform';
import { RAW_META_HEADER, refusalReply } from './rpc';

/** The header that carries a request's signed assertion (a compact JWS). */
export const ASSERTION_HEADER = 'wap-assertion';
/** The header that carries a stream message's signature by its publisher (decision 150). */
export const PUBLISHER_SIGNATURE_HEADER = 'wap-publisher-signature';
/** Headers whose values the assertion's digest covers besides the data. */
const BOUND_HEADERS = [RAW_META_HEADER] as const;

/** What the trust layer needs of a signer (`createBusSigner` of `@wap/auth`). */
export interface AssertionSigner {
  readonly principal: BusPrincipal;
  sign(claims: {
    audience: string;
    digest: string;
    requestId?: string;
    user?: Actor;
  }): Promise<string>;
  signMessage(data: Uint8Array): string;
}

/** What the trust layer needs of a verifier (`createBusVerifier` of `@wap/auth`). */
export interface AssertionVerifier {
  verify(
    token: string | undefined,
    audience: string,
  ): Promise<{ principal: BusPrincipal; digest: string; requestId?: string; user?: Actor }>;
  verifyMessage(signature: string | undefined, data: Uint8Array): BusPrincipal;
}

export interface BusTrust {
  signer: AssertionSigner;
  verifier: AssertionVerifier;
  logger: Logger;
  /** The registry entry of a subject; the platform's own registry unless a test brings its own. */
  subjects?: (subject: string) => RequestSubjectSpec | undefined;
  /**
   * Counts a refusal (`wap_bus_refused_total`). The reason is a label (`missing`, `expired`,
   * `audience`, `replayed`, `caller`, ...), never the assertion's contents.
   */
  onRefused?: (labels: { subject: string; reason: string }) => void;
}

class Refusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** SHA-256 of the request's data and bound headers, base64url: what an assertion vouches for. */
export function requestDigest(data: Uint8Array, headers: MessageHeaders | undefined): string {
  const hash = createHash('sha256').update(data);
  for (const name of BOUND_HEADERS) {
    const value = headers?.[name];
    hash.update('\n').update(value === undefined ? '' : `${name}:${value}`);
  }
  return hash.digest('base64url');
}

function reasonOf(error: unknown): string {
  if (error instanceof Refusal) return error.reason;
  const reason = (error as { reason?: unknown }).reason;
  return typeof reason === 'string' ? reason : 'malformed';
}

/**
 * The bus as one principal sees it (decision 112): every request it sends carries an assertion
 * signed with its key, naming the service that serves the subject as the audience and covering
 * the request's bytes; every request it serves is answered only when its assertion verifies, is
 * meant for this service, is fresh and unseen, comes from a caller the subject registry lists,
 * and names a person where the subject needs one. Handlers see the verified caller.
 */
export function withBusTrust(platform: Platform, trust: BusTrust): Platform {
  return {
    runtime: platform.runtime,
    bus: trustedBus(platform.bus, trust),
    streams: trustedStreams(platform.streams, trust),
    kv: platform.kv,
    objects: platform.objects,
    sql: platform.sql,
    clock: platform.clock,
    ids: platform.ids,
    isReady: () => platform.isReady(),
    close: () => platform.close(),
  };
}

/**
 * Streams as one principal sees them (decision 150): every message it publishes carries its
 * signature over the bytes (replacing one a copied message brought along), and every message it
 * consumes says who signed it (`publisher`), or nothing when the signature is missing or does
 * not verify. What a consumer accepts from whom is the consumer's rule (`publisherOf`).
 */
export function trustedStreams(streams: Streams, trust: BusTrust): Streams {
  const { signer, verifier } = trust;
  return {
    ensureStream: (config) => streams.ensureStream(config),
    pending: (stream, durable) => streams.pending(stream, durable),
    publish: (subject, data, options) =>
      streams.publish(subject, data, {
        ...options,
        headers: { ...options?.headers, [PUBLISHER_SIGNATURE_HEADER]: signer.signMessage(data) },
      }),
    consume: (config, handler) =>
      streams.consume(config, (message) => {
        let publisher: BusPrincipal | undefined;
        try {
          publisher = verifier.verifyMessage(
            message.headers[PUBLISHER_SIGNATURE_HEADER],
            message.data,
          );
        } catch {
          publisher = undefined;
        }
        return handler(Object.assign(message, { publisher }));
      }),
  };
}

/** The bus half of `withBusTrust`, for a process that holds only a bus. */
export function trustedBus(bus: Bus, trust: BusTrust): Bus {
  const { signer, verifier, logger, subjects = requestSubjectSpec } = trust;
  const self = signer.principal;

  async function callerOf(message: BusMessage) {
    const spec = subjects(message.subject);
    if (!spec) throw new Refusal('unregistered');
    if (spec.server !== self) throw new Refusal('wrong_server');
    const verified = await verifier.verify(message.headers[ASSERTION_HEADER], self);
    if (verified.digest !== requestDigest(message.data, message.headers)) {
      throw new Refusal('digest');
    }
    if (!spec.callers.includes(verified.principal)) throw new Refusal('caller');
    if (spec.user && !verified.user) throw new Refusal('user_required');
    return {
      principal: verified.principal,
      user: verified.user,
      requestId: verified.requestId,
    };
  }

  return {
    async request(subject, data, options) {
      const spec = subjects(subject);
      if (!spec) throw new Error(`${subject} is not a registered request subject`);
      const { onBehalfOf, requestId, ...rest } = options;
      const assertion = await signer.sign({
        audience: spec.server,
        digest: requestDigest(data, options.headers),
        requestId,
        user: onBehalfOf,
      });
      return bus.request(subject, data, {
        ...rest,
        headers: { ...options.headers, [ASSERTION_HEADER]: assertion },
      });
    },
    serve(subject, handler, options) {
      return bus.serve(
        subject,
        async (message): Promise<BusReply> => {
          let caller;
          try {
            caller = await callerOf(message);
          } catch (error) {
            const reason = reasonOf(error);
            const template = subjectTemplate(message.subject);
            logger.warn({ subject: template, reason }, 'bus request refused');
            trust.onRefused?.({ subject: template, reason });
            return refusalReply();
          }
          return handler({ ...message, caller });
        },
        options,
      );
    },
    publish: (subject, data, headers) => bus.publish(subject, data, headers),
    subscribe: (subject, handler, options) => bus.subscribe(subject, handler, options),
  };
}
