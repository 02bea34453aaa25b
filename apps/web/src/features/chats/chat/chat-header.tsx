import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { UpdateConversationBody, type ViewedConversation } from '@wap/contracts';
import { Button, ErrorMessage, PageHeader, StatusMessage, TextField } from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { appPaths } from '../../../lib/routing';
import { useUpdateConversation } from '../api/chats-api';
import { chatTitle, sharingLabel } from '../conversation-labels';
import { StarButton } from '../list/star-button';

/** The chat's title and what can be done with it: star, rename, archive, share. */
export function ChatHeader(props: { chat: ViewedConversation }) {
  const { chat } = props;
  const [renaming, setRenaming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  const archive = useUpdateConversation(chat.id);
  const archived = chat.is_archived === true;

  const closeRename = (renamed: boolean) => {
    setRenaming(false);
    setNotice(renamed ? 'Renamed.' : null);
    renameButton.current?.focus();
  };
  const toggleArchived = () =>
    archive.mutate(
      { is_archived: !archived },
      {
        onSuccess: ({ conversation }) =>
          setNotice(
            conversation.is_archived
              ? 'Archived: the chat is now listed under Archived.'
              : 'Back among the active chats.',
          ),
      },
    );

  return (
    <>
      <Link className="back-link" to={appPaths.workspace(chat.workspace_id, 'chats')}>
        <span aria-hidden="true">← </span>All chats
      </Link>
      <PageHeader
        title={chatTitle(chat)}
        description={
          chat.viewerCanEdit ? sharingLabel(chat) : `${sharingLabel(chat)}. You can read it.`
        }
        actions={
          <>
            <StarButton chat={chat} withText />
            {chat.viewerCanEdit && (
              // A native button: focus comes back to it when the form closes (Button takes no ref).
              <button
                ref={renameButton}
                type="button"
                className="button button--secondary"
                aria-expanded={renaming}
                onClick={() => {
                  setNotice(null);
                  setRenaming(!renaming);
                }}
              >
                Rename
              </button>
            )}
            {chat.viewerCanEdit && (
              <Button busy={archive.isPending} onClick={toggleArchived}>
                {archived ? 'Unarchive' : 'Archive'}
              </Button>
            )}
            {chat.viewerIsOwner && (
              <Link
                className="button button--secondary link-button"
                to={appPaths.workspace(chat.workspace_id, `chats/${chat.id}/sharing`)}
              >
                Share
              </Link>
            )}
          </>
        }
      />
      {archived && !notice && (
        <p className="chat-note">This chat is archived: it is listed under Archived.</p>
      )}
      {renaming && <RenameForm chat={chat} onDone={closeRename} />}
      {archive.isError && <ErrorMessage error={archive.error} />}
      {notice && <StatusMessage>{notice}</StatusMessage>}
    </>
  );
}

function RenameForm(props: { chat: ViewedConversation; onDone: (renamed: boolean) => void }) {
  const [title, setTitle] = useState(props.chat.title ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const update = useUpdateConversation(props.chat.id);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(UpdateConversationBody, {
      title: title.trim() === '' ? null : title,
    });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    update.mutate(result.data, { onSuccess: () => props.onDone(true) });
  };
  return (
    <form
      className="rename-form"
      onSubmit={submit}
      noValidate
      onKeyDown={(event) => {
        if (event.key === 'Escape') props.onDone(false);
      }}
    >
      {update.isError && <ErrorMessage error={update.error} />}
      <TextField
        label="Chat title"
        hint="Leave it empty for “Untitled chat”."
        autoFocus
        autoComplete="off"
        value={title}
        error={errors['title']}
        onChange={(event) => setTitle(event.target.value)}
      />
      <div className="button-row">
        <Button type="submit" variant="primary" busy={update.isPending}>
          Save title
        </Button>
        <Button onClick={() => props.onDone(false)}>Cancel</Button>
      </div>
    </form>
  );
}
