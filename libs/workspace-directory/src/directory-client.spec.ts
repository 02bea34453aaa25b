import { randomUUID } from 'node:crypto';
import { DIRECTORY_BUCKET, directoryKey, type DirectoryWorkspace } from '@wap/contracts';
import { encodeJson, type KvBucket } from '@wap/platform';
import { testLogger, testRuntimes, type RuntimeUnderTest } from '@wap/testing';
import { createDirectoryClient, type DirectoryClient } from './directory-client';

const runtimes = testRuntimes('workspace-directory-test');

/** Waits for a watched change to arrive; fails after 5 s. */
async function eventually(check: () => void): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe.each(runtimes)('directory client on %s', (_runtime, startRuntime) => {
  let runtime: RuntimeUnderTest;
  let bucket: KvBucket;
  const clients: DirectoryClient[] = [];

  beforeAll(async () => {
    runtime = await startRuntime();
    bucket = await runtime.platform.kv.bucket(DIRECTORY_BUCKET);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.stop()));
    await runtime?.cleanup();
  });

  async function startClient(): Promise<DirectoryClient> {
    const client = await createDirectoryClient({ kv: runtime.platform.kv, logger: testLogger() });
    clients.push(client);
    return client;
  }

  function newWorkspace(members: DirectoryWorkspace['members']): DirectoryWorkspace {
    return { id: randomUUID(), name: 'Acme', deleted: false, members };
  }

  async function publish(key: string, value: unknown): Promise<void> {
    await bucket.put(key, encodeJson(value));
  }

  test('ready() resolves with the entries already in the bucket', async () => {
    const owner = randomUUID();
    const member = randomUUID();
    const workspace = newWorkspace({ [owner]: 'owner', [member]: 'member' });
    await publish(directoryKey(workspace.id), workspace);

    const client = await startClient();
    expect(client.workspace(workspace.id)).toEqual(workspace);
    expect(client.roleOf(workspace.id, owner)).toBe('owner');
    expect(client.roleOf(workspace.id, member)).toBe('member');
    expect(client.isMember(workspace.id, member)).toBe(true);
    expect(client.isMember(workspace.id, randomUUID())).toBe(false);
    expect(client.isDeleted(workspace.id)).toBe(false);
  });

  test('follows changes: new members, then the soft delete', async () => {
    const client = await startClient();
    const owner = randomUUID();
    const member = randomUUID();
    const workspace = newWorkspace({ [owner]: 'owner' });
    expect(client.workspace(workspace.id)).toBeUndefined();

    await publish(directoryKey(workspace.id), workspace);
    await eventually(() => expect(client.roleOf(workspace.id, owner)).toBe('owner'));
    expect(client.isMember(workspace.id, member)).toBe(false);

    await publish(directoryKey(workspace.id), {
      ...workspace,
      members: { [owner]: 'owner', [member]: 'member' },
    });
    await eventually(() => expect(client.isMember(workspace.id, member)).toBe(true));

    await publish(directoryKey(workspace.id), {
      ...workspace,
      deleted: true,
      members: { [owner]: 'owner', [member]: 'member' },
    });
    await eventually(() => expect(client.isDeleted(workspace.id)).toBe(true));
    expect(client.isMember(workspace.id, owner)).toBe(false);
    expect(client.roleOf(workspace.id, owner)).toBeUndefined();
    expect(client.workspace(workspace.id)).toMatchObject({ id: workspace.id, deleted: true });
  });

  test('a removed key removes the workspace', async () => {
    const client = await startClient();
    const owner = randomUUID();
    const workspace = newWorkspace({ [owner]: 'owner' });
    await publish(directoryKey(workspace.id), workspace);
    await eventually(() => expect(client.isMember(workspace.id, owner)).toBe(true));

    await bucket.delete(directoryKey(workspace.id));
    await eventually(() => expect(client.workspace(workspace.id)).toBeUndefined());
    expect(client.isDeleted(workspace.id)).toBe(false);
  });

  test('a value that does not parse keeps the last good one', async () => {
    const client = await startClient();
    const owner = randomUUID();
    const workspace = newWorkspace({ [owner]: 'owner' });
    const marker = newWorkspace({ [owner]: 'owner' });
    await publish(directoryKey(workspace.id), workspace);
    // Known first: the bucket keeps one value per key, so a watcher that is behind may skip a
    // value superseded before it was delivered.
    await eventually(() => expect(client.workspace(workspace.id)).toEqual(workspace));
    await bucket.put(directoryKey(workspace.id), new TextEncoder().encode('{not json'));
    await publish(directoryKey(workspace.id), { id: workspace.id, members: 'everyone' });
    // Changes arrive in order: once the marker is seen, the bad values were handled too.
    await publish(directoryKey(marker.id), marker);
    await eventually(() => expect(client.workspace(marker.id)).toEqual(marker));
    expect(client.workspace(workspace.id)).toEqual(workspace);
  });

  test('keys outside the workspace prefix are ignored', async () => {
    const client = await startClient();
    const owner = randomUUID();
    const stray = newWorkspace({ [owner]: 'owner' });
    const marker = newWorkspace({ [owner]: 'owner' });
    await publish(`elsewhere.${stray.id}`, stray);
    await publish(directoryKey(marker.id), marker);
    await eventually(() => expect(client.workspace(marker.id)).toEqual(marker));
    expect(client.workspace(stray.id)).toBeUndefined();
  });

  test('inherited object properties are not members', async () => {
    const client = await startClient();
    const workspace = newWorkspace({ [randomUUID()]: 'owner' });
    await publish(directoryKey(workspace.id), workspace);
    await eventually(() => expect(client.workspace(workspace.id)).toEqual(workspace));
    expect(client.isMember(workspace.id, 'constructor')).toBe(false);
    expect(client.roleOf(workspace.id, 'toString')).toBeUndefined();
  });

  test('after stop() the last known state stays and changes no longer arrive', async () => {
    const client = await startClient();
    const watching = await startClient();
    const owner = randomUUID();
    const workspace = newWorkspace({ [owner]: 'owner' });
    await publish(directoryKey(workspace.id), workspace);
    await eventually(() => expect(client.isMember(workspace.id, owner)).toBe(true));

    await client.stop();
    await publish(directoryKey(workspace.id), { ...workspace, deleted: true });
    await eventually(() => expect(watching.isDeleted(workspace.id)).toBe(true));
    expect(client.isDeleted(workspace.id)).toBe(false);
    expect(client.isMember(workspace.id, owner)).toBe(true);
  });

  test('confirmed lookups read KV when the local copy has not seen a write yet', async () => {
    const client = await startClient();
    // A stopped watch stands in for one that lags: only the read-through can see the new entry.
    await client.stop();
    const owner = randomUUID();
    const workspace = newWorkspace({ [owner]: 'owner' });
    await publish(directoryKey(workspace.id), workspace);

    expect(client.roleOf(workspace.id, owner)).toBeUndefined();
    expect(await client.confirmedRoleOf(workspace.id, owner)).toBe('owner');
    expect(await client.confirmedRoleOf(workspace.id, randomUUID())).toBeUndefined();
    expect(await client.confirmedWorkspace(workspace.id)).toEqual(workspace);
    expect(await client.confirmedWorkspace(randomUUID())).toBeUndefined();
  });
});
