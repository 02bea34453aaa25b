import type { NatsConnection } from '@nats-io/nats-core';
import { NatsConnectionImpl, RequestOne, setTransportFactory } from '@nats-io/nats-core/internal';
import type { NodeConnectionOptions } from '@nats-io/transport-node';
import { NodeTransport, nodeResolveHost } from '@nats-io/transport-node/lib/node_transport';

/**
 * The nats.js release (nats-core and transport-node) whose internals this file patches, as read
 * and tested: its spec fails when the installed release differs, so an upgrade re-reads them.
 */
export const NATS_RELEASE_ADAPTED = '3.4.0';

/** What this file uses that nats.js does not document; a missing piece stops the connect. */
function assertInternalsPresent(): void {
  const used: Record<string, unknown> = {
    'RequestOne.prototype.resolver': RequestOne.prototype.resolver,
    'RequestOne.prototype.cancel': RequestOne.prototype.cancel,
    'NodeTransport.prototype.send': NodeTransport.prototype.send,
    'NatsConnectionImpl.connect': NatsConnectionImpl.connect,
    setTransportFactory,
    nodeResolveHost,
  };
  const missing = Object.keys(used).filter((name) => typeof used[name] !== 'function');
  if (missing.length > 0) {
    throw new Error(
      `nats.js no longer has ${missing.join(', ')}: libs/platform/src/distributed/nats-connection.ts was written for ${NATS_RELEASE_ADAPTED}`,
    );
  }
}

const ANSWERED = Symbol('answered');
type AnsweredRequest = RequestOne & { [ANSWERED]?: boolean };

/**
 * nats-core (3.4.0) ends every request, answered or not, with `cancel()`, which rejects the
 * request's promise with a new RequestError("cancelled"). Once the answer has settled the promise
 * that rejection changes nothing, but building the Error captures a stack trace through
 * optimized frames, and every JetStream publish and KV write is such a request: in the webhook
 * bench this was an eighth to a fifth of the CPU of the gateway, webhook-ingest and the runner
 * (decision 36). Once its resolver has settled the request (an answer, an error, a timeout),
 * cancel here only stops the timer and leaves the mux; a cancel before that rejects as before.
 */
function skipCancellationErrorOnceAnswered(): void {
  const prototype = RequestOne.prototype as AnsweredRequest;
  if (Object.hasOwn(prototype, ANSWERED)) return;
  const { resolver, cancel } = prototype;
  Object.defineProperty(prototype, ANSWERED, { value: false, writable: true });
  prototype.resolver = function (this: AnsweredRequest, error, message) {
    this[ANSWERED] = true;
    resolver.call(this, error, message);
  };
  prototype.cancel = function (this: AnsweredRequest, error) {
    if (!this[ANSWERED] || error) {
      cancel.call(this, error);
      return;
    }
    this.timer?.cancel();
    this.mux.cancel(this);
  };
}

/**
 * The node transport, writing once per turn of the event loop instead of once per message.
 *
 * nats.js flushes its outbound buffer in a microtask, so every reply or publish that a
 * separate async handler makes becomes a write(2) of its own, and nats-server reads and parses
 * each one separately. Corking the socket until the event loop's check phase hands the kernel
 * everything the handlers of one turn wrote as a single write, at the cost of at most one turn
 * of latency. In the webhook bench, nats-server's CPU per request fell from 366 to 127 µs
 * (decision 36).
 */
class CoalescingNodeTransport extends NodeTransport {
  private corked = false;

  override send(frame: Uint8Array): void {
    const socket = this.socket as NodeTransport['socket'] | undefined;
    if (!this.corked && socket && !socket.destroyed) {
      this.corked = true;
      socket.cork();
      setImmediate(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    super.send(frame);
  }
}

/**
 * `connect` of `@nats-io/transport-node`, with writes coalesced per event-loop turn. nats.js
 * keeps one transport factory per process, read at every connect and reconnect: a process
 * should open its connections with this function only, as the platform does.
 */
export function connectNats(options: NodeConnectionOptions): Promise<NatsConnection> {
  assertInternalsPresent();
  skipCancellationErrorOnceAnswered();
  setTransportFactory({
    factory: () => new CoalescingNodeTransport(),
    dnsResolveFn: nodeResolveHost,
  });
  return NatsConnectionImpl.connect(options);
}
