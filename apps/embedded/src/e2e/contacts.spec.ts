import { randomUUID } from 'node:crypto';
import {
  addWorkspaceMember,
  http,
  newWorkspaceOwner,
  RUNTIMES,
  startStack,
  type TestStack,
  type WorkspaceOwner,
} from './stack';

type Member = WorkspaceOwner;

interface Note {
  id: string;
  title: string;
  tags: string[];
}

interface NotesPage {
  notes: Note[];
  nextCursor: string | null;
}

describe.each(RUNTIMES)('contacts and notes through the gateway on the %s runtime', (runtime) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(runtime);
  });
  afterAll(async () => {
    await stack.stop();
  });

  const newMember = (label: string) => newWorkspaceOwner(stack, label);

  async function newContact(member: Member, body: Record<string, unknown> = {}): Promise<string> {
    const created = await http(`${stack.url}/contacts`, {
      method: 'POST',
      cookie: member.cookie,
      body: { workspaceId: member.workspaceId, name: 'Ada Lovelace', ...body },
    });
    expect(created.status).toBe(201);
    return (created.body as { contact: { id: string } }).contact.id;
  }

  async function addNote(
    member: { cookie: string },
    contactId: string,
    title: string,
    tags: string[] = [],
  ) {
    const created = await http(`${stack.url}/contacts/${contactId}/notes`, {
      method: 'POST',
      cookie: member.cookie,
      body: { title, content: `content of ${title}`, tags },
    });
    expect(created.status).toBe(201);
    return (created.body as { note: Note }).note;
  }

  async function page(member: Member, contactId: string, query: string) {
    const response = await http(`${stack.url}/contacts/${contactId}/notes?${query}`, {
      cookie: member.cookie,
    });
    expect(response.status).toBe(200);
    return response.body as NotesPage;
  }

  test('a contact and its notes with every field of the Contact note record', async () => {
    const member = await newMember('contacts');
    const contactId = await newContact(member, { email: 'ada@example.com', company_id: 'acme' });
    const contact = await http(`${stack.url}/contacts/${contactId}`, { cookie: member.cookie });
    expect(contact.status).toBe(200);
    expect(contact.body).toEqual({
      contact: {
        id: contactId,
        workspace_id: member.workspaceId,
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        company_id: 'acme',
        created_by: expect.any(String),
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const created = await http(`${stack.url}/contacts/${contactId}/notes`, {
      method: 'POST',
      cookie: member.cookie,
      body: { title: 'Met', content: 'At the conference', tags: ['lead', 'lead', 'vip'] },
    });
    expect(created.status).toBe(201);
    const listed = await page(member, contactId, '');
    expect(listed).toEqual({
      notes: [
        {
          id: expect.any(String),
          workspace_id: member.workspaceId,
          contact_id: contactId,
          company_id: 'acme',
          title: 'Met',
          content: 'At the conference',
          tags: ['lead', 'vip'],
          created_by: (contact.body as { contact: { created_by: string } }).contact.created_by,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ],
      nextCursor: null,
    });
    expect(created.body).toEqual({ note: listed.notes[0] });
  });

  test('endpoint 10 pages newest first, filters by tag, and refuses bad queries', async () => {
    const member = await newMember('notes');
    const contactId = await newContact(member);
    const titles: string[] = [];
    for (let index = 0; index < 7; index += 1) {
      titles.push(`note ${index}`);
      await addNote(member, contactId, `note ${index}`, index % 2 === 0 ? ['even'] : ['odd']);
    }
    const first = await page(member, contactId, 'limit=3');
    expect(first.notes.map((note) => note.title)).toEqual(['note 6', 'note 5', 'note 4']);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await page(member, contactId, `limit=3&cursor=${first.nextCursor}`);
    expect(second.notes.map((note) => note.title)).toEqual(['note 3', 'note 2', 'note 1']);
    const last = await page(member, contactId, `limit=3&cursor=${second.nextCursor}`);
    expect(last).toEqual({
      notes: [expect.objectContaining({ title: 'note 0' })],
      nextCursor: null,
    });

    const even = await page(member, contactId, 'tag=even');
    expect(even.notes.map((note) => note.title)).toEqual(['note 6', 'note 4', 'note 2', 'note 0']);
    const both = await page(member, contactId, 'tag=even&tag=odd');
    expect(both).toEqual({ notes: [], nextCursor: null });
    const defaultPage = await page(member, contactId, '');
    expect(defaultPage.notes).toHaveLength(7);

    for (const query of [
      'limit=0',
      'limit=101',
      'limit=ten',
      'cursor=garbage',
      'cursor=cm93czox',
    ]) {
      const refused = await http(`${stack.url}/contacts/${contactId}/notes?${query}`, {
        cookie: member.cookie,
      });
      expect({ query, status: refused.status }).toEqual({ query, status: 400 });
      expect(refused.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
  });

  test('paging while notes are added returns no note twice and skips none that existed', async () => {
    const member = await newMember('concurrent');
    const contactId = await newContact(member);
    const existing = new Set<string>();
    for (let index = 0; index < 25; index += 1) {
      existing.add((await addNote(member, contactId, `before ${index}`)).id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let added = 0;
    do {
      const query: string = cursor ? `limit=4&cursor=${cursor}` : 'limit=4';
      // Each page is read while two more notes are being written.
      const [current] = await Promise.all([
        page(member, contactId, query),
        addNote(member, contactId, `during ${added}`),
        addNote(member, contactId, `during ${added + 1}`),
      ]);
      added += 2;
      seen.push(...current.notes.map((note) => note.id));
      cursor = current.nextCursor;
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of existing) expect(seen).toContain(id);
  });

  test('a member of workspace A gets 404, never data, on every contact route with ids of B', async () => {
    const a = await newMember('a');
    const b = await newMember('b');
    const contactId = await newContact(b);
    const secret = await addNote(b, contactId, 'secret');
    const requests: [string, string, unknown][] = [
      ['GET', `/contacts/${contactId}`, undefined],
      ['GET', `/contacts/${contactId}/notes`, undefined],
      ['POST', `/contacts/${contactId}/notes`, { title: 'x', content: 'y' }],
      ['POST', '/contacts', { workspaceId: b.workspaceId, name: 'intruder' }],
      ['GET', `/contacts/${randomUUID()}/notes`, undefined],
      ['PATCH', `/contacts/${contactId}`, { name: 'taken over' }],
      ['PATCH', `/contacts/${contactId}/notes/${secret.id}`, { title: 'read' }],
      ['DELETE', `/contacts/${contactId}/notes/${secret.id}`, undefined],
      ['DELETE', `/contacts/${contactId}`, undefined],
    ];
    for (const [method, path, body] of requests) {
      const response = await http(`${stack.url}${path}`, { method, cookie: a.cookie, body });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
    }
    const notes = await page(b, contactId, '');
    expect(notes.notes.map((note) => note.title)).toEqual(['secret']);
  });

  test('a contact is changed and deleted with its notes; its notes follow a change of company', async () => {
    const member = await newMember('contact-changes');
    const contactId = await newContact(member, { email: 'ada@example.com', company_id: 'acme' });
    await addNote(member, contactId, 'first');
    const patch = (body: unknown) =>
      http(`${stack.url}/contacts/${contactId}`, { method: 'PATCH', cookie: member.cookie, body });

    const changed = await patch({ name: 'Ada King', email: null, company_id: 'analytical' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      contact: { id: contactId, name: 'Ada King', email: null, company_id: 'analytical' },
    });
    expect((await page(member, contactId, '')).notes).toEqual([
      expect.objectContaining({ title: 'first', company_id: 'analytical' }),
    ]);
    for (const refused of [{}, { email: 'not an email' }, { name: ' ' }, { workspace_id: 'x' }]) {
      const answer = await patch(refused);
      expect({ refused, status: answer.status }).toEqual({ refused, status: 400 });
      expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    }

    const deleted = await http(`${stack.url}/contacts/${contactId}`, {
      method: 'DELETE',
      cookie: member.cookie,
    });
    expect(deleted.status).toBe(204);
    for (const path of [`/contacts/${contactId}`, `/contacts/${contactId}/notes`]) {
      const gone = await http(`${stack.url}${path}`, { cookie: member.cookie });
      expect({ path, status: gone.status }).toEqual({ path, status: 404 });
    }
  });

  test('a note is edited by its author only, and deleted by its author or an owner', async () => {
    const owner = await newMember('note-owner');
    const author = await addWorkspaceMember(stack, owner, 'note-author');
    const colleague = await addWorkspaceMember(stack, owner, 'note-colleague');
    const contactId = await newContact(owner);
    const note = await addNote(author, contactId, 'Call notes', ['call']);
    const edit = (who: { cookie: string }, noteId: string, body: unknown) =>
      http(`${stack.url}/contacts/${contactId}/notes/${noteId}`, {
        method: 'PATCH',
        cookie: who.cookie,
        body,
      });
    const remove = (who: { cookie: string }, noteId: string) =>
      http(`${stack.url}/contacts/${contactId}/notes/${noteId}`, {
        method: 'DELETE',
        cookie: who.cookie,
      });

    const edited = await edit(author, note.id, { content: 'Called back', tags: ['call', 'done'] });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      note: { id: note.id, title: 'Call notes', content: 'Called back', tags: ['call', 'done'] },
    });
    expect((await page(owner, contactId, 'tag=done')).notes.map((n) => n.id)).toEqual([note.id]);
    for (const who of [colleague, owner]) {
      const refused = await edit(who, note.id, { title: 'mine now' });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        error: 'Only the author of a note can edit it',
        code: 'FORBIDDEN',
      });
    }
    expect((await remove(colleague, note.id)).status).toBe(403);
    expect((await edit(author, randomUUID(), { title: 'x' })).status).toBe(404);

    expect((await remove(owner, note.id)).status).toBe(204);
    const own = await addNote(colleague, contactId, 'Mine');
    expect((await remove(colleague, own.id)).status).toBe(204);
    expect((await remove(colleague, own.id)).status).toBe(404);
    expect((await page(owner, contactId, '')).notes).toEqual([]);
  });
});
