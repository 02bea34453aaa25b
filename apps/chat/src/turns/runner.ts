import type { Logger } from 'pino';
import {
  AppError,
  BUS_APIS,
  type ControlTurnReply,
  type ControlTurnRequest,
  controlTurnSubject,
  type Actor,
  type TurnStatus,
} from '@wap/contracts';
import {
  BusTimeoutError,
  NoRespondersError,
  type Bus,
  type Clock,
  type IdSource,
  type Subscription,
} from '@wap/platform';
import { callApi, serveApi } from '@wap/bus-protocol';
import {
  ModelError,
  type ChatCompletionMessageParam,
  type ModelClient,
} from '../brain/model-client';
import { markSpanFailed, metrics, runInSpan } from '@wap/observability';
import type { ChatSettings } from '../config';
import { toModelTools, type ModelTools } from '../tools/model-tools';
import type { ToolCallResult, ToolGateway } from '../tools/tool-gateway';
import { openEventWriter, publishProgress, type TurnEventWriter } from './event-log';
import { historyMessages } from './history';
import type { MessageRecord, ToolCallEntry, TurnRecord, TurnRepository } from './repository';

/** Why a turn was aborted from outside its own loop. */
type AbortReason = 'cancelled' | 'lost' | 'shutdown' | 'unstorable';

const CANCELLED_TOOL_TEXT = 'The tool call was cancelled by the user.';
/** The error of a turn aborted from outside for a reason other than its user's stop. */
const FAILED_BECAUSE = {
  lost: 'The chat replica running this turn lost it to another (its lease ran out)',
  shutdown: 'The chat replica running this turn shut down',
  unstorable: 'The turn could not be stored',
} as const;
const ORPHANED_ERROR = 'The chat replica running this turn stopped answering';
/** Queue group of a turn's control subject: only its replica serves it. */
const CONTROL_QUEUE = 'chat-turn-control';
/** How long a stop waits for the turn to store its final status before answering. */
const STOP_WAIT_MS = 2_000;

interface RunningTool {
  /** The model's id of the call: what `cancelledRequestIds` lists. */
  id: string;
  /** The name the model called, and the MCP tool's own name: either matches `toolName`. */
  functionName: string;
  toolName: string;
  abort: AbortController;
}

interface ActiveTurn {
  turn: TurnRecord;
  /** Set once the turn's work is over and its end is being stored. */
  ending: boolean;
  stop: AbortController;
  tool: RunningTool | null;
  control: Subscription;
  done: Promise<TurnStatus>;
}

export interface TurnRunnerDeps {
  bus: Bus;
  repository: TurnRepository;
  model: ModelClient;
  tools: ToolGateway;
  settings: ChatSettings;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
}

/**
 * Runs the turns started on this replica and answers for them: the model stream with the
 * caller's MCP tools, the events every replica serves, stops that reach it over the bus, the
 * heartbeat that keeps its turns its own and the sweep that ends turns whose replica died.
 */
/* eslint-disable-next-line max-lines-per-function --
  the turns' short steps share the map of turns running here and their abort controllers */
