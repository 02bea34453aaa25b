import {
  RUNTIMES,
  http,
  newWorkspaceOwner,
  signedInPerson,
  startStack,
  uniqueEmail,
  type TestStack,
  type WorkspaceOwner,
} from './stack';

interface ListedKey {
  id: string;
  name: string;
  prefix: string;
  created_by_name: string;
}

/**
 * Workspace API keys are managed where they are made (spec: "generated in workspace settings,
 * section API keys"): owners list them, never seeing a key again, and revoke them; a revoked
 * key is refused by the very next request.
 */
describe.each(RUNTIMES)('managing workspace API keys on the %s runtime', (runtime) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(runtime);
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function createKey(owner: WorkspaceOwner, name: string) {
    const created = await http(`${stack.url}/workspaces/${owner.workspaceId}/api-keys`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { name },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; key: string };
  }

  const listKeys = (workspaceId: string, cookie: string) =>
    http(`${stack.url}/workspaces/${workspaceId}/api-keys`, { cookie });

  const revokeKey = (workspaceId: string, keyId: string, cookie: string) =>
    http(`${stack.url}/workspaces/${workspaceId}/api-keys/${keyId}`, { method: 'DELETE', cookie });

  /** A tools/list at the platform's MCP endpoint with the key, as an MCP client sends it. */
  const useKey = (key: string) =>
    http(`${stack.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });

  test('owners list the keys in use, newest first, by name and prefix only; a revoked key fails its next request', async () => {
    const owner = await newWorkspaceOwner(stack, 'keys');
    const first = await createKey(owner, 'Claude Desktop');
    const second = await createKey(owner, 'CI');

    const listed = await listKeys(owner.workspaceId, owner.cookie);
    expect(listed.status).toBe(200);
    const keys = (listed.body as { api_keys: ListedKey[] }).api_keys;
    expect(keys.map((key) => key.id)).toEqual([second.id, first.id]);
    expect(keys[1]).toMatchObject({ name: 'Claude Desktop' });
    expect(first.key.startsWith(keys[1]?.prefix ?? '-')).toBe(true);
    // Neither the key nor its hash is ever answered again.
    expect(listed.text).not.toContain(first.key);
    expect(listed.text).not.toContain(first.key.slice(keys[1]?.prefix.length ?? 0));

    expect((await useKey(first.key)).status).toBe(200);
    expect((await revokeKey(owner.workspaceId, first.id, owner.cookie)).status).toBe(204);
    const refused = await useKey(first.key);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'Invalid API key', code: 'UNAUTHORIZED' });
    expect((await useKey(second.key)).status).toBe(200);

    const after = await listKeys(owner.workspaceId, owner.cookie);
    expect((after.body as { api_keys: ListedKey[] }).api_keys.map((key) => key.id)).toEqual([
      second.id,
    ]);
    const again = await revokeKey(owner.workspaceId, first.id, owner.cookie);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'API key not found', code: 'NOT_FOUND' });
  });

  test('members may neither list nor revoke; another workspace’s owner finds neither the workspace nor its keys', async () => {
    const owner = await newWorkspaceOwner(stack, 'keys-owner');
    const key = await createKey(owner, 'Shared');
    const memberEmail = uniqueEmail('keys-member');
    const member = await signedInPerson(stack, 'keys-member', memberEmail);
    const added = await http(`${stack.url}/workspaces/${owner.workspaceId}/members`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { email: memberEmail, role: 'member' },
    });
    expect(added.status).toBe(201);
    const forbidden = {
      error: 'Only workspace owners can manage API keys',
      code: 'FORBIDDEN',
    };
    const memberList = await listKeys(owner.workspaceId, member.cookie);
    expect(memberList.status).toBe(403);
    expect(memberList.body).toEqual(forbidden);
    const memberRevoke = await revokeKey(owner.workspaceId, key.id, member.cookie);
    expect(memberRevoke.status).toBe(403);

    const stranger = await newWorkspaceOwner(stack, 'keys-stranger');
    expect((await listKeys(owner.workspaceId, stranger.cookie)).status).toBe(404);
    expect((await revokeKey(owner.workspaceId, key.id, stranger.cookie)).status).toBe(404);
    // Their own workspace in the path does not reach a key of another workspace.
    const across = await revokeKey(stranger.workspaceId, key.id, stranger.cookie);
    expect(across.status).toBe(404);
    expect(across.body).toEqual({ error: 'API key not found', code: 'NOT_FOUND' });
    expect((await useKey(key.key)).status).toBe(200);
  });
});
