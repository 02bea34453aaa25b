import {
  http,
  newWorkspaceOwner,
  RUNTIMES,
  startStack,
  uniqueEmail,
  type TestStack,
} from './stack';

describe.each(RUNTIMES)("a workspace's lists on the %s runtime", (runtime) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(runtime);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test.each([
    ['tables', '/tables', (index: number) => ({ name: `Table ${index}` }), 'table'],
    ['tasks', '/tasks', (index: number) => ({ title: `Task ${index}` }), 'task'],
    ['contacts', '/contacts', (index: number) => ({ name: `Contact ${index}` }), 'contact'],
  ] as const)(
    'GET %s?workspaceId= pages newest first and shows members only',
    async (list, path, bodyOf, key) => {
      const owner = await newWorkspaceOwner(stack, `list-${list}`);
      const created: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        const response = await http(`${stack.url}${path}`, {
          method: 'POST',
          cookie: owner.cookie,
          body: { workspaceId: owner.workspaceId, ...bodyOf(index) },
        });
        expect(response.status).toBe(201);
        created.push((response.body as Record<string, { id: string }>)[key]?.id ?? '');
      }
      const pages: Array<Array<{ id: string; created_at: string }>> = [];
      let cursor: string | null = null;
      do {
        const query = `workspaceId=${owner.workspaceId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await http(`${stack.url}${path}?${query}`, { cookie: owner.cookie });
        expect(page.status).toBe(200);
        const body = page.body as Record<string, unknown> & { nextCursor: string | null };
        pages.push(body[list] as Array<{ id: string; created_at: string }>);
        cursor = body.nextCursor;
      } while (cursor);
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      const listed = pages.flat();
      expect(listed.map((item) => item.id).sort()).toEqual([...created].sort());
      // Newest first; two made in one millisecond are ordered by id.
      const expected = [...listed].sort(
        (a, b) => descending(a.created_at, b.created_at) || descending(a.id, b.id),
      );
      expect(listed).toEqual(expected);

      const outsider = await newWorkspaceOwner(stack, `outsider-${list}`);
      const refused = await http(`${stack.url}${path}?workspaceId=${owner.workspaceId}`, {
        cookie: outsider.cookie,
      });
      expect(refused.status).toBe(404);
      expect(refused.text).not.toContain('Table 0');
      const badCursor = await http(
        `${stack.url}${path}?workspaceId=${owner.workspaceId}&cursor=bm90LWEtY3Vyc29y`,
        { cookie: owner.cookie },
      );
      expect(badCursor.status).toBe(400);
      expect(badCursor.body).toEqual({ error: 'Invalid cursor', code: 'INVALID_CURSOR' });
      const missing = await http(`${stack.url}${path}`, { cookie: owner.cookie });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    },
  );

  test('GET /workspaces/{id}/members lists owners first, then by name, to members only', async () => {
    const owner = await newWorkspaceOwner(stack, 'members-list');
    for (const name of ['zoe', 'adam']) {
      const added = await http(`${stack.url}/workspaces/${owner.workspaceId}/members`, {
        method: 'POST',
        cookie: owner.cookie,
        body: { email: uniqueEmail(name), role: 'member' },
      });
      expect(added.status).toBe(201);
    }
    const listed = await http(`${stack.url}/workspaces/${owner.workspaceId}/members`, {
      cookie: owner.cookie,
    });
    expect(listed.status).toBe(200);
    const members = (listed.body as { members: Array<Record<string, unknown>> }).members;
    expect(members.map((member) => member['role'])).toEqual(['owner', 'member', 'member']);
    expect(members[1]?.['name']).toMatch(/^adam-/);
    expect(members[2]?.['name']).toMatch(/^zoe-/);
    expect(Object.keys(members[0] ?? {}).sort()).toEqual(
      ['email', 'joined_at', 'name', 'role', 'user_id', 'workspace_id'].sort(),
    );
    const outsider = await newWorkspaceOwner(stack, 'members-outsider');
    const refused = await http(`${stack.url}/workspaces/${owner.workspaceId}/members`, {
      cookie: outsider.cookie,
    });
    expect(refused.status).toBe(404);
  });
});

/** Byte order, as PostgreSQL compares timestamps in ISO form and uuids, reversed. */
function descending(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}
