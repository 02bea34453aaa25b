import { z } from 'zod';
import { parseConfig } from '@wap/config';
import { ServiceEnv } from '@wap/service-runtime';

/** The chat service's own variables; ChatSettings adds the rules across them. */
export const ChatEnv = z.object({
  /**
   * Base URL of an OpenAI-compatible Chat Completions API (OpenAI, Ollama, vLLM, LM Studio,
   * llama.cpp's server), e.g. `https://api.openai.com/v1`. Unset: no model; turns say so.
   */
  LLM_BASE_URL: z.url().optional(),
  /** API key sent as a bearer token to the provider; never logged. */
  LLM_API_KEY: z.string().min(1).optional(),
  /** Model name passed to the provider; required with LLM_BASE_URL. */
  LLM_MODEL: z.string().min(1).optional(),
  /** Longest wait for the provider's next chunk (or its first), in milliseconds. */
  LLM_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** Model calls one turn may make (each tool round is one); the turn fails past it. */
  CHAT_MAX_STEPS: z.coerce.number().int().min(1).max(100).default(8),
  /** Messages of the chat sent to the model as history, newest kept. */
  CHAT_HISTORY_MESSAGES: z.coerce.number().int().min(1).max(1000).default(50),
  /** Longest one tool call of a turn may take, in milliseconds. */
  CHAT_TOOL_CALL_TIMEOUT_MS: z.coerce.number().int().positive().max(300_000).default(120_000),
  /** A running turn whose replica has not renewed it for this long is ended as failed. */
  TURN_LEASE_MS: z.coerce.number().int().positive().default(15_000),
  /** How often a replica renews its running turns and looks for turns whose replica died. */
  TURN_HEARTBEAT_MS: z.coerce.number().int().positive().default(3_000),
  /** Messages one person may send a minute, in all their chats (429 past it; decision 124). */
  CHAT_MESSAGES_PER_MINUTE_PER_USER: z.coerce.number().int().positive().default(30),
  /** Messages a workspace's people may send a minute, together. */
  CHAT_MESSAGES_PER_MINUTE_PER_WORKSPACE: z.coerce.number().int().positive().default(300),
});

/** Rules across fields, checked on the settings alone and on the whole process environment. */
function checkChatSettings(settings: z.infer<typeof ChatEnv>, context: z.RefinementCtx): void {
  if (settings.LLM_BASE_URL && !settings.LLM_MODEL) {
    context.addIssue({
      code: 'custom',
      path: ['LLM_MODEL'],
      message: 'LLM_MODEL is required when LLM_BASE_URL is set',
    });
  }
  if (settings.TURN_HEARTBEAT_MS * 2 > settings.TURN_LEASE_MS) {
    context.addIssue({
      code: 'custom',
      path: ['TURN_LEASE_MS'],
      message: 'TURN_LEASE_MS must be at least twice TURN_HEARTBEAT_MS',
    });
  }
}

/** The chat service's own settings, shared by its process (main.ts) and the embedded launcher. */
export const ChatSettings = ChatEnv.superRefine(checkChatSettings);
export type ChatSettings = z.infer<typeof ChatSettings>;

/** The chat process environment: the common service variables plus its own. */
export const ChatServiceEnv = ServiceEnv.extend(ChatEnv.shape).superRefine(checkChatSettings);
export type ChatServiceEnv = z.infer<typeof ChatServiceEnv>;

export function loadConfig(env: NodeJS.ProcessEnv): ChatServiceEnv {
  return parseConfig(ChatServiceEnv, env);
}

/** Settings with every default applied, for launchers and tests that give only some. */
export function chatSettings(partial: Partial<z.input<typeof ChatSettings>> = {}): ChatSettings {
  return ChatSettings.parse(partial);
}
