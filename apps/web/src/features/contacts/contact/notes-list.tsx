import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { ContactNote } from '@wap/contracts';
import {
  Button,
  ConfirmButton,
  EmptyState,
  ErrorMessage,
  LoadingState,
  TextField,
} from '../../../components';
import { useAuthors } from '../../workspace';
import { useDeleteNote, useNotes } from '../api/contacts-api';
import { NoteForm } from './note-form';

/** The longest tag the API takes (decision 62's `tag`). */
const MAX_TAG_LENGTH = 50;

/**
 * The contact's notes, newest first, a page per "Load more" (spec endpoint 10). The tag
 * filter lives in the address (`?tag=`), so a filtered list can be linked and reloaded.
 */
export function NotesList(props: { contactId: string; workspaceId: string }) {
  const [searchParams, setSearchParams] = useSearchParams();
  const tag = searchParams.get('tag')?.trim() || undefined;
  const notes = useNotes(props.contactId, tag);
  const authors = useAuthors(props.workspaceId);
  const deleteNote = useDeleteNote(props.contactId);
  const [editing, setEditing] = useState<string | null>(null);
  const filterBy = (next: string | undefined) =>
    setSearchParams(next ? { tag: next } : {}, { preventScrollReset: true });

  const all = notes.data?.pages.flatMap((page) => page.notes) ?? [];
  return (
    <>
      <TagFilter key={tag ?? ''} tag={tag} onFilter={filterBy} />
      {notes.isPending && <LoadingState label="Loading the notes…" />}
      {!notes.data && notes.isError && <ErrorMessage error={notes.error} />}
      {notes.data && all.length === 0 && (
        <EmptyState title={tag ? `No notes tagged ${tag}` : 'No notes yet'}>
          <p>{tag ? 'Show all notes, or try another tag.' : 'Add the first note below.'}</p>
        </EmptyState>
      )}
      {deleteNote.isError && <ErrorMessage error={deleteNote.error} title="Note not deleted" />}
      {all.length > 0 && (
        <ol className="contact-notes" aria-label={tag ? `Notes tagged ${tag}` : 'All notes'}>
          {all.map((note) => {
            const isAuthor = note.created_by === authors.myId;
            return (
              <li key={note.id}>
                {editing === note.id ? (
                  <section className="contact-note" aria-label={`Edit note ${note.title}`}>
                    <NoteForm
                      contactId={props.contactId}
                      note={note}
                      onDone={() => setEditing(null)}
                    />
                  </section>
                ) : (
                  <NoteItem note={note} author={authors.nameOf(note.created_by)}>
                    {(isAuthor || authors.isOwner) && (
                      <div className="button-row">
                        {isAuthor && (
                          <Button
                            aria-label={`Edit note ${note.title}`}
                            onClick={() => setEditing(note.id)}
                          >
                            Edit
                          </Button>
                        )}
                        <ConfirmButton
                          label="Delete"
                          action={`Delete note ${note.title}`}
                          busy={deleteNote.isPending && deleteNote.variables === note.id}
                          onConfirm={() => deleteNote.mutate(note.id)}
                        />
                      </div>
                    )}
                  </NoteItem>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {notes.data && notes.isError && <ErrorMessage error={notes.error} />}
      {notes.data && (
        <div className="contact-paging">
          <p className="contact-muted" aria-live="polite">
            {all.length > 0 &&
              `Showing ${all.length} ${all.length === 1 ? 'note' : 'notes'}${tag ? ` tagged ${tag}` : ''}${notes.hasNextPage ? '' : ', all of them'}.`}
          </p>
          {notes.hasNextPage && (
            <Button busy={notes.isFetchingNextPage} onClick={() => void notes.fetchNextPage()}>
              Load more notes
            </Button>
          )}
        </div>
      )}
    </>
  );
}

function TagFilter(props: {
  tag: string | undefined;
  onFilter: (tag: string | undefined) => void;
}) {
  const [value, setValue] = useState(props.tag ?? '');
  const [error, setError] = useState<string>();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const next = value.trim();
    if (next.length > MAX_TAG_LENGTH) {
      setError(`Use at most ${MAX_TAG_LENGTH} characters.`);
      return;
    }
    setError(undefined);
    props.onFilter(next || undefined);
  };
  return (
    <form
      className="contact-filter"
      role="search"
      aria-label="Filter notes"
      onSubmit={submit}
      noValidate
    >
      <TextField
        label="Tag"
        hint="Show only the notes with this tag."
        autoComplete="off"
        value={value}
        error={error}
        onChange={(event) => setValue(event.target.value)}
      />
      <div className="contact-filter__actions">
        <Button type="submit">Filter</Button>
        {props.tag && <Button onClick={() => props.onFilter(undefined)}>Show all notes</Button>}
      </div>
    </form>
  );
}

function NoteItem(props: { note: ContactNote; author: string; children?: ReactNode }) {
  const { note } = props;
  const written = new Date(note.created_at).toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  return (
    <article className="contact-note">
      <h3>{note.title}</h3>
      <p className="contact-muted">
        {props.author}, <time dateTime={note.created_at}>{written}</time>
        {note.updated_at !== note.created_at && ' (edited)'}
      </p>
      {note.content && <p className="contact-note__content">{note.content}</p>}
      {note.tags.length > 0 && (
        <ul className="contact-tags" aria-label="Tags">
          {note.tags.map((tag) => (
            <li key={tag}>
              <Link
                className="contact-tag"
                to={{ search: `?${new URLSearchParams({ tag }).toString()}` }}
                aria-label={`Show notes tagged ${tag}`}
                preventScrollReset
              >
                {tag}
              </Link>
            </li>
          ))}
        </ul>
      )}
      {props.children}
    </article>
  );
}
