import { headers as createMsgHdrs, type MsgHdrs } from '@nats-io/nats-core';
import type { MessageHeaders } from '../platform';

/** NATS headers are multi-valued; the platform carries one value per key, so the first wins. */
export function fromMsgHdrs(natsHeaders: MsgHdrs | undefined): MessageHeaders {
  const result: MessageHeaders = {};
  if (!natsHeaders) return result;
  for (const [key, values] of natsHeaders) {
    const first = values[0];
    if (first !== undefined) result[key] = first;
  }
  return result;
}

/** Returns undefined for no headers so that plain messages stay header-less on the wire. */
export function toMsgHdrs(headers: MessageHeaders | undefined): MsgHdrs | undefined {
  if (!headers) return undefined;
  const entries = Object.entries(headers);
  if (entries.length === 0) return undefined;
  const natsHeaders = createMsgHdrs();
  for (const [key, value] of entries) natsHeaders.set(key, value);
  return natsHeaders;
}
