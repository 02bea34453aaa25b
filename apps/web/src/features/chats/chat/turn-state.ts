import type { Message, TurnEventType, TurnStatus } from '@wap/contracts';
import type { StreamEvent } from '../../../lib/event-stream';

/** A tool call as the chat shows it, live from a turn's events or stored on a message. */
export interface ToolCallView {
  id: string;
  name: string;
  /** The arguments as a person reads them: indented JSON, or the text the model sent. */
  argumentsText: string;
  /** null while the tool runs. */
  result: { isError: boolean; cancelled: boolean; text: string } | null;
}

/** What a turn's events (decision 83) have said so far. */
export interface TurnState {
  /** null until the first `status` event. */
  status: TurnStatus | null;
  text: string;
  toolCalls: ToolCallView[];
  /** A failed turn's reason. */
  error: string | null;
}

export const TURN_EVENT_TYPES = [
  'status',
  'delta',
  'tool_call',
  'tool_result',
] as const satisfies readonly TurnEventType[];

export const INITIAL_TURN_STATE: TurnState = { status: null, text: '', toolCalls: [], error: null };

const TURN_STATUSES: readonly string[] = ['running', 'completed', 'stopped', 'failed'];

/** The state after one more event; an event that does not read as the contract says is skipped. */
export function applyTurnEvent(state: TurnState, event: StreamEvent<TurnEventType>): TurnState {
  const data = isRecord(event.data) ? event.data : {};
  switch (event.type) {
    case 'status': {
      const status = data['status'];
      if (typeof status !== 'string' || !TURN_STATUSES.includes(status)) return state;
      const error = data['error'];
      return {
        ...state,
        status: status as TurnStatus,
        error: typeof error === 'string' ? error : state.error,
      };
    }
    case 'delta':
      return typeof data['text'] === 'string'
        ? { ...state, text: state.text + data['text'] }
        : state;
    case 'tool_call': {
      const id = data['toolCallId'];
      const name = data['name'];
      if (typeof id !== 'string' || typeof name !== 'string') return state;
      const call: ToolCallView = {
        id,
        name,
        argumentsText: formatArguments(data['arguments']),
        result: null,
      };
      return { ...state, toolCalls: [...state.toolCalls, call] };
    }
    case 'tool_result': {
      const id = data['toolCallId'];
      const result = {
        isError: data['isError'] === true,
        cancelled: data['cancelled'] === true,
        text: toolResultText(data['content']),
      };
      return {
        ...state,
        toolCalls: state.toolCalls.map((call) => (call.id === id ? { ...call, result } : call)),
      };
    }
  }
}

/** The last `status` event, after which the stream ends. */
export function isFinalTurnEvent(event: StreamEvent<TurnEventType>): boolean {
  return (
    event.type === 'status' &&
    isRecord(event.data) &&
    typeof event.data['status'] === 'string' &&
    event.data['status'] !== 'running'
  );
}

/** The tool call that runs now, which "Stop tool" stops. */
export function runningToolCall(state: TurnState): ToolCallView | undefined {
  if (state.status !== 'running') return undefined;
  return state.toolCalls.findLast((call) => call.result === null);
}

/** A stored reply's tool calls, shown as live ones are. */
export function toolCallsOfMessage(message: Message): ToolCallView[] {
  return message.tool_calls.map((call) => ({
    id: call.id,
    name: call.name,
    argumentsText: formatArguments(call.arguments),
    result: call.result && {
      isError: call.result.isError,
      cancelled: call.result.cancelled,
      text: toolResultText(call.result.content),
    },
  }));
}

/** Arguments arrive as an object (events) or as the model's JSON text (stored calls). */
export function formatArguments(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value ?? {}, null, 2);
}

/** An MCP result's content: its text parts as they are, anything else (images, resources) as JSON. */
export function toolResultText(content: unknown): string {
  if (!Array.isArray(content))
    return typeof content === 'string' ? content : JSON.stringify(content);
  return content
    .map((part: unknown) =>
      isRecord(part) && part['type'] === 'text' && typeof part['text'] === 'string'
        ? part['text']
        : JSON.stringify(part),
    )
    .join('\n');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
