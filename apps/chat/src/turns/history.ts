import type { ChatCompletionMessageParam } from '../brain/model-client';
import type { MessageRecord } from './repository';

/** Characters of a message kept in a conversation's `last_message` preview. */
const PREVIEW_CHARS = 200;

/**
 * Earlier messages as the model is sent them: a user's text, and for an assistant reply the
 * transcript its turn stored (tool calls and results included), else its text.
 */
export function historyMessages(earlier: MessageRecord[]): ChatCompletionMessageParam[] {
  return earlier.flatMap((message): ChatCompletionMessageParam[] => {
    if (message.role === 'user') return [{ role: 'user', content: message.content }];
    if (message.transcript && message.transcript.length > 0) {
      return message.transcript as ChatCompletionMessageParam[];
    }
    return message.content ? [{ role: 'assistant', content: message.content }] : [];
  });
}

/** The conversation's `last_message`: who wrote what, cut to a preview. */
export function messagePreview(message: MessageRecord): Record<string, unknown> {
  return {
    id: message.id,
    role: message.role,
    content: message.content.slice(0, PREVIEW_CHARS),
    status: message.status,
    created_at: message.createdAt.toISOString(),
  };
}
