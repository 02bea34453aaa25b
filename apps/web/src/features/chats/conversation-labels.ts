import type { AccessType, ViewedConversation } from '@wap/contracts';

/** What a chat is called, also when it has no title yet. */
export function chatTitle(chat: Pick<ViewedConversation, 'title'>): string {
  return chat.title ?? 'Untitled chat';
}

/** The viewer's own pin (decision 81: `metadata.starred` is always there for the viewer). */
export function isStarred(chat: Pick<ViewedConversation, 'metadata'>): boolean {
  return chat.metadata?.['starred'] === true;
}

const SHARING_LABELS: Record<AccessType, string> = {
  private: 'Private',
  invited: 'Shared with invited people',
  everyone: 'Shared with the workspace',
};

/** Who can open the chat, from the viewer's side. */
export function sharingLabel(chat: ViewedConversation): string {
  if (!chat.viewerIsOwner)
    return chat.viewerCanEdit ? 'Shared with you' : 'Shared with you to read';
  return SHARING_LABELS[chat.access_type];
}

/** The chat's newest message as the list previews it (decision 82's `last_message`). */
export function previewOf(chat: ViewedConversation): string {
  const last = chat.last_message;
  if (typeof last !== 'object' || last === null) return 'No messages yet';
  const { role, content, status } = last as Record<string, unknown>;
  const text = typeof content === 'string' ? content.trim() : '';
  if (role !== 'assistant') return text || 'No messages yet';
  if (status === 'failed') return 'Assistant: the reply failed';
  if (status === 'stopped') return `Assistant (stopped): ${text || 'no text'}`;
  return `Assistant: ${text}`;
}
