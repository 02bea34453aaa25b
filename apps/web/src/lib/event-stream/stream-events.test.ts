import { describe, expect, test } from 'vitest';
import {
  decodeStreamEvent,
  nextEventStreamStatus,
  type EventStreamStatus,
  type StreamSignal,
} from './stream-events';

describe('decodeStreamEvent', () => {
  test('parses the data as JSON and keeps the id the browser resumes from', () => {
    expect(decodeStreamEvent('delta', { data: '{"text":"Hel"}', lastEventId: '7' })).toEqual({
      type: 'delta',
      id: '7',
      data: { text: 'Hel' },
    });
  });

  test('keeps data that is not JSON as text', () => {
    expect(decodeStreamEvent('message', { data: 'plain text', lastEventId: '' })).toEqual({
      type: 'message',
      id: '',
      data: 'plain text',
    });
  });
});

describe('nextEventStreamStatus', () => {
  const CONNECTING = 0;
  const CLOSED = 2;
  test.each<[EventStreamStatus, StreamSignal, EventStreamStatus]>([
    ['connecting', { kind: 'open' }, 'open'],
    ['open', { kind: 'error', readyState: CONNECTING }, 'reconnecting'],
    ['reconnecting', { kind: 'open' }, 'open'],
    ['connecting', { kind: 'error', readyState: CLOSED }, 'failed'],
    ['open', { kind: 'final_event' }, 'ended'],
    ['ended', { kind: 'error', readyState: CONNECTING }, 'ended'],
    ['ended', { kind: 'open' }, 'ended'],
    ['failed', { kind: 'open' }, 'failed'],
  ])('%s, then %o: %s', (current, signal, next) => {
    expect(nextEventStreamStatus(current, signal)).toBe(next);
  });
});
