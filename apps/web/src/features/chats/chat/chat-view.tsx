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
  const me = useMe();
  const messages = useMessages(chat.id);
  const members = useMembers(chat.workspace_id);
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

  // A reply is written to its message as its turn ends; a refresh that came first is repeated.
  const lagging = stored.some(
    (message) =>
      message.role === 'assistant' &&
      message.status === 'running' &&
      message.request_id !== null &&
      message.request_id in ended,
  );
  const readAt = messages.dataUpdatedAt;
  useEffect(() => {
    if (!lagging) return;
    const timer = setTimeout(
      () => void queryClient.invalidateQueries({ queryKey: chatsKeys.messages(chat.id) }),
      STORED_REPLY_RECHECK_MS,
    );
    return () => clearTimeout(timer);
    // Each read that still lags schedules the next one.
  }, [lagging, readAt, queryClient, chat.id]);

  // Keeps the newest text in view while it streams, unless the person scrolled up to read.
  const streamedLength = live.state.text.length + live.state.toolCalls.length;
  useEffect(() => {
    if (streamedLength === 0) return;
    const fromBottom = document.documentElement.scrollHeight - window.scrollY - window.innerHeight;
    if (fromBottom < 160) window.scrollTo({ top: document.documentElement.scrollHeight });
  }, [streamedLength]);

  const myId = me.data?.user.id;
  const names = new Map(members.data?.members.map((member) => [member.user_id, member.name]));
  const authorOf = (message: Message) =>
    message.user_id !== null && message.user_id === myId
      ? 'You'
      : (message.user_id !== null && names.get(message.user_id)) || 'A member';
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
    // A stored reply that ended is the truth; until then the events say more.
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
      live: requestId === followedId && live.streamStatus !== 'ended',
    };
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

  const items: Array<{ key: string; user?: Message; reply?: ReplyView; controls?: ReplyControls }> =
    stored.map((message) =>
      message.role === 'user'
        ? { key: message.id, user: message }
        : {
            key: message.request_id ?? message.id,
            reply: replyOf(message.request_id, message),
            controls: controlsOf(message.request_id),
          },
    );
  // The sent message and its reply show at once, before the list is read again.
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
  const replying =
    followedId !== null && (live.state.status === null || live.state.status === 'running');

  return (
    <div ref={chatElement} className="chat">
      <ChatHeader chat={chat} />
      {chat.viewerIsOwner && <AccessRequestsNotice chat={chat} />}
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
