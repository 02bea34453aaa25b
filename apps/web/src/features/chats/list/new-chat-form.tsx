import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { CreateConversationBody } from '@wap/contracts';
import { Button, ErrorMessage, TextField } from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { appPaths } from '../../../lib/routing';
import { useCreateConversation } from '../api/chats-api';

/** Starts a chat (a title is optional: it can be named later) and opens it. */
export function NewChatForm(props: { workspaceId: string }) {
  const [title, setTitle] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const create = useCreateConversation(props.workspaceId);
  const navigate = useNavigate();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(CreateConversationBody, {
      workspaceId: props.workspaceId,
      title: title.trim() === '' ? null : title,
    });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    create.mutate(result.data, {
      onSuccess: ({ conversation }) =>
        void navigate(appPaths.workspace(props.workspaceId, `chats/${conversation.id}`)),
    });
  };

  return (
    <form className="new-chat-form" onSubmit={submit} noValidate>
      {create.isError && <ErrorMessage error={create.error} />}
      <TextField
        label="Title (optional)"
        hint="You can name or rename it later."
        value={title}
        error={errors['title']}
        autoComplete="off"
        onChange={(event) => setTitle(event.target.value)}
      />
      <Button type="submit" variant="primary" busy={create.isPending}>
        Start chat
      </Button>
    </form>
  );
}
