import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import {
  MESSAGE_CONTENT_MAX_CHARS,
  PostMessageBody,
  type PostMessageResponse,
  type ViewedConversation,
} from '@wap/contracts';
import type { z } from 'zod';
import { Button, ErrorMessage } from '../../../components';
import { validateForm } from '../../../lib/forms';
import { usePostMessage } from '../api/chats-api';

export type SentMessage = z.infer<typeof PostMessageResponse>;

/** The message to send, or why it cannot be sent. */
function checkedContent(
  content: string,
): { content: string; problem?: undefined } | { problem: string } {
  const result = validateForm(PostMessageBody, { content });
  if (!result.ok) return { problem: 'Write a message first.' };
  if (result.data.content.length > MESSAGE_CONTENT_MAX_CHARS) {
    return { problem: `A message may have at most ${MESSAGE_CONTENT_MAX_CHARS} characters.` };
  }
  return { content: result.data.content };
}

/**
 * Where a message is written: Enter sends, Shift+Enter starts a new line. Someone who may only
 * read the chat sees it disabled, with why. While the assistant answers, a new message waits.
 */
export function Composer(props: {
  chat: ViewedConversation;
  replying: boolean;
  onSent: (sent: SentMessage) => void;
}) {
  const { chat, replying } = props;
  const [content, setContent] = useState('');
  const [error, setError] = useState<string>();
  const post = usePostMessage(chat.id);
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const canEdit = chat.viewerCanEdit;

  const send = () => {
    if (!canEdit || replying || post.isPending) return;
    const checked = checkedContent(content);
    setError(checked.problem);
    if (checked.problem !== undefined) return;
    post.mutate(checked.content, {
      onSuccess: (sent) => {
        setContent('');
        props.onSent(sent);
      },
    });
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    send();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // An IME's Enter confirms a word; it does not send.
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    send();
  };

  return (
    <form className="composer" onSubmit={submit} noValidate>
      <label className="field__label" htmlFor={id}>
        Message
      </label>
      <textarea
        id={id}
        className="field__input composer__input"
        rows={3}
        value={content}
        disabled={!canEdit}
        aria-invalid={error ? true : undefined}
        aria-describedby={[hintId, error ? errorId : ''].filter(Boolean).join(' ')}
        onChange={(event) => setContent(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <p className="field__hint" id={hintId}>
        {canEdit
          ? 'Enter sends; Shift+Enter starts a new line.'
          : 'You can read this chat but not write in it: its owner can give you edit rights.'}
      </p>
      {error && (
        <p className="field__error" id={errorId}>
          {error}
        </p>
      )}
      {post.isError && <ErrorMessage error={post.error} />}
      {canEdit && (
        <div className="composer__actions">
          {replying && (
            <p className="composer__note">The assistant is answering; send once it is done.</p>
          )}
          <Button type="submit" variant="primary" busy={post.isPending} disabled={replying}>
            Send
          </Button>
        </div>
      )}
    </form>
  );
}
