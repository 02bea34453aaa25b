import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { Logger } from 'pino';
import { runInSpan } from '@wap/observability';
import type { ChatSettings } from '../config';

export type { ChatCompletionFunctionTool, ChatCompletionMessageParam };

export interface ModelToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them: JSON text, possibly invalid. */
  arguments: string;
}

/** One model call's answer: its text and the tool calls it asks for. */
export interface ModelStep {
  text: string;
  toolCalls: ModelToolCall[];
}

/** The provider failed, timed out or sent what cannot be read: the turn fails with `message`. */
export class ModelError extends Error {
  override name = 'ModelError';
}

export interface ModelClient {
  /** False when no provider is configured (LLM_BASE_URL unset). */
  readonly configured: boolean;
  /** What to log about the provider: never the key. */
  describe(): { configured: boolean; host?: string; model?: string };
  /**
   * Streams one model call, giving each piece of text to `onText` as it arrives. Aborting
   * `signal` closes the provider stream and rejects with the signal's reason.
   */
  streamStep(request: {
    messages: ChatCompletionMessageParam[];
    tools: ChatCompletionFunctionTool[];
    signal: AbortSignal;
    onText(text: string): void;
  }): Promise<ModelStep>;
  /** One answer without tools or streaming (the workflow step `assistant_prompt`). */
  complete(messages: ChatCompletionMessageParam[], signal?: AbortSignal): Promise<string>;
}

/** How long a whole provider request may last at most; the idle timeout usually ends it first. */
const REQUEST_TIMEOUT_MS = 10 * 60_000;

/** A Chat Completions client for any OpenAI-compatible provider, through the official client. */
/* eslint-disable-next-line max-lines-per-function --
  the client's short methods share one provider configuration and its connection pool */
export function createModelClient(settings: ChatSettings, logger: Logger): ModelClient {
  const baseUrl = settings.LLM_BASE_URL;
  const model = settings.LLM_MODEL;
  if (!baseUrl || !model) {
    return {
      configured: false,
      describe: () => ({ configured: false }),
      streamStep: () => Promise.reject(new ModelError('No language model is configured')),
      complete: () => Promise.reject(new ModelError('No language model is configured')),
    };
  }
  const apiKey = settings.LLM_API_KEY;
  const client = new OpenAI({
    baseURL: baseUrl,
    // Local servers (Ollama, llama.cpp) need no key, but the client insists on one.
    apiKey: apiKey ?? 'no-key',
    // A failed turn says why and the user sends again; silent retries would hide a slow provider.
    maxRetries: 0,
    timeout: REQUEST_TIMEOUT_MS,
  });
  const idleMs = settings.LLM_IDLE_TIMEOUT_MS;
  const host = new URL(baseUrl).host;

  /** A provider's message without the key, should it echo it back. */
  function readable(error: unknown): string {
    let text: string;
    if (error instanceof OpenAI.APIConnectionTimeoutError) text = 'the request timed out';
    else if (error instanceof OpenAI.APIConnectionError) text = 'it could not be reached';
    else if (error instanceof OpenAI.APIError) text = `it answered ${error.message}`;
    else if (error instanceof Error)
      text = `it sent data that could not be read (${error.message})`;
    else text = 'unknown failure';
    return apiKey ? text.split(apiKey).join('***') : text;
  }

  /**
   * Runs `call`, one model call with its own client span, with a signal that aborts when the
   * caller's does, or when the provider sends nothing for `idleMs`; `touch` restarts that wait
   * whenever a chunk arrives.
   */
  function withIdleTimeout<T>(
    outer: AbortSignal | undefined,
    call: (signal: AbortSignal, touch: () => void) => Promise<T>,
  ): Promise<T> {
    return runInSpan(
      'chat model call',
      {
        role: 'client',
        attributes: { 'gen_ai.request.model': model, 'server.address': host },
      },
      () => callWithIdleTimeout(outer, call),
    );
  }

  async function callWithIdleTimeout<T>(
    outer: AbortSignal | undefined,
    call: (signal: AbortSignal, touch: () => void) => Promise<T>,
  ): Promise<T> {
    const inner = new AbortController();
    let idle = false;
    let timer: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        inner.abort();
      }, idleMs);
    };
    const onAbort = () => inner.abort(outer?.reason);
    outer?.addEventListener('abort', onAbort, { once: true });
    touch();
    try {
      return await call(inner.signal, touch);
    } catch (error) {
      if (outer?.aborted) throw outer.reason;
      if (error instanceof ModelError) throw error;
      if (idle) throw new ModelError(`The model provider sent nothing for ${idleMs / 1000} s`);
      logger.warn({ err: readable(error) }, 'model provider call failed');
      throw new ModelError(`The model provider failed: ${readable(error)}`);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  }

  return {
    configured: true,
    describe: () => ({ configured: true, host, model }),

    streamStep({ messages, tools, signal, onText }) {
      return withIdleTimeout(signal, async (inner, touch) => {
        const stream = await client.chat.completions.create(
          { model, messages, stream: true, ...(tools.length > 0 ? { tools } : {}) },
          { signal: inner },
        );
        let text = '';
        const calls: ModelToolCall[] = [];
        for await (const chunk of stream) {
          touch();
          const delta = chunk.choices[0]?.delta;
          if (!delta) continue;
          if (delta.content) {
            text += delta.content;
            onText(delta.content);
          }
          for (const piece of delta.tool_calls ?? []) {
            const call = (calls[piece.index] ??= { id: '', name: '', arguments: '' });
            if (piece.id) call.id = piece.id;
            if (piece.function?.name) call.name += piece.function.name;
            if (piece.function?.arguments) call.arguments += piece.function.arguments;
          }
        }
        // The client ends its iteration quietly when aborted: a stop must not look like an end.
        inner.throwIfAborted();
        const toolCalls = calls.filter((call) => call !== undefined);
        if (toolCalls.some((call) => call.name === '')) {
          throw new ModelError('The model provider sent a tool call without a name');
        }
        // Some local servers leave the id out; the history needs one to pair each result.
        for (const call of toolCalls) call.id ||= `call_${randomUUID()}`;
        return { text, toolCalls };
      });
    },

    complete(messages, signal) {
      return withIdleTimeout(signal, async (inner) => {
        const completion = await client.chat.completions.create(
          { model, messages },
          { signal: inner },
        );
        return completion.choices[0]?.message.content ?? '';
      });
    },
  };
}