export function createTurnRunner(deps: TurnRunnerDeps) {
  const { bus, repository, model, settings, logger } = deps;
  /** This process: the owner written on the turns it runs. */
  const replicaId = deps.ids.uuid();
  const active = new Map<string, ActiveTurn>();
  let heartbeat: NodeJS.Timeout | undefined;
  let beating: Promise<void> | null = null;

  /** Counts a turn whose end this replica stored, however it ended. */
  function observeTurnEnd(turn: TurnRecord, status: Exclude<TurnStatus, 'running'>): void {
    metrics.chatTurnDuration.observe(
      { status },
      Math.max(0, deps.clock.now().getTime() - turn.startedAt.getTime()) / 1000,
    );
  }

  async function keepTurns(): Promise<void> {
    try {
      // Only the turns renewed here are judged: one that started meanwhile was not asked about,
      // and one that is storing its end is no longer running.
      const renewing = [...active.keys()];
      const owned = await repository.renew(replicaId, renewing);
      for (const requestId of renewing) {
        const entry = active.get(requestId);
        if (entry && !entry.ending && !owned.has(requestId) && !entry.stop.signal.aborted) {
          logger.warn({ requestId }, 'a turn of this replica was ended elsewhere; stopping it');
          entry.stop.abort('lost' satisfies AbortReason);
        }
      }
      for (const orphan of await repository.staleTurns(settings.TURN_LEASE_MS)) {
        const ended = await repository.endAbandoned(orphan, 'failed', ORPHANED_ERROR);
        if (!ended) continue;
        observeTurnEnd(orphan, 'failed');
        logger.warn({ requestId: orphan.requestId, owner: orphan.owner }, 'ended an orphaned turn');
        publishProgress(bus, { requestId: orphan.requestId, lastSeq: ended.lastSeq });
      }
    } catch (error) {
      logger.warn({ err: error }, 'renewing turns failed');
    }
  }

  /** Stops the turn, or only its running tool call; answers what was stopped. */
  async function control(
    entry: ActiveTurn,
    request: ControlTurnRequest,
  ): Promise<ControlTurnReply> {
    if (request.cancelToolOnly) {
      const tool = entry.tool;
      const named =
        !request.toolName ||
        request.toolName === tool?.functionName ||
        request.toolName === tool?.toolName;
      if (!tool || !named || tool.abort.signal.aborted) {
        return { status: 'running', cancelledRequestIds: [] };
      }
      tool.abort.abort();
      return { status: 'running', cancelledRequestIds: [tool.id] };
    }
    const stopped = entry.stop.signal.aborted
      ? []
      : [entry.turn.requestId, ...(entry.tool ? [entry.tool.id] : [])];
    entry.stop.abort('cancelled' satisfies AbortReason);
    const status = await Promise.race([
      entry.done,
      new Promise<TurnStatus>((resolve) => setTimeout(() => resolve('stopped'), STOP_WAIT_MS)),
    ]);
    return { status, cancelledRequestIds: stopped };
  }

  async function run(entry: ActiveTurn, userMessage: MessageRecord): Promise<TurnStatus> {
    const { turn } = entry;
    const events = openEventWriter({
      requestId: turn.requestId,
      storedSeq: 1,
      repository,
      bus,
      logger,
      // A turn whose events cannot be stored must not go on talking to nobody.
      onFailure: () => entry.stop.abort('unstorable' satisfies AbortReason),
    });
    const work = new TurnWork(entry, events, deps);
    let status: Exclude<TurnStatus, 'running'> = 'completed';
    let error: string | null = null;
    try {
      if (model.configured) await work.withModel(userMessage);
      else await work.withoutModel(userMessage);
    } catch (failure) {
      const reason = entry.stop.signal.reason as AbortReason | undefined;
      if (entry.stop.signal.aborted && reason === 'cancelled') {
        status = 'stopped';
      } else if (entry.stop.signal.aborted) {
        status = 'failed';
        error = FAILED_BECAUSE[reason === 'shutdown' || reason === 'unstorable' ? reason : 'lost'];
      } else if (failure instanceof ModelError || failure instanceof TurnLimitError) {
        status = 'failed';
        error = failure.message;
      } else {
        logger.error({ err: failure, requestId: turn.requestId }, 'turn failed unexpectedly');
        status = 'failed';
        error = 'The assistant failed unexpectedly';
      }
    }
    entry.ending = true;
    work.closeOpenToolCalls();
    try {
      await events.flushed();
      const ended = await repository.finishTurn(turn, events.lastSeq() + 1, {
        status,
        error,
        content: work.content,
        toolCalls: work.toolCalls,
        transcript: work.transcript,
      });
      if (!ended) return (await repository.findTurn(turn.requestId))?.status ?? status;
      observeTurnEnd(turn, status);
      publishProgress(bus, { requestId: turn.requestId, lastSeq: events.lastSeq() + 1 });
    } catch (failure) {
      // The sweep of another replica ends the turn as failed once its lease runs out.
      logger.error({ err: failure, requestId: turn.requestId }, 'storing the end of a turn failed');
    }
    logger.info({ requestId: turn.requestId, status, error }, 'turn ended');
    return status;
  }

  return {
    start(): void {
      heartbeat = setInterval(() => {
        beating ??= keepTurns().finally(() => {
          beating = null;
        });
      }, settings.TURN_HEARTBEAT_MS);
    },

    /** Writes the user's message and a running turn, and runs it on this replica. */
    async begin(input: {
      conversationId: string;
      workspaceId: string;
      actor: Actor;
      content: string;
    }): Promise<{ userMessage: MessageRecord; turn: TurnRecord }> {
      const requestId = deps.ids.uuid();
      // Listening for stops before the turn exists: a stop on another replica never finds a
      // running turn that nobody answers for.
      let entry: ActiveTurn | undefined;
      const controlSubscription = serveApi(
        bus,
        { ...BUS_APIS.controlTurn, subject: controlTurnSubject(requestId) },
        (request) => {
          if (!entry) throw new AppError('NOT_FOUND', 'Turn not found');
          return control(entry, request);
        },
        { queue: CONTROL_QUEUE, logger },
      );
      try {
        const { userMessage, turn } = await repository.startTurn({
          requestId,
          conversationId: input.conversationId,
          workspaceId: input.workspaceId,
          userId: input.actor.userId,
          content: input.content,
          owner: replicaId,
        });
        const created: ActiveTurn = {
          turn,
          ending: false,
          stop: new AbortController(),
          tool: null,
          control: controlSubscription,
          done: Promise.resolve('running'),
        };
        entry = created;
        active.set(requestId, created);
        // The turn outlives the request that began it; its span stays in that request's trace.
        created.done = runInSpan(
          'chat turn',
          { attributes: { 'wap.turn.request_id': requestId } },
          () => run(created, userMessage),
        ).finally(() => {
          active.delete(requestId);
          void controlSubscription.unsubscribe();
        });
        return { userMessage, turn };
      } catch (error) {
        await controlSubscription.unsubscribe();
        throw error;
      }
    },

    /**
     * Stops a turn wherever it runs: here directly, on another replica over the bus. A turn
     * whose replica is gone is ended as stopped here.
     */
    async cancel(turn: TurnRecord, request: ControlTurnRequest): Promise<ControlTurnReply> {
      const local = active.get(turn.requestId);
      if (local) return control(local, request);
      logger.info(
        { requestId: turn.requestId, owner: turn.owner },
        'stop forwarded to the replica running the turn',
      );
      try {
        const api = { ...BUS_APIS.controlTurn, subject: controlTurnSubject(turn.requestId) };
        return await callApi(bus, api, request, {
          timeoutMs: STOP_WAIT_MS + 1_000,
        });
      } catch (error) {
        if (!(error instanceof NoRespondersError) && !(error instanceof BusTimeoutError))
          throw error;
        const current = await repository.findTurn(turn.requestId);
        if (!current || current.status !== 'running') {
          return { status: current?.status ?? 'failed', cancelledRequestIds: [] };
        }
        if (request.cancelToolOnly) return { status: 'running', cancelledRequestIds: [] };
        const ended = await repository.endAbandoned(current, 'stopped', null);
        if (ended) {
          observeTurnEnd(current, 'stopped');
          publishProgress(bus, { requestId: turn.requestId, lastSeq: ended.lastSeq });
        }
        return { status: 'stopped', cancelledRequestIds: ended ? [turn.requestId] : [] };
      }
    },

    async stop(): Promise<void> {
      clearInterval(heartbeat);
      await beating;
      const running = [...active.values()];
      for (const entry of running) entry.stop.abort('shutdown' satisfies AbortReason);
      await Promise.allSettled(running.map((entry) => entry.done));
    },
  };
}

