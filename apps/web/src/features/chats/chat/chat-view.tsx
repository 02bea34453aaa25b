import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import type { Message, ViewedConversation } from '@wap/contracts';
import { EmptyState, ErrorMessage, LoadingState } from '../../../components';
import { appPaths } from '../../../lib/routing';
import { refreshAfterTurn, useAccessRequests, useCancelTurn, useMessages } from '../api/chats-api';
import { useMe, useMembers } from '../../workspace';
import { chatsKeys } from '../api/chats-keys';
import { ChatHeader } from './chat-header';
import { Composer, type SentMessage } from './composer';
import { AssistantReply, UserMessage, type ReplyControls, type ReplyView } from './message-views';
import { toolCallsOfMessage, type TurnState } from './turn-state';
import { useFollowNewest } from './use-follow-newest';
import { useTurnStream } from './use-turn-stream';

/** How long after a turn ended its stored reply may still read `running`, before asking again, in ms. */
const STORED_REPLY_RECHECK_MS = 1000;

/**
 * An open chat: its messages oldest first, the reply being written streamed token by token
 * with its tool calls, the stops, and the composer.
 */
export function ChatView(props: { chat: ViewedConversation }) {
  const { chat } = props;
  const queryClient = useQueryClient();
  const messages = useMessages(chat.id);
  const { myId, authorOf } = useAuthors(chat.workspace_id);
  const cancelTurn = useCancelTurn();
  const cancelTool = useCancelTurn();
  const chatElement = useRef<HTMLDivElement>(null);
  useFollowNewest(chatElement);
  /** The turn this person started on this page; followed until it ends. */
  const [sent, setSent] = useState<SentMessage | null>(null);
  /** Turns that ended while followed here, with what their events said. */
  const [ended, setEnded] = useState<Record<string, TurnState>>({});

  const stored = messages.data ?? [];
  // A reply still being written when the page opened (a reload, someone else's turn) is
  // followed too: its stream replays from the first event.
  const unfinished = stored.findLast(
    (message) =>
      message.role === 'assistant' &&
      message.status === 'running' &&
      message.request_id !== null &&
      !(message.request_id in ended),
  );
  const followedId =
    sent && !(sent.requestId in ended) ? sent.requestId : (unfinished?.request_id ?? null);
  const live = useTurnStream(followedId, (requestId, state) => {
    setEnded((current) => ({ ...current, [requestId]: state }));
    void refreshAfterTurn(queryClient, chat);
  });

  useRecheckLaggingReplies(stored, ended, messages.dataUpdatedAt, chat.id);

  useKeepStreamInView(live.state.text.length + live.state.toolCalls.length);

  const startedByMe = (requestId: string) =>
    sent?.requestId === requestId ||
    (myId !== undefined &&
      stored.some(
        (message) =>
          message.role === 'user' && message.request_id === requestId && message.user_id === myId,
      ));

  const replyOf = (requestId: string | null, message: Message | null): ReplyView => {
    const state =
      requestId === null ? undefined : requestId === followedId ? live.state : ended[requestId];
    const streaming = requestId === followedId && live.streamStatus !== 'ended';
    return replyViewOf(requestId, message, state, streaming);
  };
  const controlsOf = (requestId: string | null): ReplyControls | undefined => {
    if (requestId === null || requestId !== followedId) return undefined;
    const mine = startedByMe(requestId);
    return {
      onStop: mine ? () => cancelTurn.mutate({ requestId, cancelToolOnly: false }) : undefined,
      onStopTool: mine
        ? (toolName) => cancelTool.mutate({ requestId, cancelToolOnly: true, toolName })
        : undefined,
      stopping: cancelTurn.isPending,
      stoppingTool: cancelTool.isPending,
      stopError: cancelTurn.error ?? cancelTool.error,
      streamStatus: live.streamStatus,
    };
  };

  const items = messageItems(stored, sent, replyOf, controlsOf);
  const replying =
    followedId !== null && (live.state.status === null || live.state.status === 'running');

  return (
    <div ref={chatElement} className="chat">
      <ChatHeader chat={chat} />
      {chat.viewerIsOwner && <AccessRequestsNotice chat={chat} />}
      <MessageList chat={chat} messages={messages} items={items} authorOf={authorOf} />
      <Composer
        chat={chat}
        replying={replying}
        onSent={(message) => {
          cancelTurn.reset();
          cancelTool.reset();
          setSent(message);
        }}
      />
    </div>
  );
}

/** Who wrote a message, as this reader calls them: You, a member's name, or "A member". */
function useAuthors(workspaceId: string) {
  const me = useMe();
  const members = useMembers(workspaceId);
  const myId = me.data?.user.id;
  const names = new Map(members.data?.members.map((member) => [member.user_id, member.name]));
  const authorOf = (message: Message) =>
    message.user_id !== null && message.user_id === myId
      ? 'You'
      : (message.user_id !== null && names.get(message.user_id)) || 'A member';
  return { myId, authorOf };
}

