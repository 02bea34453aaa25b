import { namespacedStreamName } from '@wap/contracts';
import type { Platform, StreamMessage } from './platform';

const NAMESPACE_PATTERN = /^[a-z0-9]{1,32}$/;

/**
 * The same platform seen through a namespace: every subject, stream, KV bucket and object
 * bucket gets the namespace as a prefix, so several independent deployments (or parallel test
 * runs) share one NATS server without seeing each other's traffic. Handlers see the
 * un-prefixed names, so service code is unaware of it.
 */
export function withNamespace(platform: Platform, namespace: string): Platform {
  if (!NAMESPACE_PATTERN.test(namespace)) {
    throw new Error(`namespace must match ${NAMESPACE_PATTERN}: ${namespace}`);
  }
  const subjectPrefix = `${namespace}.`;
  const subject = (name: string) => `${subjectPrefix}${name}`;
  const unprefixed = (name: string) =>
    name.startsWith(subjectPrefix) ? name.slice(subjectPrefix.length) : name;
  const streamName = (name: string) => namespacedStreamName(name, namespace);
  const bucketName = (name: string) => `${namespace}_${name}`;
  const { bus, streams, kv, objects } = platform;

  return {
    ...platform,
    runtime: platform.runtime,
    isReady: () => platform.isReady(),
    close: () => platform.close(),
    bus: {
      request: async (name, data, options) => {
        const reply = await bus.request(subject(name), data, options);
        return { ...reply, subject: unprefixed(reply.subject) };
      },
      serve: (name, handler, options) =>
        bus.serve(
          subject(name),
          (message) => handler({ ...message, subject: unprefixed(message.subject) }),
          options,
        ),
      publish: (name, data, headers) => bus.publish(subject(name), data, headers),
      subscribe: (name, handler, options) =>
        bus.subscribe(
          subject(name),
          (message) => handler({ ...message, subject: unprefixed(message.subject) }),
          options,
        ),
    },
    streams: {
      ensureStream: (config) =>
        streams.ensureStream({
          ...config,
          name: streamName(config.name),
          subjects: config.subjects.map(subject),
        }),
      publish: async (name, data, options) => {
        const ack = await streams.publish(subject(name), data, options);
        return { ...ack, stream: ack.stream.replace(`${namespace.toUpperCase()}_`, '') };
      },
      consume: (config, handler) =>
        streams.consume(
          {
            ...config,
            stream: streamName(config.stream),
            filterSubject: config.filterSubject ? subject(config.filterSubject) : undefined,
          },
          (message) => handler(unprefixedMessage(message, unprefixed)),
        ),
      pending: (stream, durable) => streams.pending(streamName(stream), durable),
    },
    kv: {
      bucket: (name, options) => kv.bucket(bucketName(name), options),
      view: (name) => kv.view(bucketName(name)),
    },
    objects: {
      ensureBucket: (bucket, options) => objects.ensureBucket(bucketName(bucket), options),
      put: (bucket, name, content, meta) => objects.put(bucketName(bucket), name, content, meta),
      get: (bucket, name) => objects.get(bucketName(bucket), name),
      info: (bucket, name) => objects.info(bucketName(bucket), name),
      delete: (bucket, name) => objects.delete(bucketName(bucket), name),
    },
  };
}

function unprefixedMessage(
  message: StreamMessage,
  unprefixed: (name: string) => string,
): StreamMessage {
  return {
    subject: unprefixed(message.subject),
    data: message.data,
    headers: message.headers,
    seq: message.seq,
    deliveryCount: message.deliveryCount,
    ack: () => message.ack(),
    nak: (delayMs) => message.nak(delayMs),
    term: () => message.term(),
    working: () => message.working(),
  };
}