export type TurnRunner = ReturnType<typeof createTurnRunner>;

class TurnLimitError extends Error {
  override name = 'TurnLimitError';
}

/** What one turn builds up while it runs: its text, tool calls and transcript. */
class TurnWork {
  content = '';
  readonly toolCalls: ToolCallEntry[] = [];
  /** Chat Completions messages this turn adds to the history. */
  readonly transcript: ChatCompletionMessageParam[] = [];
  /** Text of the model step in progress, kept when a stop cuts it short. */
  private stepText = '';

  constructor(
    private readonly entry: ActiveTurn,
    private readonly events: TurnEventWriter,
    private readonly deps: TurnRunnerDeps,
  ) {}

  private get signal(): AbortSignal {
    return this.entry.stop.signal;
  }

  private say(text: string): void {
    this.content += text;
    this.events.append('delta', { text });
  }

  private async listTools(): Promise<ModelTools> {
    const { turn } = this.entry;
    try {
      return toModelTools(await this.deps.tools.list(turn.workspaceId, turn.userId));
    } catch (error) {
      // The assistant still answers without tools when the registry is down.
      this.deps.logger.warn({ err: error, requestId: turn.requestId }, 'listing tools failed');
      return toModelTools([]);
    }
  }

  async withModel(userMessage: MessageRecord): Promise<void> {
    const { turn } = this.entry;
    const { settings, repository, model } = this.deps;
    const [earlier, modelTools] = await Promise.all([
      repository.historyBefore(
        turn.conversationId,
        userMessage.seq,
        settings.CHAT_HISTORY_MESSAGES - 1,
      ),
      this.listTools(),
    ]);
    const history = [...historyMessages(earlier), { role: 'user', content: userMessage.content }];
    for (let step = 1; step <= settings.CHAT_MAX_STEPS; step += 1) {
      this.stepText = '';
      const answer = await model.streamStep({
        messages: [...history, ...this.transcript] as ChatCompletionMessageParam[],
        tools: modelTools.definitions,
        signal: this.signal,
        onText: (text) => {
          this.stepText += text;
          this.say(text);
        },
      });
      this.stepText = '';
      if (answer.toolCalls.length === 0) {
        this.transcript.push({ role: 'assistant', content: answer.text });
        return;
      }
      this.transcript.push({
        role: 'assistant',
        content: answer.text || null,
        tool_calls: answer.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      });
      for (const call of answer.toolCalls) {
        const args = parseArguments(call.arguments);
        await this.callTool(call.id, call.name, modelTools, args);
      }
    }
    throw new TurnLimitError(
      `The assistant reached its limit of ${settings.CHAT_MAX_STEPS} model calls in one turn`,
    );
  }

