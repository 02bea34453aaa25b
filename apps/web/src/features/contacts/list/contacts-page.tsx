import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { CreateContactBody } from '@wap/contracts';
import { Button, ErrorMessage, PagedRecordList, RecordsPage, TextField } from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useContactsList, useCreateContact } from '../api/contacts-api';
import '../contacts.css';

/** `/contacts`: the workspace's contacts, newest first, and a form that creates one. */
export function ContactsPage() {
  const workspaceId = useWorkspaceId();
  return (
    <RecordsPage
      title="Contacts"
      description="The people you work with, and the notes your team keeps about them."
      noun="contact"
      createForm={<CreateContactForm workspaceId={workspaceId} />}
      list={<ContactsList workspaceId={workspaceId} />}
    />
  );
}

function ContactsList(props: { workspaceId: string }) {
  return (
    <PagedRecordList
      query={useContactsList(props.workspaceId)}
      itemsOf={(page) => page.contacts}
      noun="contacts"
      empty={{
        title: 'No contacts yet',
        hint: 'Add the first person above; the notes about them go on their page.',
      }}
    >
      {(contact) => (
        <>
          <Link to={appPaths.workspace(props.workspaceId, `contacts/${contact.id}`)}>
            {contact.name}
          </Link>
          {contact.email && <span className="contact-muted"> {contact.email}</span>}
        </>
      )}
    </PagedRecordList>
  );
}

function CreateContactForm(props: { workspaceId: string }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [companyId, setCompanyId] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const createContact = useCreateContact();
  const navigate = useNavigate();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(CreateContactBody, {
      workspaceId: props.workspaceId,
      name,
      email: email.trim() || undefined,
      company_id: companyId.trim() || undefined,
    });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    createContact.mutate(result.data, {
      onSuccess: ({ contact }) =>
        void navigate(appPaths.workspace(props.workspaceId, `contacts/${contact.id}`)),
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      {createContact.isError && <ErrorMessage error={createContact.error} />}
      <TextField
        label="Name"
        autoComplete="off"
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
        hint="The company's identifier in your records; its notes carry it too."
        autoComplete="off"
        value={companyId}
        error={errors['company_id']}
        onChange={(event) => setCompanyId(event.target.value)}
      />
      <Button type="submit" variant="primary" busy={createContact.isPending}>
        Create contact
      </Button>
    </form>
  );
}
