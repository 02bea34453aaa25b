import { useState, type FormEvent, type ReactElement } from 'react';
import { useNavigate, useParams } from 'react-router';
import { UpdateContactBody, type Contact } from '@wap/contracts';
import {
  Button,
  ConfirmButton,
  ErrorMessage,
  PageHeader,
  Panel,
  TextField,
} from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { appPaths, RecordFrame, useWorkspaceId } from '../../../lib/routing';
import { useContact, useDeleteContact, useUpdateContact } from '../api/contacts-api';
import { NoteForm } from './note-form';
import { NotesList } from './notes-list';
import '../contacts.css';

/** `/contacts/:contactId`: the contact's notes, newest first, by tag, a new note, edit, delete. */
export function ContactPage() {
  const { contactId = '' } = useParams();
  return (
    <RecordFrame
      query={useContact(contactId)}
      noun="Contact"
      list={{ path: 'contacts', label: 'All contacts' }}
      recordPath={`contacts/${contactId}`}
      workspaceIdOf={(data) => data.contact.workspace_id}
    >
      {(data, backLink) => <ContactView record={data.contact} backLink={backLink} />}
    </RecordFrame>
  );
}

function ContactView({ record, backLink }: { record: Contact; backLink: ReactElement }) {
  const workspaceId = useWorkspaceId();
  const contactId = record.id;
  const deleteContact = useDeleteContact(workspaceId, contactId);
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const details = [record.email, record.company_id && `Company ${record.company_id}`]
    .filter(Boolean)
    .join(' · ');
  return (
    <>
      <PageHeader
        title={record.name}
        description={details || undefined}
        actions={
          <div className="button-row">
            {backLink}
            <Button onClick={() => setEditing(true)}>Edit</Button>
            <ConfirmButton
              label="Delete contact"
              action={`Delete ${record.name} with their notes`}
              busy={deleteContact.isPending}
              onConfirm={() =>
                deleteContact.mutate(undefined, {
                  onSuccess: () => void navigate(appPaths.workspace(workspaceId, 'contacts')),
                })
              }
            />
          </div>
        }
      />
      {deleteContact.isError && (
        <ErrorMessage error={deleteContact.error} title="Contact not deleted" />
      )}
      {editing && <EditContactPanel contact={record} onDone={() => setEditing(false)} />}
      <Panel title="Add a note">
        <NoteForm contactId={contactId} />
      </Panel>
      <Panel title="Notes">
        <NotesList contactId={contactId} workspaceId={workspaceId} />
      </Panel>
    </>
  );
}

/** Name, email and company; an emptied email or company is cleared. */
function EditContactPanel(props: { contact: Contact; onDone: () => void }) {
  const [name, setName] = useState(props.contact.name);
  const [email, setEmail] = useState(props.contact.email ?? '');
  const [companyId, setCompanyId] = useState(props.contact.company_id ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const updateContact = useUpdateContact(props.contact.id);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(UpdateContactBody, {
      name,
      email: email.trim() || null,
      company_id: companyId.trim() || null,
    });
    setErrors(result.ok ? {} : result.errors);
    if (result.ok) updateContact.mutate(result.data, { onSuccess: props.onDone });
  };
  return (
    <Panel title="Edit the contact">
      <form onSubmit={submit} noValidate>
        {updateContact.isError && <ErrorMessage error={updateContact.error} />}
        <TextField
          label="Name"
          autoComplete="off"
          autoFocus
          value={name}
          error={errors['name']}
          onChange={(event) => setName(event.target.value)}
        />
        <TextField
          label="Email (optional)"
          type="email"
          autoComplete="off"
          value={email}
          error={errors['email']}
          onChange={(event) => setEmail(event.target.value)}
        />
        <TextField
          label="Company ID (optional)"
          hint="Its notes move to the new company too."
          autoComplete="off"
          value={companyId}
          error={errors['company_id']}
          onChange={(event) => setCompanyId(event.target.value)}
        />
        <div className="button-row">
          <Button type="submit" variant="primary" busy={updateContact.isPending}>
            Save contact
          </Button>
          <Button onClick={props.onDone}>Cancel</Button>
        </div>
      </form>
    </Panel>
  );
}
