import type { Message, TurnStatus } from '@wap/contracts';
import { Button, ErrorMessage } from '../../../components';
import { describeError } from '../../../lib/api';
import type { EventStreamStatus } from '../../../lib/event-stream';
import { useTurn } from '../api/chats-api';
import { ChatTime } from '../chat-time';
import { MarkdownText } from './markdown-text';
import { ToolCallCard } from './tool-call-card';
import type { ToolCallView } from './turn-state';

export function UserMessage(props: { message: Message; author: string }) {
  return (
    <article className="message message--user" aria-label={props.author}>
      <header className="message__header">
        <span className="message__author">{props.author}</span>
        <ChatTime className="message__time" value={props.message.created_at} />
      </header>
      <div className="message__text">
        <MarkdownText text={props.message.content} />
      </div>
    </article>
  );
}

/** An assistant reply, stored or streaming; the same markup for both, so nothing jumps at the end. */
export interface ReplyView {
  requestId: string | null;
  /** null before the live turn's first status event. */
  status: TurnStatus | null;
  text: string;
  toolCalls: ToolCallView[];
  /** A failed live turn's reason; a stored failed reply fetches its own. */
  error: string | null;
  createdAt: string | null;
  /** True while its events stream in: its text is a live region. */
  live: boolean;
}

export interface ReplyControls {
  /** Given when the viewer may stop this turn (they started it). */
  onStop?: () => void;
  onStopTool?: (toolName: string) => void;
  stopping: boolean;
  stoppingTool: boolean;
  stopError: unknown;
  streamStatus: EventStreamStatus;
}

export function AssistantReply(props: { reply: ReplyView; controls?: ReplyControls }) {
  const { reply, controls } = props;
  const running = reply.status === 'running' || reply.status === null;
  const runningCall = running
    ? reply.toolCalls.findLast((call) => call.result === null)
    : undefined;
  return (
    <article className="message message--assistant" aria-label="Assistant">
      <header className="message__header">
        <span className="message__author">Assistant</span>
        {reply.createdAt && <ChatTime className="message__time" value={reply.createdAt} />}
      </header>
      {reply.toolCalls.map((call) => (
        <ToolCallCard
          key={call.id}
          call={call}
          running={reply.live && call === runningCall}
          onStop={controls?.onStopTool && (() => controls.onStopTool?.(call.name))}
          stopping={controls?.stoppingTool}
        />
      ))}
      <div className="message__text" aria-live={reply.live ? 'polite' : undefined}>
        <MarkdownText text={reply.text} />
      </div>
      <ReplyFooter reply={reply} running={running} runningTool={runningCall} controls={controls} />
    </article>
  );
}

function ReplyFooter(props: {
  reply: ReplyView;
  running: boolean;
  runningTool: ToolCallView | undefined;
  controls: ReplyControls | undefined;
}) {
  const { reply, running, runningTool, controls } = props;
  if (reply.status === 'stopped') {
    return <p className="message__status">Stopped: the reply was cut short here.</p>;
  }
  if (reply.status === 'failed') {
    return reply.live || reply.error !== null || reply.requestId === null ? (
      <div className="notice notice--error" role="alert">
        The reply failed: {reply.error ?? 'no reason was given.'}
      </div>
    ) : (
      <FailedReplyNote requestId={reply.requestId} />
    );
  }
  if (!running) return null;
  return (
    <div className="message__footer">
      <p className="message__status">
        {!reply.live
          ? 'The assistant is still answering…'
          : runningTool
            ? `Running the tool ${runningTool.name}…`
            : 'Writing…'}
        {controls?.streamStatus === 'reconnecting' && ' The connection dropped: reconnecting…'}
      </p>
      {controls?.streamStatus === 'failed' && (
        <p className="message__status">
          The reply cannot be followed live. Reload the page to see it once it is written.
        </p>
      )}
      {reply.live && controls?.onStop && (
        <Button variant="danger" busy={controls.stopping} onClick={controls.onStop}>
          Stop
        </Button>
      )}
      {controls?.stopError != null && <ErrorMessage error={controls.stopError} />}
    </div>
  );
}

/** A stored failed reply: its reason is kept on the turn. */
function FailedReplyNote(props: { requestId: string }) {
  const turn = useTurn(props.requestId);
  return (
    <div className="notice notice--error">
      The reply failed{turn.data?.error ? `: ${turn.data.error}` : '.'}
      {turn.isError && ` Its reason could not be loaded: ${describeError(turn.error)}`}
    </div>
  );
}
