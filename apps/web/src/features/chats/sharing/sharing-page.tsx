import { useState } from 'react';
import { Link, useParams } from 'react-router';
import type { AccessType, ViewedConversation } from '@wap/contracts';
import {
  EmptyState,
  ErrorMessage,
  PageHeader,
  Panel,
  RadioGroup,
  StatusMessage,
} from '../../../components';
import { appPaths } from '../../../lib/routing';
import { useUpdateConversation } from '../api/chats-api';
import { ChatFrame } from '../chat/chat-page';
import { chatTitle } from '../conversation-labels';
import '../chats.css';
import { AccessRequestsPanel } from './access-requests-panel';
import { InvitePanel } from './invite-panel';
import { ParticipantsPanel } from './participants-panel';

/**
 * `chats/:chatId/sharing`: the owner chooses who can open the chat and answers requests; anyone
 * who can open it sees who is in it.
 */
export function SharingPage() {
  const { chatId = '' } = useParams();
  return (
    <ChatFrame title="Share chat" chatId={chatId}>
      {(chat) => <SharingView chat={chat} />}
    </ChatFrame>
  );
}

function SharingView({ chat }: { chat: ViewedConversation }) {
  return (
    <>
      <Link className="back-link" to={appPaths.workspace(chat.workspace_id, `chats/${chat.id}`)}>
        <span aria-hidden="true">← </span>Back to the chat
      </Link>
      <PageHeader
        title={`Share “${chatTitle(chat)}”`}
        description="Choose who in the workspace can open this chat, and who can also write in it."
      />
      {chat.viewerIsOwner ? (
        <>
          <AccessTypePanel chat={chat} />
          <AccessRequestsPanel chat={chat} />
          <InvitePanel chat={chat} />
          <ParticipantsPanel chat={chat} />
        </>
      ) : (
        <>
          <EmptyState title="Only the chat's owner shares it">
            <p>Ask its owner if someone else should be able to open it.</p>
          </EmptyState>
          <ParticipantsPanel chat={chat} />
        </>
      )}
    </>
  );
}

const ACCESS_OPTIONS = [
  { value: 'private', label: 'Only me' },
  { value: 'invited', label: 'Me and the people I invite' },
  { value: 'everyone', label: 'Everyone in the workspace' },
] as const satisfies readonly { value: AccessType; label: string }[];

const SAVED_SENTENCES: Record<AccessType, string> = {
  private: 'only you can open this chat.',
  invited: 'you and the people you invite can open this chat.',
  everyone: 'everyone in the workspace can open this chat.',
};

/** Decision 80's access types; saved as soon as one is chosen. */
function AccessTypePanel(props: { chat: ViewedConversation }) {
  const update = useUpdateConversation(props.chat.id);
  // The choice shows at once (the mutation's pending state renders a moment later, and a
  // controlled radio would spring back meanwhile); a failed save puts the saved one back.
  const [choosing, setChoosing] = useState<AccessType | null>(null);
  const value = choosing ?? props.chat.access_type;
  return (
    <Panel title="Who can open it">
      {update.isError && <ErrorMessage error={update.error} />}
      <RadioGroup
        legend="Access"
        description="Invited people with edit rights can also send messages; everyone else who can open it reads."
        options={ACCESS_OPTIONS}
        value={value}
        onChange={(chosen) => {
          setChoosing(chosen as AccessType);
          update.mutate(
            { access_type: chosen as AccessType },
            { onSettled: () => setChoosing(null) },
          );
        }}
      />
      {update.isSuccess && (
        <StatusMessage>
          Saved: {SAVED_SENTENCES[update.data.conversation.access_type]}
        </StatusMessage>
      )}
    </Panel>
  );
}
