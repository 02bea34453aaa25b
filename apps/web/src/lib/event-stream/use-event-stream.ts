import { useEffect, useRef, useState } from 'react';
import {
  decodeStreamEvent,
  nextEventStreamStatus,
  type EventStreamStatus,
  type StreamEvent,
  type StreamSignal,
} from './stream-events';

export interface EventStreamOptions<TType extends string> {
  /** The `event:` names to listen for; events of other names are ignored. */
  eventTypes: readonly TType[];
  /** Called for each event, in order; the latest function is always called. */
  onEvent: (event: StreamEvent<TType>) => void;
  /** True for the event after which the stream is over: the hook then closes it. */
  isFinal: (event: StreamEvent<TType>) => boolean;
}

export interface EventStreamState {
  status: EventStreamStatus;
  /** Id of the last event handed to `onEvent`; null before the first. */
  lastEventId: string | null;
}

/**
 * Reads a Server-Sent Events stream of the gateway (same origin, with the session cookie).
 * A dropped connection is resumed by the browser's EventSource with `Last-Event-ID`, so no
 * event is lost or repeated; the stream is closed when `isFinal` says so, when `url` changes
 * and on unmount. `url` null reads nothing.
 */
export function useEventStream<TType extends string>(
  url: string | null,
  options: EventStreamOptions<TType>,
): EventStreamState {
  // The state names the stream it belongs to, so a new url starts from `connecting` without
  // a reset inside the effect.
  const [state, setState] = useState<EventStreamState & { url: string | null }>({
    url: null,
    status: 'connecting',
    lastEventId: null,
  });
  const latestOptions = useRef(options);
  useEffect(() => {
    latestOptions.current = options;
  });
  const eventTypesKey = options.eventTypes.join('\n');

  useEffect(() => {
    if (url === null) return;
    const source = new EventSource(url, { withCredentials: true });
    const update = (change: { signal?: StreamSignal; lastEventId?: string }) =>
      setState((current) => {
        const base =
          current.url === url ? current : { url, status: 'connecting' as const, lastEventId: null };
        return {
          url,
          status: change.signal ? nextEventStreamStatus(base.status, change.signal) : base.status,
          lastEventId: change.lastEventId ?? base.lastEventId,
        };
      });

    source.onopen = () => update({ signal: { kind: 'open' } });
    source.onerror = () => {
      update({ signal: { kind: 'error', readyState: source.readyState } });
      if (source.readyState === EventSource.CLOSED) source.close();
    };
    const listeners = eventTypesKey.split('\n').map((type) => {
      const listener = (message: MessageEvent<string>) => {
        const event = decodeStreamEvent(type as TType, message);
        const { onEvent, isFinal } = latestOptions.current;
        onEvent(event);
        const final = isFinal(event);
        if (final) source.close();
        update({ lastEventId: event.id, ...(final ? { signal: { kind: 'final_event' } } : {}) });
      };
      source.addEventListener(type, listener);
      return [type, listener] as const;
    });
    return () => {
      for (const [type, listener] of listeners) source.removeEventListener(type, listener);
      source.close();
    };
  }, [url, eventTypesKey]);

  if (url === null) return { status: 'ended', lastEventId: null };
  if (state.url !== url) return { status: 'connecting', lastEventId: null };
  return { status: state.status, lastEventId: state.lastEventId };
}
