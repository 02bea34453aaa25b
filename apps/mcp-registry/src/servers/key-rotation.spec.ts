import path from 'node:path';
import { sql } from 'drizzle-orm';
import {
  generateCredentialKey,
  openSecret,
  parseCredentialKeys,
  sealSecret,
  sealedKeyId,
} from '@wap/auth';
import { createTestPlatform, testLogger, type TestPlatform } from '@wap/testing';
import { createAccountRepository, type AccountRepository } from '../accounts/repository';
import { connectionHeaders, sealAuth, sealHeaders, secretContext } from './credentials';
import { rewrapCredentials } from './key-rotation';
import { createServerRepository, type ServerRepository } from './repository';

const OLD_KEY = generateCredentialKey('k2025');
const NEW_KEY = generateCredentialKey('k2026');
const TOKEN = 'rotation-test-token-93b1';
const HEADER_VALUE = 'rotation-header-value-44c0';
const WORKSPACE = '11111111-1111-4111-8111-111111111111';
const USER = '22222222-2222-4222-8222-222222222222';

describe('credential key rotation against PostgreSQL', () => {
  let database: TestPlatform;
  let repository: ServerRepository;
  let accountRepository: AccountRepository;

  beforeAll(async () => {
    database = await createTestPlatform({ serviceName: 'mcp-rotation' });
    await database.platform.sql.migrate({
      schema: 'mcp_registry',
      migrationsFolder: path.join(__dirname, '../../migrations'),
    });
    repository = createServerRepository({
      db: database.platform.sql.db,
      clock: database.platform.clock,
      ids: database.platform.ids,
    });
    accountRepository = createAccountRepository({
      db: database.platform.sql.db,
      clock: database.platform.clock,
    });
  });
  afterAll(async () => {
    await database.cleanup();
  });

  async function storeServer(keys: string): Promise<string> {
    const keyring = parseCredentialKeys(keys);
    const serverId = repository.newId();
    const ids = { workspaceId: WORKSPACE, serverId };
    await repository.insert(
      serverId,
      {
        workspaceId: WORKSPACE,
        name: 'rotating',
        description: '',
        serverUrl: 'https://mcp.example.com/mcp',
        accessMode: 'everyone',
        accessibleTo: [],
        createdBy: USER,
      },
      {
        auth: sealAuth({ value: TOKEN }, { keyring, envAllowlist: new Set() }, ids),
        headers: sealHeaders({ 'X-Extra': HEADER_VALUE }, keyring, ids),
      },
    );
    return serverId;
  }

  async function headersWith(keys: string, serverId: string) {
    const server = await repository.find(serverId);
    if (!server) throw new Error('server missing');
    return connectionHeaders(
      {
        workspaceId: server.workspaceId,
        id: server.id,
        auth: server.auth,
        sealedHeaders: server.sealedHeaders,
      },
      { keyring: parseCredentialKeys(keys), envAllowlist: new Set(), environment: {} },
    );
  }

  test('the database holds no credential in clear text', async () => {
    const serverId = await storeServer(NEW_KEY);
    const rows = await database.platform.sql.db.execute(
      sql`select * from mcp_registry.servers where id = ${serverId}`,
    );
    const dump = JSON.stringify(rows);
    expect(dump).toContain('X-Extra');
    expect(dump).not.toContain(TOKEN);
    expect(dump).not.toContain(HEADER_VALUE);
    expect(await headersWith(NEW_KEY, serverId)).toEqual({
      'X-Extra': HEADER_VALUE,
      Authorization: `Bearer ${TOKEN}`,
    });
  });

  test('a new key first: old values still open, rewrap moves them, then the old key can go', async () => {
    const serverId = await storeServer(OLD_KEY);
    const rotated = `${NEW_KEY},${OLD_KEY}`;
    expect(await headersWith(rotated, serverId)).toMatchObject({
      Authorization: `Bearer ${TOKEN}`,
    });
    await expect(headersWith(NEW_KEY, serverId)).rejects.toThrow(
      'Credential key k2025 is not configured',
    );

    const moved = await rewrapCredentials({
      repository,
      accountRepository,
      keyring: parseCredentialKeys(rotated),
      logger: testLogger(),
    });
    expect(moved).toBeGreaterThanOrEqual(1);
    const server = await repository.find(serverId);
    expect(sealedKeyId(server?.auth.sealedSecret ?? '')).toBe('k2026');
    expect(sealedKeyId(server?.sealedHeaders ?? '')).toBe('k2026');
    expect(await headersWith(NEW_KEY, serverId)).toEqual({
      'X-Extra': HEADER_VALUE,
      Authorization: `Bearer ${TOKEN}`,
    });
    expect(
      await rewrapCredentials({
        repository,
        accountRepository,
        keyring: parseCredentialKeys(rotated),
        logger: testLogger(),
      }),
    ).toBe(0);
  });

  test("connected accounts move too: the client secret, people's tokens, a PKCE verifier", async () => {
    const serverId = await storeServer(NEW_KEY);
    const old = parseCredentialKeys(OLD_KEY);
    const context = (field: string) => secretContext(WORKSPACE, serverId, field);
    const now = new Date();
    await accountRepository.saveClient({
      serverId,
      issuer: 'https://auth.example.com',
      metadata: {},
      resource: 'https://mcp.example.com/mcp',
      clientId: 'client-1',
      sealedClientSecret: sealSecret(old, 'client-secret', context('oauth-client')),
      tokenEndpointAuthMethod: 'client_secret_basic',
      redirectUri: 'https://platform.example.com/app/connected-accounts/callback',
      registeredAt: now,
    });
    await accountRepository.saveConnection({
      serverId,
      userId: USER,
      sealedTokens: sealSecret(old, '{"access_token":"a"}', context(`account/${USER}`)),
      scope: null,
      issuedAt: now,
      expiresAt: null,
      connectedAt: now,
    });
    await accountRepository.addPending({
      state: `state-${serverId}`,
      serverId,
      userId: USER,
      sealedCodeVerifier: sealSecret(old, 'verifier', context(`pkce/${USER}`)),
      expiresAt: new Date(now.getTime() + 60_000),
    });

    const rotated = parseCredentialKeys(`${NEW_KEY},${OLD_KEY}`);
    expect(
      await rewrapCredentials({
        repository,
        accountRepository,
        keyring: rotated,
        logger: testLogger(),
      }),
    ).toBe(3);
    const fresh = parseCredentialKeys(NEW_KEY);
    const client = await accountRepository.findClient(serverId);
    expect(openSecret(fresh, client?.sealedClientSecret ?? '', context('oauth-client'))).toBe(
      'client-secret',
    );
    const connection = await accountRepository.findConnection(serverId, USER);
    expect(openSecret(fresh, connection?.sealedTokens ?? '', context(`account/${USER}`))).toBe(
      '{"access_token":"a"}',
    );
    const pending = await accountRepository.takePending(`state-${serverId}`, USER);
    expect(openSecret(fresh, pending?.sealedCodeVerifier ?? '', context(`pkce/${USER}`))).toBe(
      'verifier',
    );
  });
});
