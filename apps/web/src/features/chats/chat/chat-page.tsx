import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import type { ViewedConversation } from '@wap/contracts';
import { EmptyState, ErrorMessage, LoadingState, PageHeader } from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { RequestAccess } from '../access/request-access';
import { isChatNotFound, readAccessDenied } from '../api/access-denied';
import { useConversation } from '../api/chats-api';
import '../chats.css';
import { ChatView } from './chat-view';

/**
 * `chats/:chatId`: the chat, or for a member it is not shared with the page that asks its owner
 * for access, or "Chat not found" (unknown, deleted, or of another workspace: one 404).
 */
export function ChatPage() {
  const { chatId = '' } = useParams();
  return (
    <ChatFrame title="Chat" chatId={chatId}>
      {(chat) => <ChatView key={chatId} chat={chat} />}
    </ChatFrame>
  );
}

/**
 * A page of one chat around its content: loading, the page that asks the owner for access, "Chat
 * not found", or the error, under the page's `title`.
 */
export function ChatFrame(props: {
  title: string;
  chatId: string;
  children: (chat: ViewedConversation) => ReactNode;
}) {
  const workspaceId = useWorkspaceId();
  const conversation = useConversation(props.chatId);
  if (conversation.isPending) {
    return (
      <>
        <PageHeader title={props.title} />
        <LoadingState label="Loading the chat…" />
      </>
    );
  }
  if (conversation.isError) {
    const denied = readAccessDenied(conversation.error);
    if (denied) return <RequestAccess chat={denied} workspaceId={workspaceId} />;
    if (isChatNotFound(conversation.error)) return <ChatNotFound workspaceId={workspaceId} />;
    return (
      <>
        <PageHeader title={props.title} />
        <ErrorMessage error={conversation.error} />
      </>
    );
  }
  return props.children(conversation.data);
}

export function ChatNotFound(props: { workspaceId: string }) {
  return (
    <>
      <PageHeader title="Chat not found" />
      <EmptyState
        title="There is no chat at this address"
        action={<Link to={appPaths.workspace(props.workspaceId, 'chats')}>Open your chats</Link>}
      >
        <p>It was deleted, or it belongs to another workspace.</p>
      </EmptyState>
    </>
  );
}
