import type { TurnEventType } from '@wap/contracts';
import { describe, expect, test } from 'vitest';
import type { StreamEvent } from '../../../lib/event-stream';
import {
  applyTurnEvent,
  INITIAL_TURN_STATE,
  isFinalTurnEvent,
  runningToolCall,
  toolResultText,
  type TurnState,
} from './turn-state';

let nextId = 1;
const event = (type: TurnEventType, data: unknown): StreamEvent<TurnEventType> => ({
  type,
  id: String(nextId++),
  data,
});
const replay = (...events: StreamEvent<TurnEventType>[]): TurnState =>
  events.reduce(applyTurnEvent, INITIAL_TURN_STATE);

describe('applyTurnEvent', () => {
  test('joins deltas into the reply text, in order', () => {
    const state = replay(
      event('status', { status: 'running' }),
      event('delta', { text: 'Hel' }),
      event('delta', { text: 'lo' }),
    );
    expect(state).toEqual({ status: 'running', text: 'Hello', toolCalls: [], error: null });
  });

  test('a tool call runs until its result arrives; a cancelled result says so', () => {
    const called = replay(
      event('status', { status: 'running' }),
      event('tool_call', {
        toolCallId: 'call_1',
        name: 'trigger-long-running-operation',
        arguments: { duration: 30, steps: 30 },
      }),
    );
    expect(runningToolCall(called)).toEqual({
      id: 'call_1',
      name: 'trigger-long-running-operation',
      argumentsText: '{\n  "duration": 30,\n  "steps": 30\n}',
      result: null,
    });
    const answered = applyTurnEvent(
      called,
      event('tool_result', {
        toolCallId: 'call_1',
        name: 'trigger-long-running-operation',
        isError: true,
        cancelled: true,
        content: [{ type: 'text', text: 'The tool call was cancelled by the user.' }],
      }),
    );
    expect(runningToolCall(answered)).toBeUndefined();
    expect(answered.toolCalls[0]?.result).toEqual({
      isError: true,
      cancelled: true,
      text: 'The tool call was cancelled by the user.',
    });
  });

  test('a failed turn keeps its reason and its partial text', () => {
    const state = replay(
      event('status', { status: 'running' }),
      event('delta', { text: 'Partial' }),
      event('status', { status: 'failed', error: 'The model provider failed: it answered 500' }),
    );
    expect(state).toMatchObject({
      status: 'failed',
      text: 'Partial',
      error: 'The model provider failed: it answered 500',
    });
  });

  test('skips events whose data does not read as the contract says', () => {
    const state = replay(
      event('status', { status: 'exploded' }),
      event('delta', { text: 42 }),
      event('tool_call', { name: 'no id' }),
      event('delta', 'not an object'),
    );
    expect(state).toEqual(INITIAL_TURN_STATE);
  });
});

describe('isFinalTurnEvent', () => {
  test.each([
    ['running', false],
    ['completed', true],
    ['stopped', true],
    ['failed', true],
  ])('a status %s is final: %s', (status, final) => {
    expect(isFinalTurnEvent(event('status', { status }))).toBe(final);
  });

  test('a delta is never final', () => {
    expect(isFinalTurnEvent(event('delta', { text: 'completed' }))).toBe(false);
  });
});

describe('toolResultText', () => {
  test('shows text parts as they are and other parts as JSON', () => {
    expect(
      toolResultText([
        { type: 'text', text: 'Done' },
        { type: 'image', mimeType: 'image/png' },
      ]),
    ).toBe('Done\n{"type":"image","mimeType":"image/png"}');
  });
});
