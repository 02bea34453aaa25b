import {
  addWorkspaceMember,
  RUNTIMES,
  http,
  newWorkspaceOwner,
  startStack,
  type Person,
  type TestStack,
  type WorkspaceOwner,
} from './stack';

const LAST_OWNER = { error: 'A workspace keeps at least one owner', code: 'CONFLICT' };

/**
 * Members are managed after they are added: owners change roles and remove people, a member
 * leaves, and a workspace never loses its last owner, not even to two owners demoting each
 * other at the same moment.
 */
describe.each(RUNTIMES)('managing members on the %s runtime', (runtime) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(runtime);
  });
  afterAll(async () => {
    await stack.stop();
  });

  const addMember = (owner: WorkspaceOwner, label: string, role: 'owner' | 'member') =>
    addWorkspaceMember(stack, owner, label, role);

  const setRole = (workspaceId: string, userId: string, role: string, who: { cookie: string }) =>
    http(`${stack.url}/workspaces/${workspaceId}/members/${userId}`, {
      method: 'PATCH',
      cookie: who.cookie,
      body: { role },
    });

  const remove = (workspaceId: string, userId: string, who: { cookie: string }) =>
    http(`${stack.url}/workspaces/${workspaceId}/members/${userId}`, {
      method: 'DELETE',
      cookie: who.cookie,
    });

  async function roleIn(workspaceId: string, person: Person): Promise<string | undefined> {
    const me = await http(`${stack.url}/me`, { cookie: person.cookie });
    return (me.body as { workspaces: { id: string; role: string }[] }).workspaces.find(
      (workspace) => workspace.id === workspaceId,
    )?.role;
  }

  test('an owner promotes and removes a member; the member then sees nothing of the workspace', async () => {
    const owner = await newWorkspaceOwner(stack, 'members-owner');
    const member = await addMember(owner, 'members-member', 'member');

    const promoted = await setRole(owner.workspaceId, member.userId, 'owner', owner);
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ member: { user_id: member.userId, role: 'owner' } });
    expect(await roleIn(owner.workspaceId, member)).toBe('owner');
    const demoted = await setRole(owner.workspaceId, member.userId, 'member', owner);
    expect(demoted.status).toBe(200);

    expect((await remove(owner.workspaceId, member.userId, owner)).status).toBe(204);
    expect(await roleIn(owner.workspaceId, member)).toBeUndefined();
    const members = await http(`${stack.url}/workspaces/${owner.workspaceId}/members`, {
      cookie: member.cookie,
    });
    expect(members.status).toBe(404);
    const again = await remove(owner.workspaceId, member.userId, owner);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Member not found', code: 'NOT_FOUND' });
  });

  test('a member changes no roles and removes no one, but may leave; outsiders find nothing', async () => {
    const owner = await newWorkspaceOwner(stack, 'leave-owner');
    const member = await addMember(owner, 'leave-member', 'member');
    const other = await addMember(owner, 'leave-other', 'member');

    const promotion = await setRole(owner.workspaceId, member.userId, 'owner', member);
    expect(promotion.status).toBe(403);
    expect(promotion.body).toEqual({
      error: 'Only workspace owners can change roles',
      code: 'FORBIDDEN',
    });
    const removal = await remove(owner.workspaceId, other.userId, member);
    expect(removal.status).toBe(403);

    const stranger = await newWorkspaceOwner(stack, 'leave-stranger');
    expect((await setRole(owner.workspaceId, member.userId, 'member', stranger)).status).toBe(404);
    expect((await remove(owner.workspaceId, member.userId, stranger)).status).toBe(404);
    // Their own workspace in the path does not reach a member of another workspace.
    const across = await remove(stranger.workspaceId, member.userId, stranger);
    expect(across.status).toBe(404);

    expect((await remove(owner.workspaceId, member.userId, member)).status).toBe(204);
    expect(await roleIn(owner.workspaceId, member)).toBeUndefined();
  });

  test('the last owner can be neither demoted nor removed, not even by leaving', async () => {
    const owner = await newWorkspaceOwner(stack, 'last-owner');
    const me = await http(`${stack.url}/me`, { cookie: owner.cookie });
    const ownerId = (me.body as { user: { id: string } }).user.id;
    const demoted = await setRole(owner.workspaceId, ownerId, 'member', owner);
    expect(demoted.status).toBe(409);
    expect(demoted.body).toEqual(LAST_OWNER);
    const left = await remove(owner.workspaceId, ownerId, owner);
    expect(left.status).toBe(409);
    expect(left.body).toEqual(LAST_OWNER);
  });

  test('two owners demoting each other at once leave exactly one owner', async () => {
    const first = await newWorkspaceOwner(stack, 'race-first');
    const firstId = (
      (await http(`${stack.url}/me`, { cookie: first.cookie })).body as { user: { id: string } }
    ).user.id;
    const second = await addMember(first, 'race-second', 'owner');
    const answers = await Promise.all([
      setRole(first.workspaceId, second.userId, 'member', first),
      setRole(first.workspaceId, firstId, 'member', second),
    ]);
    // One wins; the other finds itself no longer an owner (403) or the last one (409).
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const listed = await http(`${stack.url}/workspaces/${first.workspaceId}/members`, {
      cookie: first.cookie,
    });
    const roles = (listed.body as { members: { role: string }[] }).members.map((m) => m.role);
    expect(roles.filter((role) => role === 'owner')).toHaveLength(1);
  });
});
