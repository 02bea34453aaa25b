import type { Feature } from '../../lib/routing';

/** Contacts and their notes, paged and filtered by tag. Every page is lazy. */
export const contactsFeature: Feature = {
  workspaceRoutes: [
    {
      path: 'contacts',
      lazy: async () => ({ Component: (await import('./list/contacts-page')).ContactsPage }),
    },
    {
      path: 'contacts/:contactId',
      lazy: async () => ({ Component: (await import('./contact/contact-page')).ContactPage }),
    },
  ],
  navEntries: [{ label: 'Contacts', path: 'contacts' }],
};
