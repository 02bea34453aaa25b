import { useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { ViewedConversation } from '@wap/contracts';
import {
  Button,
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
} from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useConversationList } from '../api/chats-api';
import { isStarred } from '../conversation-labels';
import '../chats.css';
import { ChatListItem } from './chat-list-item';
import { NewChatForm } from './new-chat-form';

/** The address's `?archived=1` chooses the archived list, so a link or reload keeps it. */
const ARCHIVED_PARAM = 'archived';

/** A workspace's chats: start one, starred ones first, archived ones on their own list. */
export function ChatsPage() {
  const workspaceId = useWorkspaceId();
  const [searchParams] = useSearchParams();
  const archived = searchParams.get(ARCHIVED_PARAM) === '1';
  const chatsPath = appPaths.workspace(workspaceId, 'chats');
  return (
    <>
      <PageHeader
        title="Chats"
        description="Ask the assistant, let it use your workspace's tools, and share chats with your team."
      />
      <Panel title="Start a chat">
        <NewChatForm workspaceId={workspaceId} />
      </Panel>
      <nav className="chat-tabs" aria-label="Chat lists">
        <ul>
          <li>
            <Link to={chatsPath} aria-current={archived ? undefined : 'page'}>
              Active
            </Link>
          </li>
          <li>
            <Link
              to={`${chatsPath}?${ARCHIVED_PARAM}=1`}
              aria-current={archived ? 'page' : undefined}
            >
              Archived
            </Link>
          </li>
        </ul>
      </nav>
      <ChatList key={String(archived)} workspaceId={workspaceId} archived={archived} />
    </>
  );
}

function ChatList(props: { workspaceId: string; archived: boolean }) {
  const list = useConversationList(props.workspaceId, props.archived);
  if (list.isPending) return <LoadingState label="Loading chats…" />;
  // A failed "Load more" keeps the pages already shown.
  if (list.data === undefined) return <ErrorMessage error={list.error} />;
  const chats = list.data.pages.flatMap((page) => page.conversations);
  if (chats.length === 0) {
    return props.archived ? (
      <EmptyState title="No archived chats">
        <p>Archive a chat from its page to put it here, out of the way.</p>
      </EmptyState>
    ) : (
      <EmptyState title="No chats yet">
        <p>Start one above: give it a title, or just start typing.</p>
      </EmptyState>
    );
  }
  const starred = chats.filter(isStarred);
  const others = chats.filter((chat) => !isStarred(chat));
  return (
    <>
      {starred.length > 0 && <ChatSection title="Starred" chats={starred} />}
      {others.length > 0 && (
        <ChatSection title={props.archived ? 'Archived chats' : 'Recent'} chats={others} />
      )}
      {list.hasNextPage && (
        <div className="chat-list__more">
          {list.isFetchNextPageError && <ErrorMessage error={list.error} />}
          <Button busy={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
            Load more chats
          </Button>
          <p className="chat-list__more-hint">
            Older chats, including older starred ones, are listed once loaded.
          </p>
        </div>
      )}
    </>
  );
}

function ChatSection(props: { title: string; chats: ViewedConversation[] }) {
  const headingId = useId();
  return (
    <section className="chat-list" aria-labelledby={headingId}>
      <h2 id={headingId}>{props.title}</h2>
      <ul>
        {props.chats.map((chat) => (
          <ChatListItem key={chat.id} chat={chat} />
        ))}
      </ul>
    </section>
  );
}
