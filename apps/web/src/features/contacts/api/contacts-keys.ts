/** The contacts feature's query keys: one factory, so an invalidation names exactly what it means. */
export const contactsKeys = {
  all: ['contacts'] as const,
  /** The workspace's contacts, newest first, as far as they were paged. */
  list: (workspaceId: string) => [...contactsKeys.all, 'list', workspaceId] as const,
  contact: (contactId: string) => [...contactsKeys.all, contactId] as const,
  /** Every notes list of the contact, whatever its tag filter. */
  allNotes: (contactId: string) => [...contactsKeys.contact(contactId), 'notes'] as const,
  notes: (contactId: string, tag: string | undefined) =>
    [...contactsKeys.allNotes(contactId), { tag: tag ?? null }] as const,
};
