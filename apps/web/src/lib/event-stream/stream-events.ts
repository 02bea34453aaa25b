/**
 * How an event stream is doing: `connecting` until the first answer, `open` while events
 * arrive, `reconnecting` after a dropped connection (the browser reconnects by itself and sends
 * `Last-Event-ID`, so the server goes on after the last event seen), `ended` once the final
 * event arrived, `failed` when the server refused the stream (a non-200 answer: EventSource
 * does not retry those).
 */
export type EventStreamStatus = 'connecting' | 'open' | 'reconnecting' | 'ended' | 'failed';

/** One Server-Sent Event as the hook hands it over. */
export interface StreamEvent<TType extends string = string> {
  /** The `event:` field. */
  type: TType;
  /** The `id:` field: the id the browser sends back as Last-Event-ID when it reconnects. */
  id: string;
  /** The `data:` field parsed as JSON; the raw text when it is not JSON. */
  data: unknown;
}

/** What the EventSource told the hook. */
export type StreamSignal =
  { kind: 'open' } | { kind: 'error'; readyState: number } | { kind: 'final_event' };

/** EventSource.readyState after an error: CONNECTING (0) means it is retrying, CLOSED (2) that it gave up. */
const READY_STATE_CONNECTING = 0;

/** The status after a signal; `ended` and `failed` are final. */
export function nextEventStreamStatus(
  current: EventStreamStatus,
  signal: StreamSignal,
): EventStreamStatus {
  if (current === 'ended' || current === 'failed') return current;
  switch (signal.kind) {
    case 'open':
      return 'open';
    case 'final_event':
      return 'ended';
    case 'error':
      return signal.readyState === READY_STATE_CONNECTING ? 'reconnecting' : 'failed';
  }
}

/** A `MessageEvent` of an EventSource, as a typed event with its data parsed. */
export function decodeStreamEvent<TType extends string>(
  type: TType,
  message: { data: string; lastEventId: string },
): StreamEvent<TType> {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    data = message.data;
  }
  return { type, id: message.lastEventId, data };
}