  /**
   * No provider configured: the reply says how to configure one, and `/tool <name> <json>`
   * calls an MCP tool directly, so that tools and stops work without a model.
   */
  async withoutModel(userMessage: MessageRecord): Promise<void> {
    const modelTools = await this.listTools();
    const command = /^\/tool\s+(\S+)(?:\s+([\s\S]*))?$/.exec(userMessage.content.trim());
    if (!command) {
      const available = modelTools.names();
      this.say(
        'No language model is configured. Set LLM_BASE_URL and LLM_MODEL (and LLM_API_KEY if ' +
          'your provider needs one) on the chat service to talk with a model. Meanwhile ' +
          '`/tool <name> <json arguments>` calls one of your MCP tools directly' +
          (available.length > 0 ? `: ${available.join(', ')}.` : '; you have none yet.'),
      );
      this.transcript.push({ role: 'assistant', content: this.content });
      return;
    }
    const [, name = '', rawArguments] = command;
    const args = parseArguments(rawArguments?.trim() || '{}');
    const callId = `call_${this.deps.ids.uuid()}`;
    this.transcript.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: callId, type: 'function', function: { name, arguments: rawArguments || '{}' } },
      ],
    });
    const answer = await this.callTool(callId, name, modelTools, args);
    this.say(answer);
    this.transcript.push({ role: 'assistant', content: answer });
  }

  /**
   * Runs one tool call with its events and its result in the transcript; a stop of the tool
   * alone answers it as cancelled and goes on, a stop of the turn does so and then throws.
   */
  private async callTool(
    callId: string,
    functionName: string,
    modelTools: ModelTools,
    args: Record<string, unknown> | string,
  ): Promise<string> {
    const record: ToolCallEntry = {
      id: callId,
      name: functionName,
      arguments: typeof args === 'string' ? args : JSON.stringify(args),
      result: null,
    };
    this.toolCalls.push(record);
    this.events.append('tool_call', { toolCallId: callId, name: functionName, arguments: args });
    const tool = modelTools.find(functionName);
    let result: ToolCallResult & { cancelled: boolean };
    if (!tool) {
      result = errorResult(`No tool named ${functionName} is available to you here`);
    } else if (typeof args === 'string') {
      result = errorResult(`The arguments are not a JSON object: ${args}`);
    } else {
      const abort = new AbortController();
      this.entry.tool = { id: callId, functionName, toolName: tool.name, abort };
      result = await runInSpan(
        'chat tool call',
        { attributes: { 'wap.tool.name': tool.name, 'wap.tool.id': tool.id } },
        async (span) => {
          const outcome = await this.runTool(callId, tool.id, args, abort.signal);
          if (outcome.isError) markSpanFailed(span, outcome.cancelled ? 'cancelled' : 'tool error');
          return outcome;
        },
      );
      this.entry.tool = null;
    }
    record.result = {
      isError: result.isError,
      cancelled: result.cancelled,
      content: result.content,
    };
    this.events.append('tool_result', {
      toolCallId: callId,
      name: functionName,
      isError: result.isError,
      cancelled: result.cancelled,
      content: result.content,
    });
    const text = resultText(result);
    this.transcript.push({ role: 'tool', tool_call_id: callId, content: text });
    if (this.signal.aborted) throw new Error('turn stopped');
    return text;
  }

  private async runTool(
    callId: string,
    toolId: string,
    args: Record<string, unknown>,
    toolSignal: AbortSignal,
  ): Promise<ToolCallResult & { cancelled: boolean }> {
    const { turn } = this.entry;
    const registryCallId = `${turn.requestId}:${callId}`;
    const stopped = AbortSignal.any([toolSignal, this.signal]);
    const call = this.deps.tools.call({
      workspaceId: turn.workspaceId,
      userId: turn.userId,
      toolId,
      arguments: args,
      callId: registryCallId,
    });
    const cancelled = new Promise<'cancelled'>((resolve) => {
      if (stopped.aborted) resolve('cancelled');
      stopped.addEventListener('abort', () => resolve('cancelled'), { once: true });
    });
    try {
      const outcome = await Promise.race([call, cancelled]);
      if (outcome !== 'cancelled') return { ...outcome, cancelled: false };
      this.deps.tools.cancel(registryCallId);
      // The registry still answers the aborted call; nobody waits for it.
      call.catch(() => undefined);
      return { ...errorResult(CANCELLED_TOOL_TEXT), cancelled: true };
    } catch (error) {
      if (error instanceof AppError) return errorResult(error.message);
      if (error instanceof NoRespondersError) {
        return errorResult('The tool service is not available');
      }
      if (error instanceof BusTimeoutError) return errorResult('The tool did not answer in time');
      throw error;
    }
  }

  /**
   * A stop can land between a model's tool calls and their results: every call in the
   * transcript gets a result, or the next model call of this chat would be refused; text the
   * stop cut short is kept.
   */
  closeOpenToolCalls(): void {
    const answered = new Set(
      this.transcript.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])),
    );
    for (const message of this.transcript) {
      if (message.role !== 'assistant' || !message.tool_calls) continue;
      for (const call of message.tool_calls) {
        if (answered.has(call.id)) continue;
        this.transcript.push({ role: 'tool', tool_call_id: call.id, content: CANCELLED_TOOL_TEXT });
      }
    }
    if (this.stepText) this.transcript.push({ role: 'assistant', content: this.stepText });
    this.stepText = '';
  }
}

function errorResult(text: string): ToolCallResult & { cancelled: boolean } {
  return { isError: true, cancelled: false, content: [{ type: 'text', text }] };
}

/** The model's arguments as an object, or the text itself when it is not a JSON object. */
function parseArguments(text: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : text;
  } catch {
    return text;
  }
}

/** A tool's content as text for the model: text parts as they are, others as JSON. */
function resultText(result: ToolCallResult): string {
  const parts = result.content.map((part) =>
    part !== null &&
    typeof part === 'object' &&
    (part as { type?: unknown }).type === 'text' &&
    typeof (part as { text?: unknown }).text === 'string'
      ? (part as { text: string }).text
      : JSON.stringify(part),
  );
  const text = parts.join('\n');
  return result.isError ? `Error: ${text}` : text;
}
