import { randomUUID } from 'node:crypto';
import { ViewedConversation } from '@wap/contracts';
import {
  http,
  RUNTIMES,
  startStack,
  uniqueEmail,
  type JsonResponse,
  type TestStack,
} from './stack';

/** A signed-in user: their cookie, id and the name sessions give them (the email's local part). */
interface Person {
  cookie: string;
  userId: string;
  name: string;
}

interface Owner extends Person {
  workspaceId: string;
}

interface Chat {
  id: string;
  user_id: string;
  workspace_id: string;
  title: string | null;
  access_type: string;
  is_archived: boolean | null;
  metadata: Record<string, unknown> | null;
  last_activity_at: string;
  created_at: string;
  viewerIsOwner: boolean;
  viewerCanEdit: boolean;
}

interface AccessRequest {
  id: string;
  conversation_id: string;
  user_id: string;
  user_name: string | null;
  status: string;
  created_at: string;
  decided_at: string | null;
}

const CHAT_NOT_FOUND = { error: 'Chat not found', code: 'NOT_FOUND' };

describe.each(RUNTIMES)('chat conversations through the gateway on the %s runtime', (runtime) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(runtime);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  function call(
    person: { cookie: string } | null,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<JsonResponse> {
    return http(`${stack.url}${path}`, { method, cookie: person?.cookie, body });
  }

  async function signIn(label: string): Promise<Person> {
    const email = uniqueEmail(label);
    const cookie = await stack.cookieFor(email);
    const me = await call({ cookie }, 'GET', '/me');
    expect(me.status).toBe(200);
    return {
      cookie,
      userId: (me.body as { user: { id: string } }).user.id,
      name: email.split('@')[0] ?? email,
    };
  }

  async function newOwner(label: string): Promise<Owner> {
    const person = await signIn(label);
    const created = await call(person, 'POST', '/workspaces', { name: `${label} workspace` });
    expect(created.status).toBe(201);
    return { ...person, workspaceId: (created.body as { workspace: { id: string } }).workspace.id };
  }

  /** A new user added to the owner's workspace as a member. */
  async function addMember(owner: Owner, label: string): Promise<Person> {
    const email = uniqueEmail(label);
    const added = await call(owner, 'POST', `/workspaces/${owner.workspaceId}/members`, {
      email,
      role: 'member',
    });
    expect(added.status).toBe(201);
    return {
      cookie: await stack.cookieFor(email),
      userId: (added.body as { member: { user_id: string } }).member.user_id,
      name: email.split('@')[0] ?? email,
    };
  }

  async function createChat(owner: Owner, body: Record<string, unknown> = {}): Promise<Chat> {
    const created = await call(owner, 'POST', '/ai-chat/conversations', {
      workspaceId: owner.workspaceId,
      ...body,
    });
    expect(created.status).toBe(201);
    return (created.body as { conversation: Chat }).conversation;
  }

  async function getChat(person: Person | null, chatId: string): Promise<JsonResponse> {
    return call(person, 'GET', `/ai-chat/conversations/${chatId}`);
  }

  async function openChat(person: Person, chatId: string): Promise<Chat> {
    const response = await getChat(person, chatId);
    expect(response.status).toBe(200);
    return (response.body as { conversation: Chat }).conversation;
  }

  async function invite(owner: Owner, chatId: string, userIds: string[], canEdit: boolean) {
    const invited = await call(owner, 'POST', `/ai-chat/conversations/${chatId}/invites`, {
      userIds,
      canEdit,
    });
    expect(invited.status).toBe(201);
    return invited.body as { participants: { user_id: string; can_edit: boolean }[] };
  }

  async function requestAccess(person: Person, chatId: string): Promise<JsonResponse> {
    return call(person, 'POST', `/ai-chat/conversations/${chatId}/access-requests`);
  }

  async function pendingRequests(owner: Owner, chatId: string): Promise<AccessRequest[]> {
    const listed = await call(owner, 'GET', `/ai-chat/conversations/${chatId}/access-requests`);
    expect(listed.status).toBe(200);
    return (listed.body as { accessRequests: AccessRequest[] }).accessRequests;
  }

  function deniedBody(chat: Chat, ownerName: string, alreadyRequested: boolean) {
    return {
      error: 'access_denied',
      resource: { id: chat.id, type: 'chat', name: chat.title, ownerName, alreadyRequested },
    };
  }

  describe('endpoint 1', () => {
    test('the owner gets every Conversation field, viewerIsOwner and viewerCanEdit', async () => {
      const owner = await newOwner('owner');
      const projectId = randomUUID();
      const created = await createChat(owner, {
        title: 'Quarterly plan',
        projectId,
        source: 'webapp',
        metadata: { color: 'blue' },
      });
      const response = await getChat(owner, created.id);
      expect(response.status).toBe(200);
      const body = response.body as { conversation: Chat };
      expect(Object.keys(body)).toEqual(['conversation']);
      expect(body.conversation).toEqual({
        id: created.id,
        user_id: owner.userId,
        workspace_id: owner.workspaceId,
        project_id: projectId,
        title: 'Quarterly plan',
        source: 'webapp',
        access_type: 'private',
        is_archived: false,
        metadata: { color: 'blue', starred: false },
        last_message: null,
        last_activity_at: body.conversation.created_at,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updated_at: body.conversation.created_at,
        viewerIsOwner: true,
        viewerCanEdit: true,
      });
      expect(ViewedConversation.strict().safeParse(body.conversation).success).toBe(true);
      expect(created).toEqual(body.conversation);

      const bare = await createChat(owner);
      expect(await openChat(owner, bare.id)).toMatchObject({
        title: null,
        project_id: null,
        source: null,
        metadata: { starred: false },
      });
    });

    test('participants with and without edit rights, and every member of an everyone chat', async () => {
      const owner = await newOwner('sharer');
      const editor = await addMember(owner, 'editor');
      const reader = await addMember(owner, 'reader');
      const member = await addMember(owner, 'member');
      const invited = await createChat(owner, { title: 'Invited' });
      await invite(owner, invited.id, [editor.userId], true);
      await invite(owner, invited.id, [reader.userId], false);

      expect(await openChat(editor, invited.id)).toMatchObject({
        id: invited.id,
        access_type: 'invited',
        viewerIsOwner: false,
        viewerCanEdit: true,
      });
      expect(await openChat(reader, invited.id)).toMatchObject({
        viewerIsOwner: false,
        viewerCanEdit: false,
      });
      const notInvited = await getChat(member, invited.id);
      expect(notInvited.status).toBe(403);

      const shared = await createChat(owner, { title: 'Shared', access_type: 'everyone' });
      expect(await openChat(member, shared.id)).toMatchObject({
        id: shared.id,
        access_type: 'everyone',
        viewerIsOwner: false,
        viewerCanEdit: false,
      });
      await invite(owner, shared.id, [editor.userId], true);
      expect(await openChat(editor, shared.id)).toMatchObject({ viewerCanEdit: true });
    });

    test('a member without access: the exact Access-denied body, alreadyRequested after a request', async () => {
      const owner = await newOwner('private');
      const member = await addMember(owner, 'curious');
      const chat = await createChat(owner, { title: 'Secret plan' });

      const denied = await getChat(member, chat.id);
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual(deniedBody(chat, owner.name, false));

      const requested = await requestAccess(member, chat.id);
      expect(requested.status).toBe(201);
      const after = await getChat(member, chat.id);
      expect(after.status).toBe(403);
      expect(after.body).toEqual(deniedBody(chat, owner.name, true));

      const untitled = await createChat(owner);
      expect((await getChat(member, untitled.id)).body).toEqual({
        error: 'access_denied',
        resource: {
          id: untitled.id,
          type: 'chat',
          name: null,
          ownerName: owner.name,
          alreadyRequested: false,
        },
      });
    });

    test('another workspace, an unknown uuid, a malformed id and a deleted chat: one 404, same bytes', async () => {
      const owner = await newOwner('holder');
      const outsider = await newOwner('outsider');
      const chat = await createChat(owner, { title: 'Not yours', access_type: 'everyone' });
      const deleted = await createChat(owner, { title: 'Gone' });
      expect((await call(owner, 'DELETE', `/ai-chat/conversations/${deleted.id}`)).status).toBe(
        204,
      );

      const answers = [
        await getChat(outsider, chat.id),
        await getChat(owner, randomUUID()),
        await getChat(owner, 'not-a-uuid'),
        await getChat(owner, deleted.id),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(404);
        expect(answer.body).toEqual(CHAT_NOT_FOUND);
      }
      expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    });

    test('no cookie is 401 UNAUTHORIZED', async () => {
      const owner = await newOwner('anonymous');
      const chat = await createChat(owner);
      const response = await getChat(null, chat.id);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
    });
  });

  describe('access requests', () => {
    test('request, the owner lists it, grants it with edit: the requester opens an invited chat', async () => {
      const owner = await newOwner('granter');
      const requester = await addMember(owner, 'requester');
      const chat = await createChat(owner, { title: 'Roadmap' });

      const requested = await requestAccess(requester, chat.id);
      expect(requested.status).toBe(201);
      const accessRequest = (requested.body as { accessRequest: AccessRequest }).accessRequest;
      expect(accessRequest).toEqual({
        id: expect.any(String),
        conversation_id: chat.id,
        user_id: requester.userId,
        user_name: requester.name,
        status: 'pending',
        created_at: expect.any(String),
        decided_at: null,
      });
      expect(await pendingRequests(owner, chat.id)).toEqual([accessRequest]);

      const granted = await call(
        owner,
        'POST',
        `/ai-chat/conversations/${chat.id}/access-requests/${accessRequest.id}/grant`,
        { canEdit: true },
      );
      expect(granted.status).toBe(200);
      expect(granted.body).toEqual({
        accessRequest: { ...accessRequest, status: 'granted', decided_at: expect.any(String) },
      });
      expect(await openChat(requester, chat.id)).toMatchObject({
        access_type: 'invited',
        viewerIsOwner: false,
        viewerCanEdit: true,
      });
      expect(await pendingRequests(owner, chat.id)).toEqual([]);

      for (const decision of ['grant', 'decline']) {
        const again = await call(
          owner,
          'POST',
          `/ai-chat/conversations/${chat.id}/access-requests/${accessRequest.id}/${decision}`,
          decision === 'grant' ? { canEdit: false } : undefined,
        );
        expect(again.status).toBe(409);
        expect(again.body).toEqual({
          error: 'This access request was already granted',
          code: 'CONFLICT',
        });
      }
      const canOpen = await requestAccess(requester, chat.id);
      expect(canOpen.status).toBe(409);
      expect(canOpen.body).toEqual({ error: 'You can already open this chat', code: 'CONFLICT' });
    });

    test('decline: the requester stays out and may ask again later', async () => {
      const owner = await newOwner('decliner');
      const requester = await addMember(owner, 'hopeful');
      const chat = await createChat(owner, { title: 'Budget' });
      const first = (
        (await requestAccess(requester, chat.id)).body as { accessRequest: AccessRequest }
      ).accessRequest;
      const declined = await call(
        owner,
        'POST',
        `/ai-chat/conversations/${chat.id}/access-requests/${first.id}/decline`,
      );
      expect(declined.status).toBe(200);
      expect(declined.body).toEqual({
        accessRequest: { ...first, status: 'declined', decided_at: expect.any(String) },
      });
      const stillDenied = await getChat(requester, chat.id);
      expect(stillDenied.status).toBe(403);
      expect(stillDenied.body).toEqual(deniedBody(chat, owner.name, false));
      expect((await openChat(owner, chat.id)).access_type).toBe('private');

      const again = await requestAccess(requester, chat.id);
      expect(again.status).toBe(201);
      expect((again.body as { accessRequest: AccessRequest }).accessRequest.id).not.toBe(first.id);
      const grantDeclined = await call(
        owner,
        'POST',
        `/ai-chat/conversations/${chat.id}/access-requests/${first.id}/grant`,
        { canEdit: true },
      );
      expect(grantDeclined.status).toBe(409);
      expect(grantDeclined.body).toEqual({
        error: 'This access request was already declined',
        code: 'CONFLICT',
      });
    });

    test('one pending request per requester, also when asked concurrently', async () => {
      const owner = await newOwner('pending');
      const requester = await addMember(owner, 'eager');
      const chat = await createChat(owner, { title: 'Popular' });

      const answers = await Promise.all(
        Array.from({ length: 6 }, () => requestAccess(requester, chat.id)),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
      const ids = answers.map(
        (answer) => (answer.body as { accessRequest: AccessRequest }).accessRequest.id,
      );
      expect(new Set(ids).size).toBe(1);
      const later = await requestAccess(requester, chat.id);
      expect(later.status).toBe(200);
      expect((later.body as { accessRequest: AccessRequest }).accessRequest.id).toBe(ids[0]);
      expect((await pendingRequests(owner, chat.id)).map((request) => request.id)).toEqual([
        ids[0],
      ]);
    });

    test('owner-only: others who can open get 403 FORBIDDEN; a request of another chat is 404', async () => {
      const owner = await newOwner('strict');
      const editor = await addMember(owner, 'helper');
      const requester = await addMember(owner, 'asker');
      const chat = await createChat(owner, { title: 'Strict' });
      await invite(owner, chat.id, [editor.userId], true);
      const other = await createChat(owner, { title: 'Other' });
      const otherRequest = (
        (await requestAccess(requester, other.id)).body as { accessRequest: AccessRequest }
      ).accessRequest;

      const forbidden: [string, string, unknown][] = [
        ['GET', `/ai-chat/conversations/${chat.id}/access-requests`, undefined],
        [
          'POST',
          `/ai-chat/conversations/${chat.id}/invites`,
          { userIds: [requester.userId], canEdit: true },
        ],
        ['PATCH', `/ai-chat/conversations/${chat.id}`, { access_type: 'everyone' }],
        ['DELETE', `/ai-chat/conversations/${chat.id}`, undefined],
        [
          'POST',
          `/ai-chat/conversations/${other.id}/access-requests/${otherRequest.id}/decline`,
          undefined,
        ],
      ];
      for (const [method, path, body] of forbidden) {
        const response = await call(editor, method, path, body);
        if (path.includes(other.id)) {
          expect({ path, status: response.status }).toEqual({ path, status: 403 });
          expect(response.body).toMatchObject({ error: 'access_denied' });
        } else {
          expect({ path, status: response.status }).toEqual({ path, status: 403 });
          expect(response.body).toEqual({ error: expect.any(String), code: 'FORBIDDEN' });
        }
      }
      expect((await openChat(owner, chat.id)).access_type).toBe('invited');

      for (const requestId of [otherRequest.id, randomUUID(), 'not-a-uuid']) {
        const wrongChat = await call(
          owner,
          'POST',
          `/ai-chat/conversations/${chat.id}/access-requests/${requestId}/grant`,
          { canEdit: true },
        );
        expect(wrongChat.status).toBe(404);
        expect(wrongChat.body).toEqual({ error: 'Access request not found', code: 'NOT_FOUND' });
      }
      expect((await pendingRequests(owner, other.id)).map((request) => request.id)).toEqual([
        otherRequest.id,
      ]);
    });
  });

  describe('invites and sharing', () => {
    test('invites: members only, private becomes invited, a second invite updates can_edit', async () => {
      const owner = await newOwner('inviter');
      const member = await addMember(owner, 'guest');
      const outsider = await newOwner('stranger');
      const chat = await createChat(owner, { title: 'Invites' });

      const refused = await call(owner, 'POST', `/ai-chat/conversations/${chat.id}/invites`, {
        userIds: [member.userId, outsider.userId],
        canEdit: true,
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [expect.objectContaining({ userIds: [outsider.userId] })],
      });
      expect((await openChat(owner, chat.id)).access_type).toBe('private');
      expect((await getChat(member, chat.id)).status).toBe(403);

      const first = await invite(owner, chat.id, [member.userId, owner.userId], false);
      expect(first).toEqual({
        participants: [{ user_id: member.userId, can_edit: false, created_at: expect.any(String) }],
      });
      expect(await openChat(owner, chat.id)).toMatchObject({ access_type: 'invited' });
      expect(await openChat(member, chat.id)).toMatchObject({ viewerCanEdit: false });

      const second = await invite(owner, chat.id, [member.userId], true);
      expect(second).toEqual({
        participants: [{ ...first.participants[0], can_edit: true }],
      });
      expect(await openChat(member, chat.id)).toMatchObject({ viewerCanEdit: true });
    });

    test('participants are listed to whoever can open the chat; the owner takes one out, one leaves', async () => {
      const owner = await newOwner('lister');
      const first = await addMember(owner, 'first-guest');
      const second = await addMember(owner, 'second-guest');
      const bystander = await addMember(owner, 'bystander');
      const chat = await createChat(owner, { title: 'Who is here' });
      await invite(owner, chat.id, [first.userId], true);
      await invite(owner, chat.id, [second.userId], false);
      const participantsPath = `/ai-chat/conversations/${chat.id}/participants`;
      const listed = (who: Person) => call(who, 'GET', participantsPath);

      const expected = {
        participants: [
          { user_id: first.userId, can_edit: true, created_at: expect.any(String) },
          { user_id: second.userId, can_edit: false, created_at: expect.any(String) },
        ],
      };
      expect((await listed(owner)).body).toEqual(expected);
      expect((await listed(second)).body).toEqual(expected);
      // A member who cannot open the chat cannot list who can.
      const denied = await listed(bystander);
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual(deniedBody(chat, owner.name, false));

      // Only the owner takes someone else out; anyone leaves.
      const notOwner = await call(second, 'DELETE', `${participantsPath}/${first.userId}`);
      expect(notOwner.status).toBe(403);
      expect(notOwner.body).toEqual({
        error: 'Only the owner can take someone else out of this chat',
        code: 'FORBIDDEN',
      });
      expect((await call(owner, 'DELETE', `${participantsPath}/${first.userId}`)).status).toBe(204);
      expect((await getChat(first, chat.id)).status).toBe(403);
      expect((await call(second, 'DELETE', `${participantsPath}/${second.userId}`)).status).toBe(
        204,
      );
      expect((await getChat(second, chat.id)).status).toBe(403);
      const again = await call(owner, 'DELETE', `${participantsPath}/${second.userId}`);
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ error: 'Participant not found', code: 'NOT_FOUND' });
      expect((await listed(owner)).body).toEqual({ participants: [] });
    });

    test('inviting only the owner changes nothing: 201, no participants, still private', async () => {
      const owner = await newOwner('self-inviter');
      const chat = await createChat(owner, { title: 'Just me' });
      expect(await invite(owner, chat.id, [owner.userId], true)).toEqual({ participants: [] });
      expect((await openChat(owner, chat.id)).access_type).toBe('private');
    });

    test('private hides the chat from participants; invited again brings them back', async () => {
      const owner = await newOwner('switcher');
      const member = await addMember(owner, 'participant');
      const chat = await createChat(owner, { title: 'Switch' });
      await invite(owner, chat.id, [member.userId], true);

      const toPrivate = await call(owner, 'PATCH', `/ai-chat/conversations/${chat.id}`, {
        access_type: 'private',
      });
      expect(toPrivate.status).toBe(200);
      expect((toPrivate.body as { conversation: Chat }).conversation.access_type).toBe('private');
      expect((await getChat(member, chat.id)).body).toEqual(deniedBody(chat, owner.name, false));

      await call(owner, 'PATCH', `/ai-chat/conversations/${chat.id}`, { access_type: 'invited' });
      expect(await openChat(member, chat.id)).toMatchObject({ viewerCanEdit: true });
    });

    test('PATCH: access_type is the owner’s; title and shared metadata need edit rights', async () => {
      const owner = await newOwner('patcher');
      const editor = await addMember(owner, 'writer');
      const reader = await addMember(owner, 'watcher');
      const chat = await createChat(owner, { title: 'Patched' });
      await invite(owner, chat.id, [editor.userId], true);
      await invite(owner, chat.id, [reader.userId], false);

      for (const person of [editor, reader]) {
        const response = await call(person, 'PATCH', `/ai-chat/conversations/${chat.id}`, {
          access_type: 'everyone',
        });
        expect(response.status).toBe(403);
        expect(response.body).toEqual({ error: expect.any(String), code: 'FORBIDDEN' });
      }
      for (const body of [
        { title: 'Renamed' },
        { is_archived: true },
        { metadata: { color: 'red' } },
      ]) {
        const response = await call(reader, 'PATCH', `/ai-chat/conversations/${chat.id}`, body);
        expect(response.status).toBe(403);
        expect(response.body).toEqual({ error: 'You cannot edit this chat', code: 'FORBIDDEN' });
      }
      const renamed = await call(editor, 'PATCH', `/ai-chat/conversations/${chat.id}`, {
        title: 'Renamed',
        metadata: { color: 'red' },
      });
      expect(renamed.status).toBe(200);
      expect((renamed.body as { conversation: Chat }).conversation).toMatchObject({
        title: 'Renamed',
        metadata: { color: 'red', starred: false },
        viewerCanEdit: true,
      });
      const opened = await openChat(owner, chat.id);
      expect(opened).toMatchObject({ title: 'Renamed', access_type: 'invited' });
      expect(opened.metadata).toEqual({ color: 'red', starred: false });
    });

    test('starred is per viewer: A stars, B sees no star; a read-only viewer may star', async () => {
      const a = await newOwner('starrer');
      const b = await addMember(a, 'onlooker');
      const chat = await createChat(a, {
        title: 'Pinned',
        access_type: 'everyone',
        metadata: { color: 'green' },
      });

      const starred = await call(a, 'PATCH', `/ai-chat/conversations/${chat.id}`, {
        metadata: { starred: true },
      });
      expect(starred.status).toBe(200);
      expect((starred.body as { conversation: Chat }).conversation.metadata).toEqual({
        color: 'green',
        starred: true,
      });
      expect((await openChat(a, chat.id)).metadata).toEqual({ color: 'green', starred: true });
      expect((await openChat(b, chat.id)).metadata).toEqual({ color: 'green', starred: false });

      const bStars = await call(b, 'PATCH', `/ai-chat/conversations/${chat.id}`, {
        metadata: { starred: true },
      });
      expect(bStars.status).toBe(200);
      const aUnstars = await call(a, 'PATCH', `/ai-chat/conversations/${chat.id}`, {
        metadata: { starred: false },
      });
      expect((aUnstars.body as { conversation: Chat }).conversation.metadata).toEqual({
        color: 'green',
        starred: false,
      });
      expect((await openChat(b, chat.id)).metadata).toEqual({ color: 'green', starred: true });

      const listFor = async (person: Person) => {
        const listed = await call(
          person,
          'GET',
          `/ai-chat/conversations?workspaceId=${a.workspaceId}`,
        );
        return (listed.body as { conversations: Chat[] }).conversations.find(
          (item) => item.id === chat.id,
        );
      };
      expect((await listFor(a))?.metadata).toEqual({ color: 'green', starred: false });
      expect((await listFor(b))?.metadata).toEqual({ color: 'green', starred: true });
    });

    test('delete: the owner only, soft, then the unknown id’s 404 everywhere', async () => {
      const owner = await newOwner('deleter');
      const editor = await addMember(owner, 'keeper');
      const chat = await createChat(owner, { title: 'Doomed', access_type: 'everyone' });
      await invite(owner, chat.id, [editor.userId], true);
      const refused = await call(editor, 'DELETE', `/ai-chat/conversations/${chat.id}`);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        error: 'Only the owner can delete this chat',
        code: 'FORBIDDEN',
      });

      expect((await call(owner, 'DELETE', `/ai-chat/conversations/${chat.id}`)).status).toBe(204);
      for (const person of [owner, editor]) {
        expect((await getChat(person, chat.id)).body).toEqual(CHAT_NOT_FOUND);
      }
      expect((await call(owner, 'DELETE', `/ai-chat/conversations/${chat.id}`)).status).toBe(404);
      const listed = await call(
        owner,
        'GET',
        `/ai-chat/conversations?workspaceId=${owner.workspaceId}`,
      );
      expect((listed.body as { conversations: Chat[] }).conversations).toEqual([]);
    });
  });

  describe('GET /ai-chat/conversations', () => {
    test('the chats the caller can open, newest activity first, paged, archived filtered', async () => {
      const owner = await newOwner('lister');
      const member = await addMember(owner, 'browser');
      const mine: Chat[] = [];
      for (let index = 0; index < 5; index += 1) {
        mine.push(await createChat(owner, { title: `chat ${index}` }));
      }
      const shared = await createChat(owner, { title: 'everyone', access_type: 'everyone' });
      const invited = await createChat(owner, { title: 'invited' });
      await invite(owner, invited.id, [member.userId], false);
      const notInvited = await createChat(owner, { title: 'not invited', access_type: 'invited' });
      const byActivity = (x: Chat, y: Chat) =>
        y.last_activity_at.localeCompare(x.last_activity_at) || y.id.localeCompare(x.id);
      const all = [...mine, shared, invited, notInvited].sort(byActivity);

      const listAll = await call(
        owner,
        'GET',
        `/ai-chat/conversations?workspaceId=${owner.workspaceId}`,
      );
      expect(listAll.status).toBe(200);
      const everything = listAll.body as { conversations: Chat[]; nextCursor: string | null };
      expect(everything.conversations.map((chat) => chat.id)).toEqual(all.map((chat) => chat.id));
      expect(everything.nextCursor).toBeNull();
      for (const chat of everything.conversations) {
        expect(ViewedConversation.strict().safeParse(chat).success).toBe(true);
      }

      const paged: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor === null ? '' : `&cursor=${cursor}`;
        const page = await call(
          owner,
          'GET',
          `/ai-chat/conversations?workspaceId=${owner.workspaceId}&limit=3${query}`,
        );
        expect(page.status).toBe(200);
        const body = page.body as { conversations: Chat[]; nextCursor: string | null };
        expect(body.conversations.length).toBeLessThanOrEqual(3);
        paged.push(...body.conversations.map((chat) => chat.id));
        cursor = body.nextCursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).toBe(3);
      expect(paged).toEqual(all.map((chat) => chat.id));

      const forMember = await call(
        member,
        'GET',
        `/ai-chat/conversations?workspaceId=${owner.workspaceId}`,
      );
      expect((forMember.body as { conversations: Chat[] }).conversations).toEqual(
        [shared, invited]
          .sort(byActivity)
          .map((chat) =>
            expect.objectContaining({ id: chat.id, viewerIsOwner: false, viewerCanEdit: false }),
          ),
      );

      const archived = mine[2] as Chat;
      const archiving = await call(owner, 'PATCH', `/ai-chat/conversations/${archived.id}`, {
        is_archived: true,
      });
      expect(archiving.status).toBe(200);
      const listIds = async (query: string) => {
        const listed = await call(
          owner,
          'GET',
          `/ai-chat/conversations?workspaceId=${owner.workspaceId}${query}`,
        );
        expect(listed.status).toBe(200);
        return (listed.body as { conversations: Chat[] }).conversations.map((chat) => chat.id);
      };
      expect(await listIds('')).toEqual(
        all.filter((chat) => chat.id !== archived.id).map((chat) => chat.id),
      );
      expect(await listIds('&archived=false')).toEqual(await listIds(''));
      expect(await listIds('&archived=true')).toEqual([archived.id]);
      expect(await listIds('&archived=all')).toEqual(all.map((chat) => chat.id));
    });

    test('a non-member gets 404, bad cursors and limits 400', async () => {
      const owner = await newOwner('guarded');
      const outsider = await newOwner('peeker');
      await createChat(owner, { access_type: 'everyone' });
      const peek = await call(
        outsider,
        'GET',
        `/ai-chat/conversations?workspaceId=${owner.workspaceId}`,
      );
      expect(peek.status).toBe(404);
      expect(peek.body).toEqual({ error: 'Workspace not found', code: 'NOT_FOUND' });

      const foreignCursor = Buffer.from('notes:12', 'utf8').toString('base64url');
      for (const [query, code] of [
        ['cursor=garbage', 'INVALID_CURSOR'],
        [`cursor=${foreignCursor}`, 'INVALID_CURSOR'],
        ['limit=0', 'VALIDATION_ERROR'],
        ['limit=101', 'VALIDATION_ERROR'],
        ['archived=maybe', 'VALIDATION_ERROR'],
      ]) {
        const refused = await call(
          owner,
          'GET',
          `/ai-chat/conversations?workspaceId=${owner.workspaceId}&${query}`,
        );
        expect({ query, status: refused.status }).toEqual({ query, status: 400 });
        expect(refused.body).toMatchObject({ code });
      }
    });
  });

  test('a member of workspace A gets 403 or 404, never data, on every route with a chat of B', async () => {
    const a = await newOwner('intruder');
    const b = await newOwner('victim');
    const bMember = await addMember(b, 'requester');
    const chat = await createChat(b, {
      title: 'Confidential',
      access_type: 'everyone',
      metadata: { secret: 's3cret' },
    });
    const closed = await createChat(b, { title: 'Closed' });
    const bRequest = (
      (await requestAccess(bMember, closed.id)).body as { accessRequest: AccessRequest }
    ).accessRequest;
    const base = `/ai-chat/conversations/${chat.id}`;
    const routes: [string, string, unknown][] = [
      ['GET', base, undefined],
      ['PATCH', base, { title: 'Mine now', access_type: 'everyone' }],
      ['PATCH', base, { metadata: { starred: true } }],
      ['DELETE', base, undefined],
      ['POST', `${base}/invites`, { userIds: [a.userId], canEdit: true }],
      ['POST', `${base}/access-requests`, undefined],
      ['GET', `${base}/access-requests`, undefined],
      ['POST', `${base}/access-requests/${bRequest.id}/grant`, { canEdit: true }],
      ['POST', `${base}/access-requests/${bRequest.id}/decline`, undefined],
      ['GET', `${base}/messages`, undefined],
      ['POST', `${base}/messages`, { content: 'hello?' }],
      ['GET', `${base}/participants`, undefined],
      ['DELETE', `${base}/participants/${bMember.userId}`, undefined],
      ['DELETE', `${base}/participants/${a.userId}`, undefined],
    ];
    for (const [method, path, body] of routes) {
      const response = await call(a, method, path, body);
      // A caller outside the workspace cannot tell the chat from an unknown id: always the 404.
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
      expect(response.body).toEqual(CHAT_NOT_FOUND);
      expect(response.text).not.toContain('Confidential');
      expect(response.text).not.toContain('s3cret');
    }
    const untouched = await openChat(b, chat.id);
    expect(untouched).toMatchObject({ title: 'Confidential', access_type: 'everyone' });
    expect(untouched.metadata).toEqual({ secret: 's3cret', starred: false });
    expect(await pendingRequests(b, closed.id)).toEqual([bRequest]);
    expect((await getChat(b, closed.id)).status).toBe(200);
  });
});
