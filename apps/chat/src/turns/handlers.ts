import {
  AppError,
  CancelTurnBody,
  ChatIdParams,
  FINAL_TURN_STATUSES,
  ListMessagesQuery,
  MESSAGES_PAGE,
  MESSAGE_CONTENT_MAX_CHARS,
  PostMessageBody,
  TurnIdParams,
  type Actor,
  type Message,
  type Turn,
  type TurnEvent,
  type TurnEventsBatch,
} from '@wap/contracts';
import { createActorRateLimit, type ActorRateLimits } from '@wap/http';
import { metrics } from '@wap/observability';
import { type Clock } from '@wap/platform';
import {
  actorOf,
  decodeSeqCursor,
  encodeSeqCursor,
  parseRequestPart,
  type RouteHandler,
} from '@wap/bus-protocol';
import type { ConversationGuard } from '../conversations/guard';
import type { ConversationRepository } from '../conversations/repository';
import { ChatAccessDenied } from '../http/access-denied';

import type { MessageRecord, StoredEvent, TurnRecord, TurnRepository } from './repository';
import type { TurnRunner } from './runner';
import type { TurnWaiters } from './waiters';

export type TurnOperation =
  'list_messages' | 'post_message' | 'get_turn' | 'turn_events' | 'cancel_turn';

/** How long one long poll of a turn's events waits for news (the route allows it 30 s). */
export const EVENTS_POLL_WAIT_MS = 10_000;
/**
 * How long an open event stream's polls go on without the reader's access to the chat being
 * checked again (decision 140): a stream is authorised when it opens, not at every poll.
 */
export const STREAM_ACCESS_RECHECK_MS = 10_000;
/** Open streams whose access one replica remembers at most; the oldest are checked again. */
const STREAM_ACCESS_ENTRIES = 10_000;
const TURN_NOT_FOUND = 'Turn not found';
const MESSAGES_CURSOR = 'messages';

export function messageBody(message: MessageRecord): Message {
  return {
    id: message.id,
    conversation_id: message.conversationId,
    role: message.role,
    user_id: message.userId,
    content: message.content,
    request_id: message.requestId,
    status: message.status,
    tool_calls: message.toolCalls,
    created_at: message.createdAt.toISOString(),
    updated_at: message.updatedAt.toISOString(),
  };
}

function eventBody(event: StoredEvent): TurnEvent {
  return { id: String(event.seq), event: event.type, data: event.data };
}

function isFinal(event: StoredEvent): boolean {
  return (
    event.type === 'status' &&
    FINAL_TURN_STATUSES.includes(event.data['status'] as (typeof FINAL_TURN_STATUSES)[number])
  );
}

/** `Last-Event-ID` as the gateway forwards it: a stored event's seq, else the start. */
function lastEventIdOf(headers: Record<string, string>): number {
  const value = headers['last-event-id'];
  return value !== undefined && /^[0-9]{1,9}$/.test(value) ? Number(value) : 0;
}

