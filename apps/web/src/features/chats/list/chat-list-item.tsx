import { Link } from 'react-router';
import type { ViewedConversation } from '@wap/contracts';
import { appPaths } from '../../../lib/routing';
import { ChatTime } from '../chat-time';
import { chatTitle, previewOf, sharingLabel } from '../conversation-labels';
import { StarButton } from './star-button';

/** One chat of the list: its title (the link), the newest message, when, and who can open it. */
export function ChatListItem(props: { chat: ViewedConversation }) {
  const { chat } = props;
  return (
    <li className="chat-list__item">
      <div className="chat-list__main">
        <Link
          className="chat-list__title"
          to={appPaths.workspace(chat.workspace_id, `chats/${chat.id}`)}
        >
          {chatTitle(chat)}
        </Link>
        <p className="chat-list__preview">{previewOf(chat)}</p>
        <p className="chat-list__meta">
          <ChatTime value={chat.last_activity_at} /> · {sharingLabel(chat)}
        </p>
      </div>
      <StarButton chat={chat} />
    </li>
  );
}