/** Asks for the stored messages again while a reply whose turn ended still reads `running`. */
function useRecheckLaggingReplies(
  stored: readonly Message[],
  ended: Record<string, TurnState>,
  readAt: number,
  chatId: string,
) {
  const queryClient = useQueryClient();
  // A reply is written to its message as its turn ends; a refresh that came first is repeated.
  const lagging = stored.some(
    (message) =>
      message.role === 'assistant' &&
      message.status === 'running' &&
      message.request_id !== null &&
      message.request_id in ended,
  );
  useEffect(() => {
    if (!lagging) return;
    const timer = setTimeout(
      () => void queryClient.invalidateQueries({ queryKey: chatsKeys.messages(chatId) }),
      STORED_REPLY_RECHECK_MS,
    );
    return () => clearTimeout(timer);
    // Each read that still lags schedules the next one.
  }, [lagging, readAt, queryClient, chatId]);
}

/** Keeps the newest text in view while it streams, unless the person scrolled up to read. */
function useKeepStreamInView(streamedLength: number) {
  useEffect(() => {
    if (streamedLength === 0) return;
    const fromBottom = document.documentElement.scrollHeight - window.scrollY - window.innerHeight;
    if (fromBottom < 160) window.scrollTo({ top: document.documentElement.scrollHeight });
  }, [streamedLength]);
}

/** A reply as shown: its stored message once that ended, else what its turn's events said. */
function replyViewOf(
  requestId: string | null,
  message: Message | null,
  state: TurnState | undefined,
  streaming: boolean,
): ReplyView {
  if (message && (message.status !== 'running' || !state)) {
    return {
      requestId,
      status: message.status,
      text: message.content,
      toolCalls: toolCallsOfMessage(message),
      // The reason a followed turn failed with; a stored failure fetches its own.
      error: state?.error ?? null,
      createdAt: message.created_at,
      live: false,
    };
  }
  const current = state ?? { status: null, text: '', toolCalls: [], error: null };
  return {
    requestId,
    status: current.status ?? 'running',
    text: current.text,
    toolCalls: current.toolCalls,
    error: current.error,
    createdAt: message?.created_at ?? null,
    live: streaming,
  };
}

interface MessageItem {
  key: string;
  user?: Message;
  reply?: ReplyView;
  controls?: ReplyControls;
}

/** The stored messages, then the one just sent and its reply until the list is read again. */
function messageItems(
  stored: readonly Message[],
  sent: SentMessage | null,
  replyOf: (requestId: string | null, message: Message | null) => ReplyView,
  controlsOf: (requestId: string | null) => ReplyControls | undefined,
): MessageItem[] {
  const items: MessageItem[] = stored.map((message) =>
    message.role === 'user'
      ? { key: message.id, user: message }
      : {
          key: message.request_id ?? message.id,
          reply: replyOf(message.request_id, message),
          controls: controlsOf(message.request_id),
        },
  );
  if (sent && !stored.some((message) => message.id === sent.message.id)) {
    items.push({ key: sent.message.id, user: sent.message });
  }
  if (
    sent &&
    !stored.some((message) => message.role === 'assistant' && message.request_id === sent.requestId)
  ) {
    items.push({
      key: sent.requestId,
      reply: replyOf(sent.requestId, null),
      controls: controlsOf(sent.requestId),
    });
  }
  return items;
}

function MessageList(props: {
  chat: ViewedConversation;
  messages: ReturnType<typeof useMessages>;
  items: readonly MessageItem[];
  authorOf: (message: Message) => string;
}) {
  const { chat, messages, items, authorOf } = props;
  return (
    <section className="chat__messages" aria-label="Messages">
      {messages.isPending && <LoadingState label="Loading messages…" />}
      {messages.isError && <ErrorMessage error={messages.error} />}
      {messages.isSuccess && items.length === 0 && (
        <EmptyState title="No messages yet">
          <p>
            {chat.viewerCanEdit
              ? 'Ask the assistant something below. It can use the MCP tools of this workspace.'
              : 'Nobody has written here yet.'}
          </p>
        </EmptyState>
      )}
      {items.length > 0 && (
        <ol className="message-list">
          {items.map((item) => (
            <li key={item.key}>
              {item.user && <UserMessage message={item.user} author={authorOf(item.user)} />}
              {item.reply && <AssistantReply reply={item.reply} controls={item.controls} />}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The owner hears of pending access requests where they are, with the way to answer them. */
function AccessRequestsNotice(props: { chat: ViewedConversation }) {
  const requests = useAccessRequests(props.chat.id, true);
  const count = requests.data?.length ?? 0;
  if (count === 0) return null;
  return (
    <div className="notice chats-notice">
      <p>
        {count === 1 ? '1 person asked' : `${count} people asked`} for access to this chat.{' '}
        <Link to={appPaths.workspace(props.chat.workspace_id, `chats/${props.chat.id}/sharing`)}>
          Review access requests
        </Link>
      </p>
    </div>
  );
}