/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function createTurnHandlers(deps: {
  guard: ConversationGuard;
  conversations: ConversationRepository;
  repository: TurnRepository;
  runner: TurnRunner;
  waiters: TurnWaiters;
  clock: Clock;
  /** Messages a minute per person and per workspace (decision 124). */
  messageLimits: ActorRateLimits;
}): Record<TurnOperation, RouteHandler> {
  const { guard, repository, runner } = deps;
  const messageLimit = createActorRateLimit(deps.messageLimits, 'messages', () =>
    deps.clock.now().getTime(),
  );

  /**
   * A turn of a chat the caller can open. A caller who cannot open the chat learns nothing of
   * the turn: the same 404 as for an unknown id.
   */
  async function visibleTurn(requestId: string, actor: Actor): Promise<TurnRecord> {
    const notFound = new AppError('NOT_FOUND', TURN_NOT_FOUND);
    if (!/^[0-9a-f-]{36}$/i.test(requestId)) throw notFound;
    const turn = await repository.findTurn(requestId);
    if (!turn) throw notFound;
    try {
      await guard.open(turn.conversationId, actor);
    } catch (error) {
      if (error instanceof ChatAccessDenied || error instanceof AppError) throw notFound;
      throw error;
    }
    return turn;
  }

  /**
   * Each open stream (gateway request, turn, reader): when it was last authorised and the turn
   * as it was then, oldest first.
   */
  const streamAccess = new Map<string, { checkedAt: number; turn: TurnRecord }>();
  /**
   * The turn one poll of an open stream reads: `visibleTurn` at the stream's first poll and
   * every STREAM_ACCESS_RECHECK_MS after, the turn as read then in between. Its status may have
   * moved on since; within one stream that only matters once the final event is out, and the
   * stream ends with it.
   */
  async function streamedTurn(streamId: string, requestId: string, actor: Actor) {
    const key = `${streamId}\n${requestId}\n${actor.userId}`;
    const now = deps.clock.now().getTime();
    const remembered = streamAccess.get(key);
    if (remembered && now - remembered.checkedAt < STREAM_ACCESS_RECHECK_MS) {
      return { key, turn: remembered.turn };
    }
    const turn = await visibleTurn(requestId, actor);
    streamAccess.delete(key);
    streamAccess.set(key, { checkedAt: now, turn });
    for (const [oldest, { checkedAt }] of streamAccess) {
      if (streamAccess.size <= STREAM_ACCESS_ENTRIES && now - checkedAt < STREAM_ACCESS_RECHECK_MS)
        break;
      streamAccess.delete(oldest);
    }
    return { key, turn };
  }

  return {
    async list_messages(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(ChatIdParams, request.params);
      const query = parseRequestPart(ListMessagesQuery, request.query);
      const { record } = await guard.open(id, actor);
      const limit = query.limit === undefined ? MESSAGES_PAGE.default : Number(query.limit);
      const afterSeq = decodeSeqCursor(MESSAGES_CURSOR, query.cursor) ?? 0;
      const found = await repository.messagesAfter(record.id, afterSeq, limit + 1);
      const page = found.slice(0, limit);
      const last = page.at(-1);
      return {
        status: 200,
        body: {
          messages: page.map(messageBody),
          nextCursor:
            found.length > limit && last ? encodeSeqCursor(MESSAGES_CURSOR, last.seq) : null,
        },
      };
    },

    async post_message(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(ChatIdParams, request.params);
      const { content } = parseRequestPart(PostMessageBody, request.body);
      const opened = await guard.open(id, actor);
      if (!opened.viewerCanEdit) {
        throw new AppError('FORBIDDEN', 'You can read this chat but not send messages in it');
      }
      messageLimit.take(opened.record.workspaceId, actor.userId);
      if (content.length > MESSAGE_CONTENT_MAX_CHARS) {
        throw new AppError(
          'PAYLOAD_TOO_LARGE',
          `A message may have at most ${MESSAGE_CONTENT_MAX_CHARS} characters`,
        );
      }
      const [{ userMessage, turn }] = await Promise.all([
        runner.begin({
          conversationId: opened.record.id,
          workspaceId: opened.record.workspaceId,
          actor,
          content,
        }),
        deps.conversations.rememberPerson(actor),
      ]);
      return {
        status: 202,
        body: { message: messageBody(userMessage), requestId: turn.requestId },
      };
    },

    async get_turn(request) {
      const actor = actorOf(request);
      const { requestId } = parseRequestPart(TurnIdParams, request.params);
      const turn = await visibleTurn(requestId, actor);
      const progress = await repository.progressOf(turn.requestId);
      const body: Turn = {
        requestId: turn.requestId,
        conversationId: turn.conversationId,
        messageId: turn.messageId,
        status: turn.status,
        error: turn.error,
        runningToolCall: turn.status === 'running' ? progress.runningTool : null,
        startedAt: turn.startedAt.toISOString(),
        endedAt: turn.endedAt?.toISOString() ?? null,
        lastEventId: String(progress.lastSeq),
      };
      return { status: 200, body };
    },

    async turn_events(request) {
      const actor = actorOf(request);
      const { requestId } = parseRequestPart(TurnIdParams, request.params);
      const { key, turn } = await streamedTurn(request.requestId, requestId, actor);
      const afterSeq = lastEventIdOf(request.headers);
      // An ended turn stored its final event with its status: there is nothing to wait for.
      const waitMs = turn.status === 'running' ? EVENTS_POLL_WAIT_MS : 0;
      const events = await deps.waiters.next(turn.requestId, afterSeq, waitMs);
      let done = events.some(isFinal);
      if (events.length === 0) {
        // Past the final event already (a resume after the end): nothing more will come.
        const current = await repository.findTurn(turn.requestId);
        done = current !== null && current.status !== 'running';
      }
      if (done) streamAccess.delete(key);
      const body: TurnEventsBatch = { events: events.map(eventBody), done };
      return { status: 200, body };
    },

    async cancel_turn(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(CancelTurnBody, request.body);
      const kind = body.cancelToolOnly ? 'tool' : 'turn';
      const count = (outcome: 'stopped' | 'already_ended' | 'refused') =>
        metrics.chatCancels.inc({ kind, outcome });
      const turn = await visibleTurn(body.requestId, actor).catch((error: unknown) => {
        count('refused');
        throw error;
      });
      if (turn.userId !== actor.userId) {
        count('refused');
        throw new AppError('FORBIDDEN', 'Only the user who started this turn can stop it');
      }
      if (turn.status !== 'running') {
        count('already_ended');
        return {
          status: 200,
          body: {
            success: true,
            status: turn.status,
            requestId: turn.requestId,
            cancelledRequestIds: [],
          },
        };
      }
      const reply = await runner.cancel(turn, {
        cancelToolOnly: body.cancelToolOnly,
        toolName: body.toolName,
      });
      count(reply.cancelledRequestIds.length > 0 ? 'stopped' : 'already_ended');
      return {
        status: 200,
        body: {
          success: true,
          status: reply.status,
          requestId: turn.requestId,
          cancelledRequestIds: reply.cancelledRequestIds,
        },
      };
    },
  };
}
