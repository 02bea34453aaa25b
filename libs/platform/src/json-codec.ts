const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A value as the bus, streams and KV carry it: JSON in UTF-8. */
export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export function decodeJson(data: Uint8Array): unknown {
  return JSON.parse(decoder.decode(data));
}
