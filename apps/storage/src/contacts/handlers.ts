import {
  CreateContactBody,
  CreateNoteBody,
  IdParams,
  ListNotesQuery,
  NOTES_PAGE,
  pageLimit,
  type Actor,
  type Contact,
  type ContactNote,
  WorkspaceListQuery,
} from '@wap/contracts';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/platform';
import { requireMember, requireVisible, type WorkspaceStanding } from '../directory/access';
import { decodeCursor, encodeCursor } from '../http/cursors';
import { newestFirstPage, pageRequest } from '../http/pages';
import type { ContactRecord, ContactsRepository, NoteRecord } from './repository';

const CONTACTS_LIST = 'contacts';

export type ContactOperation =
  'list_contacts' | 'create_contact' | 'get_contact' | 'create_contact_note' | 'list_contact_notes';

export interface ContactsHandlersDeps {
  repository: ContactsRepository;
  standingOf(workspaceId: string, userId: string): Promise<WorkspaceStanding>;
}

const CONTACT_NOT_FOUND = 'Contact not found';
const NOTES_CURSOR = 'notes';

function contactBody(contact: ContactRecord): Contact {
  return {
    id: contact.id,
    workspace_id: contact.workspaceId,
    name: contact.name,
    email: contact.email,
    company_id: contact.companyId,
    created_by: contact.createdBy,
    created_at: contact.createdAt.toISOString(),
    updated_at: contact.updatedAt.toISOString(),
  };
}

function noteBody(note: NoteRecord): ContactNote {
  return {
    id: note.id,
    workspace_id: note.workspaceId,
    contact_id: note.contactId,
    company_id: note.companyId,
    title: note.title,
    content: note.content,
    tags: note.tags,
    created_by: note.createdBy,
    created_at: note.createdAt.toISOString(),
    updated_at: note.updatedAt.toISOString(),
  };
}

export function createContactsHandlers(
  deps: ContactsHandlersDeps,
): Record<ContactOperation, RouteHandler> {
  const { repository, standingOf } = deps;

  async function visibleContact(contactId: string, actor: Actor): Promise<ContactRecord> {
    const contact = await repository.findContact(contactId);
    const standing = contact ? await standingOf(contact.workspaceId, actor.userId) : null;
    return requireVisible(contact, standing, CONTACT_NOT_FOUND);
  }

  return {
    async list_contacts(request) {
      const actor = actorOf(request);
      const query = parseRequestPart(WorkspaceListQuery, request.query);
      requireMember(await standingOf(query.workspaceId, actor.userId));
      const { limit, after } = pageRequest(CONTACTS_LIST, query);
      const found = await repository.listContacts(query.workspaceId, after, limit + 1);
      const page = newestFirstPage(CONTACTS_LIST, found, limit);
      return {
        status: 200,
        body: { contacts: page.items.map(contactBody), nextCursor: page.nextCursor },
      };
    },

    async create_contact(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(CreateContactBody, request.body);
      requireMember(await standingOf(body.workspaceId, actor.userId));
      const contact = await repository.createContact({
        workspaceId: body.workspaceId,
        name: body.name,
        email: body.email ?? null,
        companyId: body.company_id ?? null,
        createdBy: actor.userId,
      });
      return { status: 201, body: { contact: contactBody(contact) } };
    },

    async get_contact(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      return { status: 200, body: { contact: contactBody(await visibleContact(id, actor)) } };
    },

    async create_contact_note(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const body = parseRequestPart(CreateNoteBody, request.body);
      const contact = await visibleContact(id, actor);
      const note = await repository.addNote(contact, { ...body, createdBy: actor.userId });
      return { status: 201, body: { note: noteBody(note) } };
    },

    async list_contact_notes(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const query = parseRequestPart(ListNotesQuery, request.query);
      const contact = await visibleContact(id, actor);
      const limit = pageLimit(query.limit, NOTES_PAGE);
      const beforeSeq = decodeCursor(NOTES_CURSOR, query.cursor);
      const tags = query.tag === undefined ? [] : [query.tag].flat();
      const notes = await repository.notesBefore(contact.id, beforeSeq, tags, limit + 1);
      const page = notes.slice(0, limit);
      const last = page.at(-1);
      return {
        status: 200,
        body: {
          notes: page.map(noteBody),
          nextCursor: notes.length > limit && last ? encodeCursor(NOTES_CURSOR, last.seq) : null,
        },
      };
    },
  };
}
