import { Link, Navigate, useParams } from 'react-router';
import { ErrorMessage, LoadingState, PageHeader, Panel } from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useContact } from '../api/contacts-api';
import { NoteForm } from './note-form';
import { NotesList } from './notes-list';
import '../contacts.css';

/** `/contacts/:contactId`: the contact's notes, newest first, by tag, and a new note. */
export function ContactPage() {
  const workspaceId = useWorkspaceId();
  const { contactId = '' } = useParams();
  const contact = useContact(contactId);
  const backLink = <Link to={appPaths.workspace(workspaceId, 'contacts')}>All contacts</Link>;
  if (contact.isPending) return <LoadingState label="Loading the contact…" />;
  if (contact.isError) {
    return (
      <>
        <PageHeader title="Contact" actions={backLink} />
        <ErrorMessage error={contact.error} />
      </>
    );
  }
  const { contact: record } = contact.data;
  // A link into another of the person's workspaces opens the contact where it lives.
  if (record.workspace_id !== workspaceId) {
    return (
      <Navigate to={appPaths.workspace(record.workspace_id, `contacts/${contactId}`)} replace />
    );
  }
  const details = [record.email, record.company_id && `Company ${record.company_id}`]
    .filter(Boolean)
    .join(' · ');
  return (
    <>
      <PageHeader title={record.name} description={details || undefined} actions={backLink} />
      <Panel title="Add a note">
        <NoteForm contactId={contactId} />
      </Panel>
      <Panel title="Notes">
        <NotesList contactId={contactId} />
      </Panel>
    </>
  );
}
