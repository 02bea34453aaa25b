import { useState, type FormEvent } from 'react';
import { CreateNoteBody } from '@wap/contracts';
import { Button, ErrorMessage, StatusMessage, TextAreaField, TextField } from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { useAddNote } from '../api/contacts-api';

/** Tags typed as "call, pricing": trimmed, empty ones left out. */
export function parseTags(text: string): string[] {
  return text
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
}

/** A new note: title, content and tags. */
export function NoteForm(props: { contactId: string }) {
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const [tags, setTags] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const addNote = useAddNote(props.contactId);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(CreateNoteBody, { title, content, tags: parseTags(tags) });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
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
      {addNote.isError && <ErrorMessage error={addNote.error} title="The note was not added." />}
      {addNote.isSuccess && <StatusMessage>Note {addNote.data.note.title} added.</StatusMessage>}
      <TextField
        label="Title"
        autoComplete="off"
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
      <Button type="submit" variant="primary" busy={addNote.isPending}>
        Add note
      </Button>
    </form>
  );
}
