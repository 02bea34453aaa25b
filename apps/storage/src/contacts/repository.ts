import { and, arrayContains, desc, eq, lt, sql } from 'drizzle-orm';

import { type Clock, type IdSource, type SqlDatabase } from '@wap/platform';
import { type KeysetPosition } from '@wap/bus-protocol';
import { isForeignKeyViolation } from '../db/errors';
import { newestFirst } from '../db/newest-first';
import { contactNotes, contacts } from '../db/schema';

export interface ContactRecord {
  id: string;
  workspaceId: string;
  name: string;
  email: string | null;
  companyId: string | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface NoteRecord {
  seq: number;
  id: string;
  workspaceId: string;
  contactId: string;
  companyId: string | null;
  title: string;
  content: string;
  tags: string[];
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface ContactChanges {
  name?: string;
  email?: string | null;
  companyId?: string | null;
}

export type ContactsRepository = ReturnType<typeof createContactsRepository>;

/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createContactsRepository(deps: { db: SqlDatabase; clock: Clock; ids: IdSource }) {
  const { db, clock, ids } = deps;

  return {
    async createContact(
      input: Omit<ContactRecord, 'id' | 'createdAt' | 'updatedAt'>,
    ): Promise<ContactRecord> {
      const now = clock.now();
      const contact: ContactRecord = { id: ids.uuid(), ...input, createdAt: now, updatedAt: now };
      await db.insert(contacts).values(contact);
      return contact;
    },

    /** Up to `limit` contacts of the workspace after `after`, newest first. */
    async listContacts(
      workspaceId: string,
      after: KeysetPosition | undefined,
      limit: number,
    ): Promise<ContactRecord[]> {
      const order = newestFirst(contacts);
      return db
        .select()
        .from(contacts)
        .where(and(eq(contacts.workspaceId, workspaceId), order.after(after)))
        .orderBy(...order.orderBy)
        .limit(limit);
    },

    async findContact(contactId: string): Promise<ContactRecord | null> {
      const [contact] = await db.select().from(contacts).where(eq(contacts.id, contactId));
      return contact ?? null;
    },

    /** A change of company reaches the contact's notes in the same transaction. */
    async updateContact(contactId: string, changes: ContactChanges): Promise<ContactRecord | null> {
      return db.transaction(async (tx) => {
        const [contact] = await tx
          .update(contacts)
          .set({ ...changes, updatedAt: clock.now() })
          .where(eq(contacts.id, contactId))
          .returning();
        if (contact && changes.companyId !== undefined) {
          await tx
            .update(contactNotes)
            .set({ companyId: changes.companyId })
            .where(eq(contactNotes.contactId, contactId));
        }
        return contact ?? null;
      });
    },

    /** Deletes the contact and its notes at once. */
    async deleteContact(contactId: string): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.execute(sql`select id from ${contacts} where id = ${contactId} for update`);
        await tx.delete(contactNotes).where(eq(contactNotes.contactId, contactId));
        await tx.delete(contacts).where(eq(contacts.id, contactId));
      });
    },

    /** Null when the contact was deleted meanwhile. */
    async addNote(
      contact: ContactRecord,
      input: { title: string; content: string; tags: string[]; createdBy: string },
    ): Promise<NoteRecord | null> {
      const now = clock.now();
      try {
        const [note] = await db
          .insert(contactNotes)
          .values({
            id: ids.uuid(),
            workspaceId: contact.workspaceId,
            contactId: contact.id,
            companyId: contact.companyId,
            ...input,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        return note ?? null;
      } catch (error) {
        if (isForeignKeyViolation(error)) return null;
        throw error;
      }
    },

    async findNote(contactId: string, noteId: string): Promise<NoteRecord | null> {
      const [note] = await db
        .select()
        .from(contactNotes)
        .where(and(eq(contactNotes.id, noteId), eq(contactNotes.contactId, contactId)));
      return note ?? null;
    },

    async updateNote(
      noteId: string,
      changes: { title?: string; content?: string; tags?: string[] },
    ): Promise<NoteRecord | null> {
      const [note] = await db
        .update(contactNotes)
        .set({ ...changes, updatedAt: clock.now() })
        .where(eq(contactNotes.id, noteId))
        .returning();
      return note ?? null;
    },

    async deleteNote(noteId: string): Promise<void> {
      await db.delete(contactNotes).where(eq(contactNotes.id, noteId));
    },

    /** Up to `limit` notes of the contact older than `beforeSeq`, newest first, with every tag. */
    async notesBefore(
      contactId: string,
      beforeSeq: number | null,
      tags: string[],
      limit: number,
    ): Promise<NoteRecord[]> {
      return db
        .select()
        .from(contactNotes)
        .where(
          and(
            eq(contactNotes.contactId, contactId),
            beforeSeq === null ? undefined : lt(contactNotes.seq, beforeSeq),
            tags.length === 0 ? undefined : arrayContains(contactNotes.tags, tags),
          ),
        )
        .orderBy(desc(contactNotes.seq))
        .limit(limit);
    },
  };
}
