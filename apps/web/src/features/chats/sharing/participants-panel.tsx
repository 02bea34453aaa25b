import { useNavigate } from 'react-router';
import type { ViewedConversation } from '@wap/contracts';
import { ConfirmButton, ErrorMessage, LoadingState, Panel } from '../../../components';
import { appPaths } from '../../../lib/routing';
import { useAuthors } from '../../workspace';
import { useParticipants, useRemoveParticipant } from '../api/chats-api';

/**
 * Who was invited to the chat, with their rights: its owner takes someone out, a participant
 * leaves (and then has no business on this page).
 */
export function ParticipantsPanel(props: { chat: ViewedConversation }) {
  const { chat } = props;
  const participants = useParticipants(chat.id);
  const remove = useRemoveParticipant(chat.id, chat.workspace_id);
  const authors = useAuthors(chat.workspace_id);
  const navigate = useNavigate();
  return (
    <Panel title="People in this chat">
      {participants.isPending && <LoadingState label="Loading the people in this chat…" />}
      {participants.isError && <ErrorMessage error={participants.error} />}
      {remove.isError && <ErrorMessage error={remove.error} title="Not removed" />}
      {participants.data && (
        <table className="data-table">
          <caption className="visually-hidden">People in this chat</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Access</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>{authors.nameOf(chat.user_id)}</td>
              <td>Owner</td>
              <td />
            </tr>
            {participants.data.map((participant) => {
              const name = authors.nameOf(participant.user_id);
              const isMe = participant.user_id === authors.myId;
              return (
                <tr key={participant.user_id}>
                  <td>{name}</td>
                  <td>{participant.can_edit ? 'Reads and writes' : 'Reads'}</td>
                  <td>
                    {(chat.viewerIsOwner || isMe) && (
                      <ConfirmButton
                        label={isMe ? 'Leave' : 'Remove'}
                        action={isMe ? 'Leave this chat' : `Remove ${name} from this chat`}
                        busy={remove.isPending && remove.variables === participant.user_id}
                        onConfirm={() =>
                          remove.mutate(participant.user_id, {
                            onSuccess: () => {
                              if (isMe)
                                void navigate(appPaths.workspace(chat.workspace_id, 'chats'));
                            },
                          })
                        }
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
