import { useState, type FormEvent } from 'react';
import { CreateNoteBody, type ContactNote } from '@wap/contracts';
import { Button, ErrorMessage, StatusMessage, TextAreaField, TextField } from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { useAddNote, useEditNote } from '../api/contacts-api';

/** Tags typed as "call, pricing": trimmed, empty ones left out. */
export function parseTags(text: string): string[] {
  return text
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
}

/** A note's title, content and tags: a new one, or `note` changed by its author. */
export function NoteForm(props: { contactId: string; note?: ContactNote; onDone?: () => void }) {
  const [title, setTitle] = useState(props.note?.title ?? '');
  const [content, setContent] = useState(props.note?.content ?? '');
  const [tags, setTags] = useState(props.note?.tags.join(', ') ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const addNote = useAddNote(props.contactId);
  const editNote = useEditNote(props.contactId);
  const saving = props.note ? editNote : addNote;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // A message of the previous submission is no longer true of this one.
    saving.reset();
    const result = validateForm(CreateNoteBody, { title, content, tags: parseTags(tags) });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    if (props.note) {
      editNote.mutate({ noteId: props.note.id, ...result.data }, { onSuccess: props.onDone });
      return;
    }
    addNote.mutate(result.data, {
      onSuccess: () => {
        setTitle('');
        setContent('');
        setTags('');
      },
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      {saving.isError && (
        <ErrorMessage
          error={saving.error}
          title={props.note ? 'The note was not saved.' : 'The note was not added.'}
        />
      )}
      {addNote.isSuccess && <StatusMessage>Note {addNote.data.note.title} added.</StatusMessage>}
      <TextField
        label="Title"
        autoComplete="off"
        autoFocus={props.note !== undefined}
        value={title}
        error={errors['title']}
        onChange={(event) => setTitle(event.target.value)}
      />
      <TextAreaField
        label="Content"
        value={content}
        error={errors['content']}
        onChange={(event) => setContent(event.target.value)}
      />
      <TextField
        label="Tags"
        hint="Separate them with commas, for example: call, pricing. Up to 20, each up to 50 characters."
        autoComplete="off"
        value={tags}
        error={errors['tags']}
        onChange={(event) => setTags(event.target.value)}
      />
      <div className="button-row">
        <Button type="submit" variant="primary" busy={saving.isPending}>
          {props.note ? 'Save note' : 'Add note'}
        </Button>
        {props.onDone && <Button onClick={props.onDone}>Cancel</Button>}
      </div>
    </form>
  );
}
