import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  ContactResponse,
  ContactsPage,
  CreateContactBody,
  CreateNoteBody,
  NoteResponse,
  NotesPage,
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
