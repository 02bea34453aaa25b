import {
  AppError,
  CreateContactBody,
  CreateNoteBody,
  IdParams,
  ListNotesQuery,
  NoteParams,
  NOTES_PAGE,
  UpdateContactBody,
  UpdateNoteBody,
  pageLimit,
  type Actor,
  type Contact,
  type ContactNote,
} from '@wap/contracts';
import {
  actorOf,
  decodeSeqCursor,
  encodeSeqCursor,
  parseRequestPart,
  type RouteHandler,
} from '@wap/bus-protocol';
import { requireMember, requireVisible, type WorkspaceStanding } from '../directory/access';
import { workspaceListHandler } from '../http/pages';
import type { ContactRecord, ContactsRepository, NoteRecord } from './repository';

const CONTACTS_LIST = 'contacts';

export type ContactOperation =
  | 'list_contacts'
  | 'create_contact'
  | 'get_contact'
  | 'update_contact'
  | 'delete_contact'
  | 'create_contact_note'
  | 'list_contact_notes'
  | 'update_contact_note'
  | 'delete_contact_note';

export interface ContactsHandlersDeps {
  repository: ContactsRepository;
  standingOf(workspaceId: string, userId: string): Promise<WorkspaceStanding>;
}

const CONTACT_NOT_FOUND = 'Contact not found';
const NOTE_NOT_FOUND = 'Note not found';
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

/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function createContactsHandlers(
  deps: ContactsHandlersDeps,
): Record<ContactOperation, RouteHandler> {
  const { repository, standingOf } = deps;

  async function visibleContact(contactId: string, actor: Actor): Promise<ContactRecord> {
    return (await visibleContactWithStanding(contactId, actor)).contact;
  }

  async function visibleContactWithStanding(
    contactId: string,
    actor: Actor,
  ): Promise<{ contact: ContactRecord; role: WorkspaceStanding['role'] }> {
    const found = await repository.findContact(contactId);
    const standing = found ? await standingOf(found.workspaceId, actor.userId) : null;
    const contact = requireVisible(found, standing, CONTACT_NOT_FOUND);
    return { contact, role: standing?.role ?? null };
  }

  /** The note, when the caller may change it: its author, or for `delete` an owner too. */
  async function changeableNote(
    params: unknown,
    actor: Actor,
    change: 'edit' | 'delete',
  ): Promise<NoteRecord> {
    const { id, noteId } = parseRequestPart(NoteParams, params);
    const { contact, role } = await visibleContactWithStanding(id, actor);
    const note = await repository.findNote(contact.id, noteId);
    if (!note) throw new AppError('NOT_FOUND', NOTE_NOT_FOUND);
    const mayChange = note.createdBy === actor.userId || (change === 'delete' && role === 'owner');
    if (!mayChange) {
      throw new AppError(
        'FORBIDDEN',
        change === 'edit'
          ? 'Only the author of a note can edit it'
          : 'Only the author of a note or an owner of the workspace can delete it',
      );
    }
    return note;
  }

  return {
    list_contacts: workspaceListHandler({
      cursor: CONTACTS_LIST,
      field: 'contacts',
      standingOf,
      read: (workspaceId, after, limit) => repository.listContacts(workspaceId, after, limit),
      toBody: contactBody,
    }),

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

    async update_contact(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const body = parseRequestPart(UpdateContactBody, request.body);
      await visibleContact(id, actor);
      const contact = await repository.updateContact(id, {
        name: body.name,
        email: body.email,
        companyId: body.company_id,
      });
      if (!contact) throw new AppError('NOT_FOUND', CONTACT_NOT_FOUND);
      return { status: 200, body: { contact: contactBody(contact) } };
    },

    async delete_contact(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const contact = await visibleContact(id, actor);
      await repository.deleteContact(contact.id);
      return { status: 204 };
    },

    async create_contact_note(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const body = parseRequestPart(CreateNoteBody, request.body);
      const contact = await visibleContact(id, actor);
      const note = await repository.addNote(contact, { ...body, createdBy: actor.userId });
      if (!note) throw new AppError('NOT_FOUND', CONTACT_NOT_FOUND);
      return { status: 201, body: { note: noteBody(note) } };
    },

    async update_contact_note(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(UpdateNoteBody, request.body);
      const note = await changeableNote(request.params, actor, 'edit');
      const updated = await repository.updateNote(note.id, body);
      if (!updated) throw new AppError('NOT_FOUND', NOTE_NOT_FOUND);
      return { status: 200, body: { note: noteBody(updated) } };
    },

    async delete_contact_note(request) {
      const actor = actorOf(request);
      const note = await changeableNote(request.params, actor, 'delete');
      await repository.deleteNote(note.id);
      return { status: 204 };
    },

    async list_contact_notes(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const query = parseRequestPart(ListNotesQuery, request.query);
      const contact = await visibleContact(id, actor);
      const limit = pageLimit(query.limit, NOTES_PAGE);
      const beforeSeq = decodeSeqCursor(NOTES_CURSOR, query.cursor);
      const tags = query.tag === undefined ? [] : [query.tag].flat();
      const notes = await repository.notesBefore(contact.id, beforeSeq, tags, limit + 1);
      const page = notes.slice(0, limit);
      const last = page.at(-1);
      return {
        status: 200,
        body: {
          notes: page.map(noteBody),
          nextCursor: notes.length > limit && last ? encodeSeqCursor(NOTES_CURSOR, last.seq) : null,
        },
      };
    },
  };
}
