import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  ContactResponse,
  ContactsPage,
  CreateContactBody,
  CreateNoteBody,
  NoteResponse,
  NotesPage,
  UpdateContactBody,
  UpdateNoteBody,
} from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { contactsKeys } from './contacts-keys';

type ContactBody = z.infer<typeof ContactResponse>;
type NotesPageBody = z.infer<typeof NotesPage>;

/** Notes asked for per page (the API's default); "Load more" asks for the next. */
export const NOTES_PER_PAGE = 20;

const contactPath = (contactId: string, rest = '') =>
  `/contacts/${encodeURIComponent(contactId)}${rest ? `/${rest}` : ''}`;

/** The workspace's contacts, newest first, a page per "Load more". */
export function useContactsList(workspaceId: string) {
  const api = useApiClient();
  return useInfiniteQuery({
    queryKey: contactsKeys.list(workspaceId),
    queryFn: ({ signal, pageParam }) =>
      api.get<z.infer<typeof ContactsPage>>('/contacts', {
        signal,
        query: { workspaceId, cursor: pageParam },
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useCreateContact() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateContactBody) => api.post<ContactBody>('/contacts', body),
    onSuccess: (created) => {
      queryClient.setQueryData(contactsKeys.contact(created.contact.id), created);
      void queryClient.invalidateQueries({
        queryKey: contactsKeys.list(created.contact.workspace_id),
      });
    },
  });
}

export function useContact(contactId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: contactsKeys.contact(contactId),
    queryFn: ({ signal }) => api.get<ContactBody>(contactPath(contactId), { signal }),
  });
}

/** Spec endpoint 10: the contact's notes, newest first, a page at a time, by tag (decision 62). */
export function useNotes(contactId: string, tag: string | undefined) {
  const api = useApiClient();
  return useInfiniteQuery({
    queryKey: contactsKeys.notes(contactId, tag),
    queryFn: ({ signal, pageParam }) =>
      api.get<NotesPageBody>(contactPath(contactId, 'notes'), {
        signal,
        query: { limit: NOTES_PER_PAGE, cursor: pageParam, tag },
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useAddNote(contactId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateNoteBody) =>
      api.post<z.infer<typeof NoteResponse>>(contactPath(contactId, 'notes'), body),
    // The new note is the newest: every list of the contact is read again from its top.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contactsKeys.allNotes(contactId) }),
  });
}

export function useUpdateContact(contactId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof UpdateContactBody>) =>
      api.patch<ContactBody>(contactPath(contactId), body),
    onSuccess: (updated) => {
      queryClient.setQueryData(contactsKeys.contact(contactId), updated);
      void queryClient.invalidateQueries({
        queryKey: contactsKeys.list(updated.contact.workspace_id),
      });
      // A change of company reaches the notes.
      void queryClient.invalidateQueries({ queryKey: contactsKeys.allNotes(contactId) });
    },
  });
}

/** Deletes the contact with its notes; the caller leaves its page. */
export function useDeleteContact(workspaceId: string, contactId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<void>(contactPath(contactId)),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: contactsKeys.contact(contactId) });
      void queryClient.invalidateQueries({ queryKey: contactsKeys.list(workspaceId) });
    },
  });
}

const notePath = (contactId: string, noteId: string) =>
  contactPath(contactId, `notes/${encodeURIComponent(noteId)}`);

export function useEditNote(contactId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ noteId, ...body }: z.input<typeof UpdateNoteBody> & { noteId: string }) =>
      api.patch<z.infer<typeof NoteResponse>>(notePath(contactId, noteId), body),
    // Its tags may have changed: every filtered list is read again.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contactsKeys.allNotes(contactId) }),
  });
}

export function useDeleteNote(contactId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (noteId: string) => api.delete<void>(notePath(contactId, noteId)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: contactsKeys.allNotes(contactId) }),
  });
}
