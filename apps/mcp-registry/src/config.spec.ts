import { generateCredentialKey } from '@wap/auth';
import { loadConfig, toMcpRegistryConfig } from './config';

/** Every service process needs its bus keys (decision 112); their values do not matter here. */
const BUS_KEYS = { BUS_SIGNING_KEY: '{}', BUS_TRUSTED_KEYS: '{}' };

describe('mcp-registry configuration', () => {
  test('the service refuses to start without credential encryption keys', () => {
    expect(() => loadConfig({ ...BUS_KEYS })).toThrow(/CREDENTIALS_ENCRYPTION_KEYS/);
  });

  test('keys, allow-lists and timeouts are parsed once', () => {
    const env = loadConfig({
      ...BUS_KEYS,
      CREDENTIALS_ENCRYPTION_KEYS: `${generateCredentialKey('new')},${generateCredentialKey('old')}`,
      SSRF_ALLOWLIST: '10.0.0.0/8, internal.example',
      MCP_ENV_ALLOWLIST: 'GITHUB_TOKEN, LINEAR_TOKEN',
      MCP_SYNC_TIMEOUT_MS: '5000',
    });
    const config = toMcpRegistryConfig(env);
    expect(config.keyring.current.id).toBe('new');
    expect([...config.keyring.byId.keys()]).toEqual(['new', 'old']);
    expect(config.egressAllowlist.hosts.has('internal.example')).toBe(true);
    expect([...config.envAllowlist]).toEqual(['GITHUB_TOKEN', 'LINEAR_TOKEN']);
    expect(config.syncTimeoutMs).toBe(5000);
    expect(config.extraCaCerts).toEqual([]);
  });

  test('MCP servers have an allow-list of their own; the shared one counts only while it is unset', () => {
    const keys = { ...BUS_KEYS, CREDENTIALS_ENCRYPTION_KEYS: generateCredentialKey('k') };
    const own = toMcpRegistryConfig(
      loadConfig({ ...keys, MCP_SSRF_ALLOWLIST: '127.0.0.1', SSRF_ALLOWLIST: '10.0.0.0/8' }),
    );
    expect(own.egressAllowlist.ranges.map(([base, bits]) => `${base.toString()}/${bits}`)).toEqual([
      '127.0.0.1/32',
    ]);
    const shared = toMcpRegistryConfig(loadConfig({ ...keys, SSRF_ALLOWLIST: '10.0.0.0/8' }));
    expect(
      shared.egressAllowlist.ranges.map(([base, bits]) => `${base.toString()}/${bits}`),
    ).toEqual(['10.0.0.0/8']);
  });

  test('unusable keys fail at start, not at the first request', () => {
    const env = loadConfig({ ...BUS_KEYS, CREDENTIALS_ENCRYPTION_KEYS: 'k1:c2hvcnQ=' });
    expect(() => toMcpRegistryConfig(env)).toThrow('Credential key k1 must hold at least 32 bytes');
  });
});
