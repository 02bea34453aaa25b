import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { type IncomingMessage } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCredentialKey, parseCredentialKeys } from '@wap/auth';
import { parseAllowlist } from '@wap/egress';
import { oauthRedirectUriFor, type McpRegistryConfig } from '@wap/mcp-registry-service';
import {
  BASIC_PASSWORD,
  BASIC_USER,
  forwardTo,
  freePort,
  makeTestCertificates,
  startEverythingProcess,
  stopChild,
} from '@wap/testing';

/**
 * Real MCP servers for the registry's end-to-end tests: `@modelcontextprotocol/server-everything`
 * (Streamable HTTP and legacy SSE) behind an HTTPS reverse proxy whose certificate is signed by
 * a test CA made with openssl. server-everything checks no credentials, so the proxy does: some
 * paths demand a bearer token or HTTP basic auth and answer 401 without them.
 */

export const BEARER_TOKEN = 'mcp-bearer-token-7f3a9c';
export const HEADER_SECRET = 'mcp-header-secret-0b8e';

export interface McpTestServers {
  /** PEM of the CA that signed the proxy's certificate. */
  caPem: string;
  /** https://127.0.0.1:<port> */
  origin: string;
  /** An https URL on which nothing listens. */
  downUrl: string;
  /** Requests the proxy saw, by path (method and path), for transport assertions. */
  seen: Array<{ method: string; path: string; status: number }>;
  /** JSON-RPC messages the proxy passed on to the servers (requests and notifications). */
  rpcMessages: Array<{ method: string; params?: unknown }>;
  /**
   * Requests that reached another origin (another HTTPS port) after `/moved/` redirected them
   * there with a 307; it answers 401 to each.
   */
  elsewhereSeen: Array<{ method: string; path: string; headers: IncomingMessage['headers'] }>;
  /** The next request with a session id under /expiring/ gets 404, as after a server restart. */
  expireSessionOnce(): void;
  stop(): Promise<void>;
}

/**
 * mcp-registry's settings for tests against these servers: a fresh key, 127.0.0.1 allowed past
 * the SSRF guard, the test CA trusted; `overrides` for the rest.
 */
export function registrySettingsFor(
  servers: Pick<McpTestServers, 'caPem'>,
  overrides: Partial<McpRegistryConfig> = {},
  environment: Readonly<Record<string, string | undefined>> = {},
): { config: McpRegistryConfig; environment: Readonly<Record<string, string | undefined>> } {
  return {
    config: {
      keyring: parseCredentialKeys(generateCredentialKey('e2e')),
      egressAllowlist: parseAllowlist('127.0.0.1'),
      envAllowlist: new Set(),
      extraCaCerts: [servers.caPem],
      connectTimeoutMs: 5000,
      syncTimeoutMs: 20_000,
      callTimeoutMs: 60_000,
      oauthRedirectUri: oauthRedirectUriFor('http://localhost:3000'),
      ...overrides,
    },
    environment,
  };
}

interface Route {
  prefix: string;
  upstreamPort: number;
  /** Rewritten path prefix on the upstream. */
  upstreamPrefix: string;
  check?: (req: IncomingMessage) => boolean;
  delayMs?: number;
}

/** Notes the JSON-RPC message(s) of a request body as it streams by. */
function recordRpc(req: IncomingMessage, into: McpTestServers['rpcMessages']): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const message of [parsed].flat()) {
        const { method, params } = message as { method?: unknown; params?: unknown };
        if (typeof method === 'string') into.push({ method, params });
      }
    } catch {
      // Not JSON (a GET, an empty body): nothing to record.
    }
  });
}

export async function startMcpTestServers(): Promise<McpTestServers> {
  const dir = mkdtempSync(join(tmpdir(), 'wap-mcp-tls-'));
  const { caPem, keyPem, certPem } = makeTestCertificates(dir);
  const streamable = await startEverythingProcess('streamableHttp');
  const sse = await startEverythingProcess('sse');
  const bearer = (req: IncomingMessage) => req.headers.authorization === `Bearer ${BEARER_TOKEN}`;
  const basic = (req: IncomingMessage) =>
    req.headers.authorization ===
    `Basic ${Buffer.from(`${BASIC_USER}:${BASIC_PASSWORD}`).toString('base64')}`;
  const routes: Route[] = [
    { prefix: '/open/', upstreamPort: streamable.port, upstreamPrefix: '/' },
    { prefix: '/bearer/', upstreamPort: streamable.port, upstreamPrefix: '/', check: bearer },
    { prefix: '/basic/', upstreamPort: streamable.port, upstreamPrefix: '/', check: basic },
    {
      prefix: '/header/',
      upstreamPort: streamable.port,
      upstreamPrefix: '/',
      check: (req) => req.headers['x-api-key'] === HEADER_SECRET,
    },
    { prefix: '/expiring/', upstreamPort: streamable.port, upstreamPrefix: '/' },
    { prefix: '/slow/', upstreamPort: streamable.port, upstreamPrefix: '/', delayMs: 600 },
    // The legacy SSE server announces /message as its POST endpoint, relative to the origin.
    { prefix: '/sse', upstreamPort: sse.port, upstreamPrefix: '/sse' },
    { prefix: '/message', upstreamPort: sse.port, upstreamPrefix: '/message' },
  ];
  const seen: McpTestServers['seen'] = [];
  const rpcMessages: McpTestServers['rpcMessages'] = [];
  const elsewhereSeen: McpTestServers['elsewhereSeen'] = [];
  const elsewhere: HttpsServer = createHttpsServer({ key: keyPem, cert: certPem }, (req, res) => {
    elsewhereSeen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    req.resume();
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  const elsewhereOrigin = `https://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  let expireSession = false;
  const proxy: HttpsServer = createHttpsServer({ key: keyPem, cert: certPem }, (req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/moved/')) {
      seen.push({ method: req.method ?? '', path: url, status: 307 });
      req.resume();
      res.writeHead(307, { location: `${elsewhereOrigin}/landed/${url.slice('/moved/'.length)}` });
      res.end();
      return;
    }
    const route = routes.find((candidate) => url.startsWith(candidate.prefix));
    const record = (status: number) => seen.push({ method: req.method ?? '', path: url, status });
    if (!route) {
      record(404);
      res.writeHead(404).end();
      return;
    }
    if (route.prefix === '/expiring/' && expireSession && req.headers['mcp-session-id']) {
      expireSession = false;
      record(404);
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"session expired"}');
      return;
    }
    if (route.check && !route.check(req)) {
      record(401);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    record(200);
    const path = route.upstreamPrefix + url.slice(route.prefix.length);
    // Listening to the body starts its flow: only once the upstream is there to take it.
    const go = () => {
      recordRpc(req, rpcMessages);
      forwardTo(req, res, route.upstreamPort, path);
    };
    if (route.delayMs) setTimeout(go, route.delayMs);
    else go();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  const downPort = await freePort();
  return {
    caPem,
    origin: `https://127.0.0.1:${port}`,
    downUrl: `https://127.0.0.1:${downPort}/mcp`,
    seen,
    rpcMessages,
    elsewhereSeen,
    expireSessionOnce() {
      expireSession = true;
    },
    async stop() {
      for (const server of [proxy, elsewhere]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      await Promise.all([stopChild(streamable.child), stopChild(sse.child)]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
