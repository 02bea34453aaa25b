import { generateCredentialKey, parseCredentialKeys } from '@wap/auth';
import { AppError, type McpAuthConfig } from '@wap/contracts';
import { authTypeOf, connectionHeaders, sealAuth, sealHeaders } from './credentials';

const keyring = parseCredentialKeys(generateCredentialKey('unit'));
const ids = { workspaceId: 'workspace-1', serverId: 'server-1' };
const envAllowlist = new Set(['MCP_TOKEN']);

async function headersFor(
  config: McpAuthConfig | undefined,
  options: {
    environment?: Record<string, string>;
    accountToken?: () => Promise<string>;
    headers?: Record<string, string>;
  } = {},
) {
  const auth = sealAuth(config, { keyring, envAllowlist }, ids);
  const headers = sealHeaders(options.headers ?? {}, keyring, ids);
  return connectionHeaders(
    { workspaceId: ids.workspaceId, id: ids.serverId, auth, sealedHeaders: headers.sealedHeaders },
    {
      keyring,
      envAllowlist,
      environment: options.environment ?? {},
      accountToken: options.accountToken,
    },
  );
}

describe('authConfig mapping', () => {
  test.each<[McpAuthConfig | undefined, string]>([
    [undefined, 'none'],
    [{}, 'none'],
    [{ value: 'x' }, 'direct'],
    [{ username: 'u', password: 'p' }, 'basic'],
    [{ password: 'p' }, 'basic'],
    [{ type: 'env_var', value: 'MCP_TOKEN' }, 'env_var'],
    [{ type: 'account', value: 'acct' }, 'account'],
  ])('%j is %s', (config, type) => {
    expect(authTypeOf(config)).toBe(type);
  });

  test.each<[string, McpAuthConfig, Record<string, string>]>([
    ['a bearer token by default', { value: 'tok' }, { Authorization: 'Bearer tok' }],
    [
      'a prefix without its space',
      { value: 'tok', prefix: 'Token' },
      { Authorization: 'Token tok' },
    ],
    ['a prefix with its space', { value: 'tok', prefix: 'Token ' }, { Authorization: 'Token tok' }],
    ['an empty prefix', { value: 'tok', prefix: '' }, { Authorization: 'tok' }],
    [
      'a custom header without prefix',
      { headerName: 'X-Api-Key', value: 'k' },
      { 'X-Api-Key': 'k' },
    ],
    [
      'basic auth',
      { username: 'user', password: 'pa:ss' },
      { Authorization: `Basic ${Buffer.from('user:pa:ss').toString('base64')}` },
    ],
  ])('%s', async (_label, config, expected) => {
    expect(await headersFor(config)).toEqual(expected);
  });

  test('free-form headers travel with the credential', async () => {
    expect(await headersFor({ value: 'tok' }, { headers: { 'X-Team': 'a' } })).toEqual({
      'X-Team': 'a',
      Authorization: 'Bearer tok',
    });
  });

  test('env_var reads the allow-listed variable at connect time and never stores it', async () => {
    const stored = sealAuth(
      { type: 'env_var', value: 'MCP_TOKEN' },
      { keyring, envAllowlist },
      ids,
    );
    expect(stored).toMatchObject({ authReference: 'MCP_TOKEN', sealedSecret: null });
    expect(
      await headersFor(
        { type: 'env_var', value: 'MCP_TOKEN' },
        { environment: { MCP_TOKEN: 'from-env' } },
      ),
    ).toEqual({ Authorization: 'Bearer from-env' });
    await expect(headersFor({ type: 'env_var', value: 'MCP_TOKEN' })).rejects.toThrow(
      'Environment variable MCP_TOKEN is not available',
    );
  });

  test('env_var names off the allow-list are refused at registration', () => {
    expect(() =>
      sealAuth({ type: 'env_var', value: 'DATABASE_URL' }, { keyring, envAllowlist }, ids),
    ).toThrow(
      new AppError(
        'VALIDATION_ERROR',
        "Environment variable DATABASE_URL is not on the operator's allow-list",
      ),
    );
  });

  test("account sends the calling user's token; with no calling user it says so", async () => {
    const headers = await headersFor(
      { type: 'account', headerName: 'X-Token', prefix: '' },
      { accountToken: async () => 'account-token' },
    );
    expect(headers).toEqual({ 'X-Token': 'account-token' });
    expect(await headersFor({ type: 'account' }, { accountToken: async () => 't' })).toEqual({
      Authorization: 'Bearer t',
    });
    await expect(headersFor({ type: 'account' })).rejects.toThrow(
      "The server uses each person's own connected account, and no person is calling",
    );
  });

  test('account keeps the scopes its value names, and nothing sealed', () => {
    expect(
      sealAuth({ type: 'account', value: ' mcp:tools ' }, { keyring, envAllowlist }, ids),
    ).toEqual({
      authType: 'account',
      authHeaderName: 'Authorization',
      authPrefix: null,
      authReference: 'mcp:tools',
      sealedSecret: null,
    });
  });

  test.each<[McpAuthConfig, string]>([
    [{ type: 'direct' }, 'authConfig.value is required for direct auth'],
    [
      { type: 'basic', username: 'u' },
      'authConfig.username and authConfig.password are required for basic auth',
    ],
    [
      { type: 'env_var', value: 'not a name' },
      'authConfig.value must name an environment variable for env_var auth',
    ],
  ])('%j is refused', (config, message) => {
    expect(() => sealAuth(config, { keyring, envAllowlist }, ids)).toThrow(message);
  });
});
