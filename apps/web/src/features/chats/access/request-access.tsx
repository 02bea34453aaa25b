import { Link } from 'react-router';
import { Button, ErrorMessage, PageHeader, Panel, StatusMessage } from '../../../components';
import { appPaths } from '../../../lib/routing';
import { useRequestAccess } from '../api/chats-api';
import type { DeniedChat } from '../api/access-denied';

/**
 * What a member of the workspace sees for a chat not shared with them (endpoint 1's 403): whose
 * it is and a way to ask for it; once asked (now or on an earlier visit), that it is pending.
 */
export function RequestAccess(props: { chat: DeniedChat; workspaceId: string }) {
  const { chat } = props;
  const request = useRequestAccess(chat.id);
  const owner = chat.ownerName ?? 'its owner';
  const requested = chat.alreadyRequested || request.isSuccess;
  return (
    <>
      <PageHeader title={chat.name ?? 'A private chat'} description={`A chat of ${owner}.`} />
      <Panel title={requested ? 'Access requested' : 'You do not have access to this chat'}>
        {requested ? (
          <StatusMessage>
            Access requested. {capitalize(owner)} will see your request on the chat; it opens for
            you here once they grant it.
          </StatusMessage>
        ) : (
          <>
            <p>
              {capitalize(owner)} has not shared it with you. Ask {owner} for access: they choose
              whether you can only read it or also write in it.
            </p>
            {request.isError && <ErrorMessage error={request.error} />}
            <Button variant="primary" busy={request.isPending} onClick={() => request.mutate()}>
              Request access
            </Button>
          </>
        )}
      </Panel>
      <Link to={appPaths.workspace(props.workspaceId, 'chats')}>Back to your chats</Link>
    </>
  );
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
