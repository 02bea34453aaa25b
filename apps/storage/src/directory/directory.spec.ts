import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { z } from 'zod';
import { hashApiKey } from '@wap/auth';
import {
  DIRECTORY_BUCKET,
  DirectoryWorkspace,
  directoryKey,
  type Actor,
  type MeResponse,
  BUS_APIS,
} from '@wap/contracts';
import { decodeJson, type KvBucket, type Platform } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';
import { asBusPrincipal, testLogger, uniqueName } from '@wap/testing';
import { apiKeys, users } from '../db/schema';
import { startStorageService, type StorageService } from '../service';
import {
  CALL_TIMEOUT_MS,
  callDirectoryRoute,
  failureOf,
  runtimes,
  signIn,
  type RuntimeUnderTest,
} from '../testing/storage-harness';
import type { DirectoryOperation } from './handlers';

const NOT_FOUND = { status: 404, code: 'NOT_FOUND', message: 'Workspace not found' };

describe.each(runtimes)('storage directory on %s', (_runtime, startRuntime) => {
  let runtime: RuntimeUnderTest;
  let platform: Platform;
  let mcpRegistry: Platform;
  let service: StorageService;
  let bucket: KvBucket;

  beforeAll(async () => {
    runtime = await startRuntime();
    // The spec asks as the gateway does; storage serves behind its own trust layer.
    platform = await asBusPrincipal(runtime.platform, 'gateway');
    mcpRegistry = await asBusPrincipal(runtime.platform, 'mcp-registry');
    service = await startStorageService({
      platform: await asBusPrincipal(runtime.platform, 'storage'),
      logger: testLogger(),
    });
    bucket = await platform.kv.bucket(DIRECTORY_BUCKET);
  });

  afterAll(async () => {
    await service?.stop();
    await runtime?.cleanup();
  });

  function newIdentity(label = 'user') {
    const subject = uniqueName(label);
    return { subject, email: `${subject}@example.com`, name: `Name of ${subject}` };
  }

  const newUser = (label?: string) => signIn(platform, newIdentity(label));

  async function createWorkspace(owner: Actor, name = 'Acme'): Promise<string> {
    const reply = await callDirectoryRoute(platform, 'create_workspace', owner, { body: { name } });
    return (reply.body as { workspace: { id: string } }).workspace.id;
  }

  async function addMember(
    owner: Actor,
    workspaceId: string,
    member: Actor,
    role: 'owner' | 'member' = 'member',
  ) {
    return callDirectoryRoute(platform, 'add_member', owner, {
      params: { workspaceId },
      body: { email: member.email, role },
    });
  }

  async function me(actor: Actor) {
    const reply = await callDirectoryRoute(platform, 'get_me', actor);
    return reply.body as MeResponse;
  }

  async function directoryEntry(workspaceId: string): Promise<DirectoryWorkspace | null> {
    const entry = await bucket.get(directoryKey(workspaceId));
    return entry ? DirectoryWorkspace.parse(decodeJson(entry.value)) : null;
  }

  const firstWorkspace = (userId: string) =>
    callApi(
      mcpRegistry.bus,
      BUS_APIS.firstWorkspace,
      { userId },
      {
        timeoutMs: CALL_TIMEOUT_MS,
      },
    );

  const verifyApiKey = (key: string) =>
    callApi(
      platform.bus,
      BUS_APIS.verifyApiKey,
      { key },
      {
        timeoutMs: CALL_TIMEOUT_MS,
      },
    );

  async function createApiKey(actor: Actor, workspaceId: string, name = 'CI') {
    const reply = await callDirectoryRoute(platform, 'create_api_key', actor, {
      params: { workspaceId },
      body: { name },
    });
    return { status: reply.status, ...(reply.body as { id: string; name: string; key: string }) };
  }

  describe('ensure_user', () => {
    test('one subject is one user; a later session refreshes email and name', async () => {
      const identity = newIdentity();
      const first = await signIn(platform, identity);
      const again = await signIn(platform, {
        ...identity,
        email: `Renamed.${identity.email.toUpperCase()}`,
        name: 'New Name',
      });
      expect(again.userId).toBe(first.userId);
      expect((await me(first)).user).toEqual({
        id: first.userId,
        email: `renamed.${identity.email}`,
        name: 'New Name',
      });
    });

    test('concurrent first requests of one subject get one user', async () => {
      const identity = newIdentity();
      const actors = await Promise.all(Array.from({ length: 8 }, () => signIn(platform, identity)));
      expect(new Set(actors.map((actor) => actor.userId)).size).toBe(1);
      const rows = await platform.sql.db
        .select({ id: users.id })
        .from(users)
        .where(eq(users.subject, identity.subject));
      expect(rows).toHaveLength(1);
    });

    test('stores the email lower-cased', async () => {
      const identity = newIdentity();
      const actor = await signIn(platform, { ...identity, email: identity.email.toUpperCase() });
      expect((await me(actor)).user.email).toBe(identity.email);
    });

    test('a user added by email before signing in keeps their id and membership', async () => {
      const owner = await newUser('owner');
      const workspaceId = await createWorkspace(owner);
      const invited = newIdentity('invited');
      const added = await callDirectoryRoute(platform, 'add_member', owner, {
        params: { workspaceId },
        body: { email: invited.email.toUpperCase(), role: 'member' },
      });
      const member = (added.body as { member: { user_id: string; email: string; name: string } })
        .member;
      expect(member.email).toBe(invited.email);
      expect(member.name).toBe(invited.subject);

      const actor = await signIn(platform, invited);
      expect(actor.userId).toBe(member.user_id);
      const profile = await me(actor);
      expect(profile.user).toEqual({
        id: member.user_id,
        email: invited.email,
        name: invited.name,
      });
      expect(profile.workspaces.map((workspace) => workspace.id)).toEqual([workspaceId]);
    });

    test('an invalid request is a VALIDATION_ERROR', async () => {
      const failure = await failureOf(
        callApi(
          platform.bus,
          // A payload the subject's request schema refuses, sent past the types on purpose.
          { ...BUS_APIS.ensureUser, request: z.unknown() },
          { email: 'x' },
          {
            timeoutMs: CALL_TIMEOUT_MS,
          },
        ),
      );
      expect(failure).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    });
  });

  describe('GET /me', () => {
    test('lists live workspaces with the role, first joined first', async () => {
      const actor = await newUser();
      const other = await newUser('other');
      const first = await createWorkspace(actor, 'First');
      const joined = await createWorkspace(other, 'Joined');
      const deleted = await createWorkspace(actor, 'Deleted');
      await addMember(other, joined, actor);
      await callDirectoryRoute(platform, 'delete_workspace', actor, {
        params: { workspaceId: deleted },
      });

      const profile = await me(actor);
      expect(profile.user).toEqual({ id: actor.userId, email: actor.email, name: actor.name });
      expect(profile.workspaces).toEqual([
        { id: first, name: 'First', role: 'owner', joined_at: expect.any(String) },
        { id: joined, name: 'Joined', role: 'member', joined_at: expect.any(String) },
      ]);
      const [firstJoined, secondJoined] = profile.workspaces.map((w) => Date.parse(w.joined_at));
      expect(firstJoined).toBeLessThanOrEqual(secondJoined ?? Number.NaN);
    });

    test('platform_admin is the session’s: a kept answer never lends it to another session', async () => {
      const actor = await newUser();
      expect((await me({ ...actor, platformAdmin: true })).platform_admin).toBe(true);
      // The same user's answer is kept now; a session without the claim still reads false.
      expect((await me(actor)).platform_admin).toBe(false);
      expect((await me({ ...actor, platformAdmin: true })).platform_admin).toBe(true);
    });

    test('an answer kept from an earlier read follows every change that touches it', async () => {
      const identity = newIdentity();
      const actor = await signIn(platform, identity);
      const owner = await newUser('owner');
      const theirs = await createWorkspace(owner, 'Theirs');
      const ids = async () => (await me(actor)).workspaces.map((workspace) => workspace.id);
      expect(await ids()).toEqual([]);

      const own = await createWorkspace(actor, 'Own');
      expect(await ids()).toEqual([own]);

      await addMember(owner, theirs, actor);
      expect(await ids()).toEqual([own, theirs]);

      await callDirectoryRoute(platform, 'delete_workspace', owner, {
        params: { workspaceId: theirs },
      });
      expect(await ids()).toEqual([own]);

      await callDirectoryRoute(platform, 'update_preferences', actor, {
        body: { approval_tasks_email: false },
      });
      expect((await me(actor)).preferences).toEqual({ approval_tasks_email: false });

      await signIn(platform, { ...identity, name: 'Renamed' });
      expect((await me(actor)).user.name).toBe('Renamed');
    });

    test('a request without an actor is UNAUTHORIZED', async () => {
      expect(await failureOf(callDirectoryRoute(platform, 'get_me', null))).toMatchObject({
        status: 401,
        code: 'UNAUTHORIZED',
      });
    });
  });

  describe('POST /workspaces', () => {
    test('201 with the workspace; the caller becomes its owner', async () => {
      const actor = await newUser();
      const reply = await callDirectoryRoute(platform, 'create_workspace', actor, {
        body: { name: 'Acme' },
      });
      expect(reply.status).toBe(201);
      const { workspace } = reply.body as {
        workspace: { id: string; name: string; created_at: string };
      };
      expect(workspace).toEqual({
        id: expect.any(String),
        name: 'Acme',
        created_at: expect.any(String),
      });
      expect(new Date(workspace.created_at).toISOString()).toBe(workspace.created_at);
      expect((await me(actor)).workspaces).toEqual([
        { id: workspace.id, name: 'Acme', role: 'owner', joined_at: workspace.created_at },
      ]);
    });

    test('an empty name is a VALIDATION_ERROR', async () => {
      const actor = await newUser();
      const failure = await failureOf(
        callDirectoryRoute(platform, 'create_workspace', actor, { body: { name: '  ' } }),
      );
      expect(failure).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    });
  });

  describe('POST /workspaces/:id/members', () => {
    test('an owner adds an existing user by email (any case): 201 with the member', async () => {
      const owner = await newUser('owner');
      const member = await newUser('member');
      const workspaceId = await createWorkspace(owner);
      const reply = await callDirectoryRoute(platform, 'add_member', owner, {
        params: { workspaceId },
        body: { email: member.email.toUpperCase(), role: 'member' },
      });
      expect(reply.status).toBe(201);
      expect(reply.body).toEqual({
        member: {
          user_id: member.userId,
          workspace_id: workspaceId,
          email: member.email,
          name: member.name,
          role: 'member',
          joined_at: expect.any(String),
        },
      });
      expect((await me(member)).workspaces).toEqual([
        expect.objectContaining({ id: workspaceId, role: 'member' }),
      ]);
    });

    test('an unknown email creates the user', async () => {
      const owner = await newUser('owner');
      const workspaceId = await createWorkspace(owner);
      const email = `${uniqueName('new')}@example.com`;
      const reply = await callDirectoryRoute(platform, 'add_member', owner, {
        params: { workspaceId },
        body: { email, role: 'owner' },
      });
      expect(reply.status).toBe(201);
      const rows = await platform.sql.db.select().from(users).where(eq(users.email, email));
      expect(rows).toEqual([expect.objectContaining({ subject: `email:${email}` })]);
    });

    test('a member who is not an owner gets 403', async () => {
      const owner = await newUser('owner');
      const member = await newUser('member');
      const stranger = await newUser('stranger');
      const workspaceId = await createWorkspace(owner);
      await addMember(owner, workspaceId, member);
      expect(await failureOf(addMember(member, workspaceId, stranger))).toEqual({
        status: 403,
        code: 'FORBIDDEN',
        message: 'Only workspace owners can add members',
      });
    });

    test('an added owner may add members', async () => {
      const owner = await newUser('owner');
      const coOwner = await newUser('coowner');
      const member = await newUser('member');
      const workspaceId = await createWorkspace(owner);
      await addMember(owner, workspaceId, coOwner, 'owner');
      expect((await addMember(coOwner, workspaceId, member)).status).toBe(201);
    });

    test('an outsider and an unknown workspace both get 404 Workspace not found', async () => {
      const owner = await newUser('owner');
      const outsider = await newUser('outsider');
      const workspaceId = await createWorkspace(owner);
      expect(await failureOf(addMember(outsider, workspaceId, outsider))).toEqual(NOT_FOUND);
      expect(await failureOf(addMember(owner, randomUUID(), outsider))).toEqual(NOT_FOUND);
    });

    test('adding a member twice is a 409 CONFLICT', async () => {
      const owner = await newUser('owner');
      const member = await newUser('member');
      const workspaceId = await createWorkspace(owner);
      await addMember(owner, workspaceId, member);
      expect(await failureOf(addMember(owner, workspaceId, member))).toMatchObject({
        status: 409,
        code: 'CONFLICT',
      });
      expect(await failureOf(addMember(owner, workspaceId, owner))).toMatchObject({
        status: 409,
        code: 'CONFLICT',
      });
    });

    test('an invalid email or role is a VALIDATION_ERROR', async () => {
      const owner = await newUser('owner');
      const workspaceId = await createWorkspace(owner);
      for (const body of [
        { email: 'not-an-email', role: 'member' },
        { email: 'a@example.com', role: 'admin' },
      ]) {
        const failure = await failureOf(
          callDirectoryRoute(platform, 'add_member', owner, { params: { workspaceId }, body }),
        );
        expect(failure).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
      }
    });
  });

  describe('DELETE /workspaces/:id', () => {
    test('a member gets 403 and an outsider 404; the workspace stays', async () => {
      const owner = await newUser('owner');
      const member = await newUser('member');
      const outsider = await newUser('outsider');
      const workspaceId = await createWorkspace(owner);
      await addMember(owner, workspaceId, member);
      const params = { workspaceId };
      expect(
        await failureOf(callDirectoryRoute(platform, 'delete_workspace', member, { params })),
      ).toEqual({
        status: 403,
        code: 'FORBIDDEN',
        message: 'Only workspace owners can delete the workspace',
      });
      expect(
        await failureOf(callDirectoryRoute(platform, 'delete_workspace', outsider, { params })),
      ).toEqual(NOT_FOUND);
      expect((await me(owner)).workspaces.map((workspace) => workspace.id)).toEqual([workspaceId]);
    });

    test('the owner soft-deletes: 204, then 404 on every workspace route', async () => {
      const owner = await newUser('owner');
      const member = await newUser('member');
      const workspaceId = await createWorkspace(owner);
      await addMember(owner, workspaceId, member);
      const { key } = await createApiKey(owner, workspaceId);
      const params = { workspaceId };

      const reply = await callDirectoryRoute(platform, 'delete_workspace', owner, { params });
      expect(reply).toEqual({ status: 204 });

      const calls: Array<[DirectoryOperation, unknown]> = [
        ['delete_workspace', undefined],
        ['add_member', { email: `${uniqueName('late')}@example.com`, role: 'member' }],
        ['get_notification_settings', undefined],
        ['update_notification_settings', { email_on_approval: true }],
        ['create_api_key', { name: 'late' }],
      ];
      for (const [operation, body] of calls) {
        for (const actor of [owner, member]) {
          const failure = await failureOf(
            callDirectoryRoute(platform, operation, actor, { params, body }),
          );
          expect({ operation, ...failure }).toEqual({ operation, ...NOT_FOUND });
        }
      }
      expect((await me(owner)).workspaces).toEqual([]);
      expect((await me(member)).workspaces).toEqual([]);
      expect(await verifyApiKey(key)).toEqual({ valid: false, workspaceId: null, keyId: null });
      expect(await firstWorkspace(owner.userId)).toEqual({ workspaceId: null });
    });
  });

  describe('notification settings (spec endpoint 7)', () => {
    test('off by default; any member may turn it on and off', async () => {
      const owner = await newUser('owner');
      const member = await newUser('member');
      const workspaceId = await createWorkspace(owner);
      await addMember(owner, workspaceId, member);
      const params = { workspaceId };

      const initial = await callDirectoryRoute(platform, 'get_notification_settings', owner, {
        params,
      });
      expect(initial).toEqual({ status: 200, body: { email_on_approval: false } });

      const turnedOn = await callDirectoryRoute(platform, 'update_notification_settings', member, {
        params,
        body: { email_on_approval: true },
      });
      expect(turnedOn).toEqual({ status: 200, body: { success: true, email_on_approval: true } });
      expect(
        await callDirectoryRoute(platform, 'get_notification_settings', owner, { params }),
      ).toEqual({ status: 200, body: { email_on_approval: true } });

      const turnedOff = await callDirectoryRoute(platform, 'update_notification_settings', owner, {
        params,
        body: { email_on_approval: false },
      });
      expect(turnedOff).toEqual({ status: 200, body: { success: true, email_on_approval: false } });
      expect(
        await callDirectoryRoute(platform, 'get_notification_settings', member, { params }),
      ).toEqual({ status: 200, body: { email_on_approval: false } });
    });

    test.each<[DirectoryOperation, unknown]>([
      ['get_notification_settings', undefined],
      ['update_notification_settings', { email_on_approval: true }],
    ])('%s: non-member 403, unknown workspace 404', async (operation, body) => {
      const owner = await newUser('owner');
      const outsider = await newUser('outsider');
      const workspaceId = await createWorkspace(owner);
      expect(
        await failureOf(
          callDirectoryRoute(platform, operation, outsider, { params: { workspaceId }, body }),
        ),
      ).toEqual({
        status: 403,
        code: 'FORBIDDEN',
        message: 'You are not a member of this workspace',
      });
      expect(
        await failureOf(
          callDirectoryRoute(platform, operation, owner, {
            params: { workspaceId: randomUUID() },
            body,
          }),
        ),
      ).toEqual(NOT_FOUND);
    });

    test('a body without a boolean is a VALIDATION_ERROR', async () => {
      const owner = await newUser('owner');
      const workspaceId = await createWorkspace(owner);
      const failure = await failureOf(
        callDirectoryRoute(platform, 'update_notification_settings', owner, {
          params: { workspaceId },
          body: { email_on_approval: 'yes' },
        }),
      );
      expect(failure).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    });

    test('a workspace id that is not a uuid is a VALIDATION_ERROR', async () => {
      const owner = await newUser('owner');
      const failure = await failureOf(
        callDirectoryRoute(platform, 'get_notification_settings', owner, {
          params: { workspaceId: 'not-a-uuid' },
        }),
      );
      expect(failure).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    });
  });

  describe('PATCH /me/preferences', () => {
    test('sets the caller’s own approval tasks email preference', async () => {
      const actor = await newUser();
      const bystander = await newUser('bystander');
      const storedPreference = async (userId: string) => {
        const [row] = await platform.sql.db
          .select({ value: users.approvalTasksEmail })
          .from(users)
          .where(eq(users.id, userId));
        return row?.value;
      };
      expect(await storedPreference(actor.userId)).toBe(true);

      const off = await callDirectoryRoute(platform, 'update_preferences', actor, {
        body: { approval_tasks_email: false },
      });
      expect(off).toEqual({ status: 200, body: { preferences: { approval_tasks_email: false } } });
      expect(await storedPreference(actor.userId)).toBe(false);
      expect((await me(actor)).preferences).toEqual({ approval_tasks_email: false });
      expect((await me(bystander)).preferences).toEqual({ approval_tasks_email: true });
      expect(await storedPreference(bystander.userId)).toBe(true);

      const on = await callDirectoryRoute(platform, 'update_preferences', actor, {
        body: { approval_tasks_email: true },
      });
      expect(on).toEqual({ status: 200, body: { preferences: { approval_tasks_email: true } } });
      expect(await storedPreference(actor.userId)).toBe(true);
    });
  });

  describe('API keys', () => {
    test('an owner creates a key: 201, shown once, stored only as its hash, verifiable', async () => {
      const owner = await newUser('owner');
      const workspaceId = await createWorkspace(owner);
      const created = await createApiKey(owner, workspaceId, 'Zapier');
      expect(created).toEqual({
        status: 201,
        id: expect.any(String),
        name: 'Zapier',
        key: expect.stringMatching(/^sk_/),
      });
      const [row] = await platform.sql.db.select().from(apiKeys).where(eq(apiKeys.id, created.id));
      expect(row?.keyHash).toBe(hashApiKey(created.key));
      expect(Object.values(row ?? {})).not.toContain(created.key);
      expect(created.key.startsWith(row?.prefix ?? '-')).toBe(true);

      expect(await verifyApiKey(created.key)).toEqual({
        valid: true,
        workspaceId,
        keyId: created.id,
      });
    });

    test('a member gets 403 and an outsider 404', async () => {
      const owner = await newUser('owner');
      const member = await newUser('member');
      const outsider = await newUser('outsider');
      const workspaceId = await createWorkspace(owner);
      await addMember(owner, workspaceId, member);
      expect(await failureOf(createApiKey(member, workspaceId))).toEqual({
        status: 403,
        code: 'FORBIDDEN',
        message: 'Only workspace owners can create API keys',
      });
      expect(await failureOf(createApiKey(outsider, workspaceId))).toEqual(NOT_FOUND);
    });

    test.each([
      ['an unknown key', `sk_live_${'x'.repeat(43)}`],
      ['a value without the sk_ prefix', 'not-a-key'],
      ['an empty value', ''],
    ])('%s is not valid', async (_case, key) => {
      expect(await verifyApiKey(key)).toEqual({ valid: false, workspaceId: null, keyId: null });
    });

    test('a revoked key is not valid', async () => {
      const owner = await newUser('owner');
      const workspaceId = await createWorkspace(owner);
      const created = await createApiKey(owner, workspaceId);
      await platform.sql.db
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(eq(apiKeys.id, created.id));
      expect(await verifyApiKey(created.key)).toEqual({
        valid: false,
        workspaceId: null,
        keyId: null,
      });
    });
  });

  describe('first_workspace', () => {
    test('the oldest joined live workspace, null when there is none', async () => {
      const actor = await newUser();
      const other = await newUser('other');
      expect(await firstWorkspace(actor.userId)).toEqual({ workspaceId: null });

      const joinedFirst = await createWorkspace(other, 'Theirs');
      await addMember(other, joinedFirst, actor);
      const own = await createWorkspace(actor, 'Mine');
      expect(await firstWorkspace(actor.userId)).toEqual({ workspaceId: joinedFirst });

      await callDirectoryRoute(platform, 'delete_workspace', other, {
        params: { workspaceId: joinedFirst },
      });
      expect(await firstWorkspace(actor.userId)).toEqual({ workspaceId: own });
    });
  });

  describe('one workspace never reveals another', () => {
    test.each<[DirectoryOperation, unknown, { status: number; code: string; message: string }]>([
      ['add_member', { email: 'intruder@example.com', role: 'owner' }, NOT_FOUND],
      ['delete_workspace', undefined, NOT_FOUND],
      ['create_api_key', { name: 'stolen' }, NOT_FOUND],
      [
        'get_notification_settings',
        undefined,
        { status: 403, code: 'FORBIDDEN', message: 'You are not a member of this workspace' },
      ],
      [
        'update_notification_settings',
        { email_on_approval: true },
        { status: 403, code: 'FORBIDDEN', message: 'You are not a member of this workspace' },
      ],
    ])('%s on workspace B by an owner of workspace A', async (operation, body, expected) => {
      const ownerA = await newUser('ownera');
      const ownerB = await newUser('ownerb');
      const memberB = await newUser('memberb');
      await createWorkspace(ownerA, 'A');
      const workspaceB = await createWorkspace(ownerB, 'B');
      await addMember(ownerB, workspaceB, memberB);
      const before = await directoryEntry(workspaceB);

      const failure = await failureOf(
        callDirectoryRoute(platform, operation, ownerA, {
          params: { workspaceId: workspaceB },
          body,
        }),
      );
      expect(failure).toEqual(expected);

      expect((await me(ownerA)).workspaces.map((workspace) => workspace.name)).toEqual(['A']);
      expect((await me(ownerB)).workspaces.map((workspace) => workspace.id)).toEqual([workspaceB]);
      expect(
        await callDirectoryRoute(platform, 'get_notification_settings', ownerB, {
          params: { workspaceId: workspaceB },
        }),
      ).toEqual({ status: 200, body: { email_on_approval: false } });
      expect(await directoryEntry(workspaceB)).toEqual(before);
      const keysOfB = await platform.sql.db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(eq(apiKeys.workspaceId, workspaceB));
      expect(keysOfB).toEqual([]);
    });
  });

  describe('directory KV bucket', () => {
    test('every change publishes the workspace membership', async () => {
      const owner = await newUser('owner');
      const member = await newUser('member');
      const workspaceId = await createWorkspace(owner, 'Published');
      expect(await directoryEntry(workspaceId)).toEqual({
        id: workspaceId,
        name: 'Published',
        deleted: false,
        members: { [owner.userId]: 'owner' },
      });

      await addMember(owner, workspaceId, member);
      expect(await directoryEntry(workspaceId)).toEqual({
        id: workspaceId,
        name: 'Published',
        deleted: false,
        members: { [owner.userId]: 'owner', [member.userId]: 'member' },
      });

      await callDirectoryRoute(platform, 'delete_workspace', owner, { params: { workspaceId } });
      expect(await directoryEntry(workspaceId)).toEqual({
        id: workspaceId,
        name: 'Published',
        deleted: true,
        members: { [owner.userId]: 'owner', [member.userId]: 'member' },
      });
    });

    test('a restart republishes every workspace into the bucket', async () => {
      const owner = await newUser('owner');
      const live = await createWorkspace(owner, 'Live');
      const gone = await createWorkspace(owner, 'Gone');
      await callDirectoryRoute(platform, 'delete_workspace', owner, {
        params: { workspaceId: gone },
      });
      await bucket.delete(directoryKey(live));
      await bucket.delete(directoryKey(gone));

      await service.stop();
      service = await startStorageService({
        platform: await asBusPrincipal(runtime.platform, 'storage'),
        logger: testLogger(),
      });

      expect(await directoryEntry(live)).toMatchObject({ id: live, deleted: false });
      expect(await directoryEntry(gone)).toMatchObject({ id: gone, deleted: true });
    });
  });

  describe('logs', () => {
    test('user errors are logged at info; keys are never logged', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
      await service.stop();
      service = await startStorageService({
        platform: await asBusPrincipal(runtime.platform, 'storage'),
        logger,
      });

      const owner = await newUser('owner');
      const outsider = await newUser('outsider');
      const workspaceId = await createWorkspace(owner);
      const { key } = await createApiKey(owner, workspaceId);
      await verifyApiKey(key);
      await failureOf(createApiKey(outsider, workspaceId));

      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records).toContainEqual(
        expect.objectContaining({
          level: 30,
          subject: 'storage.api.create_api_key.v1',
          code: 'NOT_FOUND',
          msg: 'Workspace not found',
        }),
      );
      expect(lines.join('\n')).not.toContain(key.slice('sk_live_'.length));
    });
  });
});
