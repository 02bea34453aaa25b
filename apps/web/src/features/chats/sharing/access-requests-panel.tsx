import { useState } from 'react';
import type { ViewedConversation } from '@wap/contracts';
import { Button, ErrorMessage, LoadingState, Panel, StatusMessage } from '../../../components';
import {
  useAccessRequests,
  useDecideAccessRequest,
  type AccessDecision,
  type ChatAccessRequest,
} from '../api/chats-api';
import { ChatTime } from '../chat-time';

/** Members who asked to open the chat: grant them read or edit access, or decline. */
export function AccessRequestsPanel(props: { chat: ViewedConversation }) {
  const requests = useAccessRequests(props.chat.id, true);
  const decide = useDecideAccessRequest(props.chat.id);
  const [outcome, setOutcome] = useState<string | null>(null);

  const answer = (request: ChatAccessRequest, decision: AccessDecision) => {
    const name = requesterName(request);
    setOutcome(null);
    decide.mutate(decision, {
      onSuccess: () =>
        setOutcome(
          decision.decision === 'decline'
            ? `Declined ${name}'s request.`
            : `${name} can now ${decision.canEdit ? 'read and write in' : 'read'} this chat.`,
        ),
    });
  };

  return (
    <Panel title="Access requests" description="Members who asked to open this chat.">
      {requests.isPending && <LoadingState label="Loading requests…" />}
      {requests.isError && <ErrorMessage error={requests.error} />}
      {decide.isError && <ErrorMessage error={decide.error} />}
      {outcome && <StatusMessage>{outcome}</StatusMessage>}
      {requests.data?.length === 0 && <p>No pending requests.</p>}
      {requests.data && requests.data.length > 0 && (
        <ul className="access-requests">
          {requests.data.map((request) => {
            const name = requesterName(request);
            const busy = decide.isPending && decide.variables.accessRequestId === request.id;
            return (
              <li key={request.id} className="access-requests__item">
                <p>
                  <strong>{name}</strong> asked <ChatTime value={request.created_at} />
                </p>
                <div className="button-row">
                  <Button
                    variant="primary"
                    disabled={busy}
                    onClick={() =>
                      answer(request, {
                        accessRequestId: request.id,
                        decision: 'grant',
                        canEdit: false,
                      })
                    }
                  >
                    Grant read access<span className="visually-hidden"> to {name}</span>
                  </Button>
                  <Button
                    disabled={busy}
                    onClick={() =>
                      answer(request, {
                        accessRequestId: request.id,
                        decision: 'grant',
                        canEdit: true,
                      })
                    }
                  >
                    Grant edit access<span className="visually-hidden"> to {name}</span>
                  </Button>
                  <Button
                    variant="danger"
                    disabled={busy}
                    onClick={() =>
                      answer(request, { accessRequestId: request.id, decision: 'decline' })
                    }
                  >
                    Decline<span className="visually-hidden">{` ${name}'s request`}</span>
                  </Button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </Panel>
  );
}

function requesterName(request: ChatAccessRequest): string {
  return request.user_name ?? 'A member';
}
