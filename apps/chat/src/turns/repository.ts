import { and, asc, desc, eq, gt, inArray, lt, lte, sql } from 'drizzle-orm';
import type { ToolCallRecord, TurnEventType, TurnStatus } from '@wap/contracts';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import { z } from 'zod';
import { conversations, messages, turnEvents, turns } from '../db/schema';
import { messagePreview } from './history';

export type ToolCallEntry = z.infer<typeof ToolCallRecord>;

/** The ids and seqs a turn's start wrote (a bigint seq comes back as text from node-postgres). */
const WrittenMessages = z.object({
  rows: z.array(z.object({ id: z.string(), seq: z.coerce.number() })),
});
const EndedTurns = z.object({ rows: z.array(z.object({ ended: z.coerce.number() })) });

export interface MessageRecord {
  id: string;
  seq: number;
  conversationId: string;
  role: 'user' | 'assistant';
  userId: string | null;
  content: string;
  requestId: string | null;
  status: TurnStatus | null;
  toolCalls: ToolCallEntry[];
  /** Chat Completions messages an assistant turn added to the history; null on user messages. */
  transcript: unknown[] | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface TurnRecord {
  requestId: string;
  conversationId: string;
  workspaceId: string;
  userId: string;
  messageId: string;
  status: TurnStatus;
  error: string | null;
  /** The replica running the turn. */
  owner: string;
  heartbeatAt: Date;
  startedAt: Date;
  endedAt: Date | null;
}

export interface StoredEvent {
  seq: number;
  type: TurnEventType;
  data: Record<string, unknown>;
}

/** What a turn leaves on its assistant message when it ends. */
export interface TurnOutcome {
  status: Exclude<TurnStatus, 'running'>;
  error: string | null;
  content: string;
  toolCalls: ToolCallEntry[];
  transcript: unknown[];
}

export type TurnRepository = ReturnType<typeof createTurnRepository>;

/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createTurnRepository(deps: { db: SqlDatabase; clock: Clock; ids: IdSource }) {
  const { db, clock, ids } = deps;

  // The reads every poll and every turn makes are built once, and prepared once per connection.
  const turnById = db
    .select()
    .from(turns)
    .where(eq(turns.requestId, sql.placeholder('requestId')))
    .prepare('chat_turn_by_id');
  const eventsAfterSeq = db
    .select({ seq: turnEvents.seq, type: turnEvents.type, data: turnEvents.data })
    .from(turnEvents)
    .where(
      and(
        eq(turnEvents.requestId, sql.placeholder('requestId')),
        gt(turnEvents.seq, sql.placeholder('afterSeq')),
      ),
    )
    .orderBy(asc(turnEvents.seq))
    .limit(sql.placeholder('limit'))
    .prepare('chat_events_after_seq');
  const historyBeforeSeq = db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.conversationId, sql.placeholder('conversationId')),
        lt(messages.seq, sql.placeholder('beforeSeq')),
      ),
    )
    .orderBy(desc(messages.seq))
    .limit(sql.placeholder('limit'))
    .prepare('chat_history_before_seq');

  function asMessage(row: typeof messages.$inferSelect): MessageRecord {
    return {
      ...row,
      role: row.role as MessageRecord['role'],
      status: row.status as TurnStatus | null,
      toolCalls: row.toolCalls as ToolCallEntry[],
      transcript: row.transcript ?? null,
    };
  }

  function asTurn(row: typeof turns.$inferSelect): TurnRecord {
    return { ...row, status: row.status as TurnStatus };
  }

  return {
    /**
     * Writes the user's message, the assistant's empty reply, the running turn and its first
     * event, and makes the user's message the chat's latest activity, in one statement (one
     * round trip, atomic like any statement): a turn that exists always has a message to write
     * into.
     */
    async startTurn(input: {
      requestId: string;
      conversationId: string;
      workspaceId: string;
      userId: string;
      content: string;
      owner: string;
    }): Promise<{ userMessage: MessageRecord; reply: MessageRecord; turn: TurnRecord }> {
      const now = clock.now();
      const at = now.toISOString();
      const { requestId, conversationId } = input;
      const userMessageId = ids.uuid();
      const replyId = ids.uuid();
      const message = (id: string, fields: Partial<MessageRecord>): MessageRecord => ({
        id,
        seq: Number.NaN,
        conversationId,
        role: 'user',
        userId: null,
        content: '',
        requestId,
        status: null,
        toolCalls: [],
        transcript: null,
        createdAt: now,
        updatedAt: now,
        ...fields,
      });
      const userMessage = message(userMessageId, { userId: input.userId, content: input.content });
      const reply = message(replyId, { role: 'assistant', status: 'running' });
      // One INSERT of both messages: rows take their seq in the order listed, the user's first.
      const result = await db.execute(sql`
        with written as (
          insert into ${messages} (id, conversation_id, role, user_id, content, request_id, status,
            tool_calls, transcript, created_at, updated_at)
          values
            (${userMessageId}, ${conversationId}, 'user', ${input.userId}, ${input.content},
              ${requestId}, null, '[]'::jsonb, null, ${at}::timestamptz, ${at}::timestamptz),
            (${replyId}, ${conversationId}, 'assistant', null, '', ${requestId}, 'running',
              '[]'::jsonb, null, ${at}::timestamptz, ${at}::timestamptz)
          returning id, seq
        ), turn as (
          insert into ${turns} (request_id, conversation_id, workspace_id, user_id, message_id,
            status, error, owner, heartbeat_at, started_at, ended_at)
          values (${requestId}, ${conversationId}, ${input.workspaceId}, ${input.userId},
            ${replyId}, 'running', null, ${input.owner}, ${at}::timestamptz, ${at}::timestamptz, null)
        ), first_event as (
          insert into ${turnEvents} (request_id, seq, type, data, created_at)
          values (${requestId}, 1, 'status', '{"status":"running"}'::jsonb, ${at}::timestamptz)
        ), activity as (
          update ${conversations}
          set last_message = ${JSON.stringify(messagePreview(userMessage))}::jsonb,
            last_activity_at = ${at}::timestamptz
          where id = ${conversationId}
        )
        select id, seq from written`);
      const seqs = new Map(WrittenMessages.parse(result).rows.map((row) => [row.id, row.seq]));
      return {
        userMessage: { ...userMessage, seq: seqs.get(userMessageId) ?? Number.NaN },
        reply: { ...reply, seq: seqs.get(replyId) ?? Number.NaN },
        turn: {
          requestId,
          conversationId,
          workspaceId: input.workspaceId,
          userId: input.userId,
          messageId: replyId,
          status: 'running',
          error: null,
          owner: input.owner,
          heartbeatAt: now,
          startedAt: now,
          endedAt: null,
        },
      };
    },

    async findTurn(requestId: string): Promise<TurnRecord | null> {
      const [row] = await turnById.execute({ requestId });
      return row ? asTurn(row) : null;
    },

    /** Stores events of a running turn in one statement; the seqs follow on from the last. */
    async appendEvents(requestId: string, events: StoredEvent[]): Promise<void> {
      if (events.length === 0) return;
      const now = clock.now();
      await db
        .insert(turnEvents)
        .values(events.map((event) => ({ requestId, ...event, createdAt: now })));
    },

    /** Events after `afterSeq`, oldest first. */
    async eventsAfter(requestId: string, afterSeq: number, limit: number): Promise<StoredEvent[]> {
      const rows = await eventsAfterSeq.execute({ requestId, afterSeq, limit });
      return rows.map((row) => ({ ...row, type: row.type as TurnEventType }));
    },

    /** The newest event and the newest tool event: enough to say where a turn stands. */
    async progressOf(
      requestId: string,
    ): Promise<{ lastSeq: number; runningTool: { id: string; name: string } | null }> {
      const [last] = await db
        .select({ seq: turnEvents.seq })
        .from(turnEvents)
        .where(eq(turnEvents.requestId, requestId))
        .orderBy(desc(turnEvents.seq))
        .limit(1);
      const [tool] = await db
        .select({ type: turnEvents.type, data: turnEvents.data })
        .from(turnEvents)
        .where(
          and(
            eq(turnEvents.requestId, requestId),
            inArray(turnEvents.type, ['tool_call', 'tool_result']),
          ),
        )
        .orderBy(desc(turnEvents.seq))
        .limit(1);
      const runningTool =
        tool?.type === 'tool_call'
          ? { id: String(tool.data['toolCallId']), name: String(tool.data['name']) }
          : null;
      return { lastSeq: last?.seq ?? 0, runningTool };
    },

    /**
     * Ends a running turn: its final status event, the turn's status, its reply message and the
     * chat's latest activity (the reply), in one statement. False when the turn had ended
     * already (stopped twice, or expired).
     */
    async finishTurn(turn: TurnRecord, finalSeq: number, outcome: TurnOutcome): Promise<boolean> {
      const at = clock.now().toISOString();
      const preview = messagePreview({
        id: turn.messageId,
        seq: Number.NaN,
        conversationId: turn.conversationId,
        role: 'assistant',
        userId: null,
        content: outcome.content,
        requestId: turn.requestId,
        status: outcome.status,
        toolCalls: outcome.toolCalls,
        transcript: outcome.transcript,
        // The reply was written with the turn's start.
        createdAt: turn.startedAt,
        updatedAt: new Date(at),
      });
      const finalData = {
        status: outcome.status,
        ...(outcome.error ? { error: outcome.error } : {}),
      };
      const result = await db.execute(sql`
        with ended as (
          update ${turns} set status = ${outcome.status}, error = ${outcome.error},
            ended_at = ${at}::timestamptz
          where request_id = ${turn.requestId} and status = 'running'
          returning request_id
        ), final_event as (
          insert into ${turnEvents} (request_id, seq, type, data, created_at)
          select request_id, ${finalSeq}, 'status', ${JSON.stringify(finalData)}::jsonb,
            ${at}::timestamptz
          from ended
        ), reply as (
          update ${messages} set content = ${outcome.content}, status = ${outcome.status},
            tool_calls = ${JSON.stringify(outcome.toolCalls)}::jsonb,
            transcript = ${JSON.stringify(outcome.transcript)}::jsonb, updated_at = ${at}::timestamptz
          where id = ${turn.messageId} and exists (select 1 from ended)
        ), activity as (
          update ${conversations}
          set last_message = ${JSON.stringify(preview)}::jsonb, last_activity_at = ${at}::timestamptz
          where id = ${turn.conversationId} and exists (select 1 from ended)
        )
        select count(*)::int as ended from ended`);
      return (EndedTurns.parse(result).rows[0]?.ended ?? 0) > 0;
    },

    /**
     * Renews the turns this replica is running; answers those still running and still its own.
     * A turn it no longer runs (its end could not be stored) is left to expire.
     */
    async renew(owner: string, requestIds: string[]): Promise<Set<string>> {
      if (requestIds.length === 0) return new Set();
      const rows = await db
        .update(turns)
        .set({ heartbeatAt: clock.now() })
        .where(
          and(
            eq(turns.owner, owner),
            eq(turns.status, 'running'),
            inArray(turns.requestId, requestIds),
          ),
        )
        .returning({ requestId: turns.requestId });
      return new Set(rows.map((row) => row.requestId));
    },

    /** Running turns whose replica has not renewed them within `leaseMs`. */
    async staleTurns(leaseMs: number): Promise<TurnRecord[]> {
      const deadline = new Date(clock.now().getTime() - leaseMs);
      const rows = await db
        .select()
        .from(turns)
        .where(and(eq(turns.status, 'running'), lte(turns.heartbeatAt, deadline)))
        .limit(100);
      return rows.map(asTurn);
    },

    /**
     * Ends a running turn that its replica no longer runs (it died, or lost the database),
     * keeping the partial reply it had stored; null when the turn had moved on meanwhile
     * (ended, or renewed by its replica).
     */
    async endAbandoned(
      turn: TurnRecord,
      status: 'stopped' | 'failed',
      error: string | null,
    ): Promise<{ lastSeq: number } | null> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        const rows = await tx
          .update(turns)
          .set({ status, error, endedAt: now })
          .where(
            and(
              eq(turns.requestId, turn.requestId),
              eq(turns.status, 'running'),
              eq(turns.heartbeatAt, turn.heartbeatAt),
            ),
          )
          .returning({ requestId: turns.requestId });
        if (rows.length === 0) return null;
        const [last] = await tx
          .select({ seq: turnEvents.seq })
          .from(turnEvents)
          .where(eq(turnEvents.requestId, turn.requestId))
          .orderBy(desc(turnEvents.seq))
          .limit(1);
        const lastSeq = (last?.seq ?? 0) + 1;
        await tx.insert(turnEvents).values({
          requestId: turn.requestId,
          seq: lastSeq,
          type: 'status',
          data: { status, ...(error ? { error } : {}) },
          createdAt: now,
        });
        // The reply keeps the text its turn had stored as deltas before it was abandoned.
        await tx
          .update(messages)
          .set({
            status,
            content: sql`(select coalesce(string_agg(${turnEvents.data} ->> 'text', '' order by ${turnEvents.seq}), '')
              from ${turnEvents}
              where ${turnEvents.requestId} = ${turn.requestId} and ${turnEvents.type} = 'delta')`,
            updatedAt: now,
          })
          .where(eq(messages.id, turn.messageId));
        return { lastSeq };
      });
    },

    /** Messages after `afterSeq`, oldest first. */
    async messagesAfter(
      conversationId: string,
      afterSeq: number,
      limit: number,
    ): Promise<MessageRecord[]> {
      const rows = await db
        .select()
        .from(messages)
        .where(and(eq(messages.conversationId, conversationId), gt(messages.seq, afterSeq)))
        .orderBy(asc(messages.seq))
        .limit(limit);
      return rows.map(asMessage);
    },

    /** The newest `limit` messages written before `beforeSeq`, oldest first: a turn's history. */
    async historyBefore(
      conversationId: string,
      beforeSeq: number,
      limit: number,
    ): Promise<MessageRecord[]> {
      const rows = await historyBeforeSeq.execute({ conversationId, beforeSeq, limit });
      return rows.reverse().map(asMessage);
    },
  };
}
