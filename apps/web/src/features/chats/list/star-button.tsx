import { useState } from 'react';
import type { ViewedConversation } from '@wap/contracts';
import { ErrorMessage } from '../../../components';
import { useUpdateConversation } from '../api/chats-api';
import { chatTitle, isStarred } from '../conversation-labels';

/**
 * The viewer's pin of a chat (decision 81: only they see it), as a toggle button whose name
 * stays "Star" and whose pressed state says whether it is on. While the
 * change is saved it already shows as made; a failed save shows the old state and why.
 */
export function StarButton(props: { chat: ViewedConversation; withText?: boolean }) {
  const update = useUpdateConversation(props.chat.id);
  // Shown at once: the mutation's pending state renders a moment after the click.
  const [choosing, setChoosing] = useState<boolean | null>(null);
  const starred = choosing ?? isStarred(props.chat);
  const title = chatTitle(props.chat);
  return (
    <span className="star-button">
      <button
        type="button"
        className={`star-button__toggle${starred ? ' star-button__toggle--on' : ''}`}
        aria-pressed={starred}
        aria-label={props.withText ? undefined : `Star ${title}`}
        onClick={() => {
          setChoosing(!starred);
          update.mutate(
            { metadata: { starred: !starred } },
            { onSettled: () => setChoosing(null) },
          );
        }}
      >
        <span aria-hidden="true">{starred ? '★' : '☆'}</span>
        {props.withText && <span>Star</span>}
      </button>
      {update.isError && <ErrorMessage error={update.error} />}
    </span>
  );
}
