import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseCredentialKeys, type CredentialKeyring } from '@wap/auth';
import { MCP_ACCOUNT_CALLBACK_PATH } from '@wap/contracts';
import { parseAllowlist, type EgressAllowlist } from '@wap/egress';
import { parseConfig } from '@wap/config';
import { ServiceEnv } from '@wap/service-runtime';

/** The registry's own settings, shared by its process (main.ts) and the embedded launcher. */
export const McpRegistryEnv = z.object({
  /**
   * Key-encryption keys for stored credentials, `kid:base64key,...`, newest first: new values
   * use the first, older ones still decrypt. Required (the embedded launcher generates one).
   */
  CREDENTIALS_ENCRYPTION_KEYS: z.string().min(1),
  /**
   * Hosts, IPs and CIDRs that MCP servers may use although they are not public; comma-separated.
   * Its own list, apart from http_request steps' (`HTTP_STEP_SSRF_ALLOWLIST`).
   */
  MCP_SSRF_ALLOWLIST: z.string().optional(),
  /** The list of releases before there were two: used while MCP_SSRF_ALLOWLIST is unset. */
  SSRF_ALLOWLIST: z.string().default(''),
  /** Environment variables the env_var auth type may read; comma-separated names. */
  MCP_ENV_ALLOWLIST: z.string().default(''),
  /** PEM file of extra certificate authorities to trust for MCP servers (private PKI, tests). */
  MCP_EXTRA_CA_CERTS: z.string().optional(),
  /** Time to open a connection and finish the MCP handshake, in milliseconds. */
  MCP_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Time a whole tool sync may take (every page of tools/list), in milliseconds. */
  MCP_SYNC_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** Default time a proxied tool call may take, in milliseconds. */
  MCP_CALL_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * The platform's address as people's browsers reach it: authorization servers send them back
   * to its connected-accounts page.
   */
  PUBLIC_BASE_URL: z.url().default('http://localhost:3000'),
});
export type McpRegistryEnv = z.infer<typeof McpRegistryEnv>;

/** The mcp-registry process environment: the common service variables plus its own. */
export const McpRegistryServiceEnv = ServiceEnv.extend(McpRegistryEnv.shape);
export type McpRegistryServiceEnv = z.infer<typeof McpRegistryServiceEnv>;

/** What the service runs with, parsed and ready (keys decoded, allow-lists split). */
export interface McpRegistryConfig {
  keyring: CredentialKeyring;
  egressAllowlist: EgressAllowlist;
  envAllowlist: ReadonlySet<string>;
  extraCaCerts: string[];
  connectTimeoutMs: number;
  syncTimeoutMs: number;
  callTimeoutMs: number;
  /** Where authorization servers send people back after they connect their own account. */
  oauthRedirectUri: string;
}

/** The connected-accounts page of the platform at `publicBaseUrl`. */
export function oauthRedirectUriFor(publicBaseUrl: string): string {
  return new URL(MCP_ACCOUNT_CALLBACK_PATH, publicBaseUrl).href;
}

export function loadConfig(env: NodeJS.ProcessEnv): McpRegistryServiceEnv {
  return parseConfig(McpRegistryServiceEnv, env);
}

/** Turns the validated variables into the service's config; fails on unusable keys. */
export function toMcpRegistryConfig(env: McpRegistryEnv): McpRegistryConfig {
  return {
    keyring: parseCredentialKeys(env.CREDENTIALS_ENCRYPTION_KEYS),
    egressAllowlist: parseAllowlist(env.MCP_SSRF_ALLOWLIST ?? env.SSRF_ALLOWLIST),
    envAllowlist: new Set(
      env.MCP_ENV_ALLOWLIST.split(',')
        .map((name) => name.trim())
        .filter((name) => name.length > 0),
    ),
    extraCaCerts: env.MCP_EXTRA_CA_CERTS ? [readFileSync(env.MCP_EXTRA_CA_CERTS, 'utf8')] : [],
    connectTimeoutMs: env.MCP_CONNECT_TIMEOUT_MS,
    syncTimeoutMs: env.MCP_SYNC_TIMEOUT_MS,
    callTimeoutMs: env.MCP_CALL_TIMEOUT_MS,
    oauthRedirectUri: oauthRedirectUriFor(env.PUBLIC_BASE_URL),
  };
}
