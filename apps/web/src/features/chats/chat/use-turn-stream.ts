import { useRef, useState } from 'react';
import type { TurnEventType } from '@wap/contracts';
import {
  useEventStream,
  type EventStreamStatus,
  type StreamEvent,
} from '../../../lib/event-stream';
import {
  applyTurnEvent,
  INITIAL_TURN_STATE,
  isFinalTurnEvent,
  TURN_EVENT_TYPES,
  type TurnState,
} from './turn-state';

interface FollowedTurn {
  requestId: string;
  state: TurnState;
}

/**
 * Follows one turn's events (`GET /brain/turns/{requestId}/events`) from its first event, so a
 * reply opened mid-way (a reload, another viewer) shows everything streamed so far, then each
 * token as it comes. `onEnded` is called once with the final state after the last status.
 */
export function useTurnStream(
  requestId: string | null,
  onEnded: (requestId: string, state: TurnState) => void,
): { state: TurnState; streamStatus: EventStreamStatus } {
  const [followed, setFollowed] = useState<FollowedTurn | null>(null);
  // Several events can arrive before React renders again: each builds on the one before.
  const latest = useRef<FollowedTurn | null>(null);
  const stream = useEventStream(
    requestId === null ? null : `/brain/turns/${encodeURIComponent(requestId)}/events`,
    {
      eventTypes: TURN_EVENT_TYPES,
      isFinal: isFinalTurnEvent,
      onEvent: (event: StreamEvent<TurnEventType>) => {
        if (requestId === null) return;
        const base =
          latest.current?.requestId === requestId ? latest.current.state : INITIAL_TURN_STATE;
        const next = { requestId, state: applyTurnEvent(base, event) };
        latest.current = next;
        setFollowed(next);
        if (isFinalTurnEvent(event)) onEnded(requestId, next.state);
      },
    },
  );
  return {
    state:
      followed !== null && followed.requestId === requestId ? followed.state : INITIAL_TURN_STATE,
    streamStatus: stream.status,
  };
}
