import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  OAuthError,
  OAuthErrorCode,
  Server as McpServer,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import { exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { makeTestCertificates } from './certificates';

/**
 * What remote MCP servers that take people's own accounts look like, for the connected-account
 * tests: an MCP server (the official SDK's, behind its own bearer-token gate) that accepts only
 * JWT access tokens of its authorization server issued for it, and that authorization server
 * (oidc-provider, in a child process: oauth-authorization-server.mjs). Both speak HTTPS with a test
 * CA's certificate. The MCP server's one tool, `whoami`, answers the token's subject: whose
 * account a call used.
 */
export interface ConnectedAccountServers {
  caPem: string;
  /** The CA as a file, for MCP_EXTRA_CA_CERTS; removed by stop(). */
  caFile: string;
  issuer: string;
  /** The MCP server that requires its authorization server's tokens. */
  mcpUrl: string;
  /**
   * An MCP server whose protected-resource metadata names an authorization server at a
   * private address (127.0.0.2): the platform must not go there.
   */
  internalMcpUrl: string;
  /** Connections the private authorization server received (there should be none). */
  internalConnections(): number;
  /** Access tokens the MCP server accepted, in order. */
  acceptedTokens: string[];
  /** What the authorization server did: registrations, token grants, revocations. */
  events(): Promise<AuthorizationServerEvent[]>;
  /**
   * Opens an authorization URL as a browser would, signs in as `login` and consents; answers the
   * query the authorization server sent back to `redirectUri` (code, state, iss; or error).
   */
  authorize(authorizationUrl: string, login: string, redirectUri: string): Promise<URLSearchParams>;
  stop(): Promise<void>;
}

/** One thing the authorization server did (authorization-server.mjs). */
export interface AuthorizationServerEvent {
  name:
    | 'registered'
    | 'token'
    | 'token_refused'
    | 'revocation'
    | 'revocation_refused'
    | 'grant_revoked';
  at: number;
  grantType?: string;
  status?: number;
}

interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function httpsCall(
  url: string,
  caPem: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, ca: caPem },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          resolve({
            status: answer.statusCode ?? 0,
            headers: answer.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

async function listen(server: Server, host = '127.0.0.1'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `https://${host}:${(server.address() as AddressInfo).port}`;
}

async function startAuthorizationServer(settings: Record<string, string>) {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(__dirname, 'oauth-authorization-server.mjs')],
    { env: { PATH: process.env['PATH'] ?? '', ...settings }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the authorization server did not start: ${output}`)),
      15_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const started = /listening (https:\/\/\S+)/.exec(output);
      if (started?.[1]) {
        clearTimeout(timer);
        resolve(started[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`the authorization server exited (${code}): ${output}`)),
    );
  });
  return { child, issuer };
}

export async function startConnectedAccountServers(options: {
  /** Lifetime of the access tokens, in seconds: short, so that refreshing is tested. */
  accessTokenTtlSeconds: number;
}): Promise<ConnectedAccountServers> {
  const dir = mkdtempSync(join(tmpdir(), 'wap-oauth-'));
  const { caPem, keyPem, certPem } = makeTestCertificates(dir, 'wap connected accounts CA');
  writeFileSync(join(dir, 'tls.key'), keyPem);
  writeFileSync(join(dir, 'tls.pem'), certPem);
  writeFileSync(join(dir, 'ca-file.pem'), caPem);
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk = {
    ...(await exportJWK(privateKey)),
    kid: 'test-signing',
    alg: 'RS256',
    use: 'sig',
  };

  const mcpHttps = createHttpsServer({ key: keyPem, cert: certPem });
  const origin = await listen(mcpHttps);
  const mcpUrl = `${origin}/mcp`;
  const internalMcpUrl = `${origin}/internal/mcp`;
  const { child, issuer } = await startAuthorizationServer({
    TLS_KEY_FILE: join(dir, 'tls.key'),
    TLS_CERT_FILE: join(dir, 'tls.pem'),
    SIGNING_JWK: JSON.stringify(signingJwk),
    RESOURCE: mcpUrl,
    ACCESS_TOKEN_TTL: String(options.accessTokenTtlSeconds),
  });

  let internalConnections = 0;
  const internal = createHttpsServer({ key: keyPem, cert: certPem }, (_req, res) => {
    res.writeHead(500).end();
  });
  internal.on('connection', () => {
    internalConnections += 1;
  });
  const internalIssuer = await listen(internal, '127.0.0.2');

  const acceptedTokens: string[] = [];
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl));
  const gate = requireBearerAuth({
    resourceMetadataUrl,
    expectedResource: new URL(mcpUrl),
    verifier: {
      async verifyAccessToken(token) {
        try {
          const { payload } = await jwtVerify(token, publicKey, { issuer, audience: mcpUrl });
          acceptedTokens.push(token);
          return {
            token,
            clientId: String(payload['client_id'] ?? ''),
            scopes: String(payload['scope'] ?? '')
              .split(' ')
              .filter(Boolean),
            expiresAt: payload.exp,
            resource: new URL(mcpUrl),
            extra: { subject: payload.sub },
          };
        } catch {
          throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is not valid');
        }
      },
    },
  });
  const handler = createMcpHandler(
    () => {
      const server = new McpServer(
        { name: 'accounts', version: '1.0.0' },
        { capabilities: { tools: {} } },
      );
      server.setRequestHandler('tools/list', () => ({
        tools: [
          {
            name: 'whoami',
            description: 'Whose account the call came with',
            inputSchema: { type: 'object', properties: {} },
          },
        ],
      }));
      server.setRequestHandler('tools/call', (_request, context) => ({
        content: [
          { type: 'text', text: String(context.http?.authInfo?.extra?.['subject'] ?? 'nobody') },
        ],
      }));
      return server;
    },
    { legacy: 'stateless', responseMode: 'auto' },
  );

  mcpHttps.on('request', (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
        json(200, {
          resource: mcpUrl,
          authorization_servers: [issuer],
          scopes_supported: ['mcp:tools'],
        });
        return;
      }
      if (url.pathname === '/.well-known/oauth-protected-resource/internal/mcp') {
        json(200, { resource: internalMcpUrl, authorization_servers: [internalIssuer] });
        return;
      }
      if (url.pathname !== '/mcp') {
        json(404, { error: 'not found' });
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      const incoming = new Request(url, {
        method: req.method,
        headers,
        body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
      });
      const authInfo = await gate(incoming);
      const response =
        authInfo instanceof Response ? authInfo : await handler.fetch(incoming, { authInfo });
      const answerHeaders: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        answerHeaders[name] = value;
      });
      res.writeHead(response.status, answerHeaders);
      const reader = response.body?.getReader();
      for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
        res.write(chunk.value);
      }
      res.end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  return {
    caPem,
    caFile: join(dir, 'ca-file.pem'),
    issuer,
    mcpUrl,
    internalMcpUrl,
    internalConnections: () => internalConnections,
    acceptedTokens,
    async events() {
      const answer = await httpsCall(`${issuer}/test/events`, caPem);
      return JSON.parse(answer.text) as AuthorizationServerEvent[];
    },
    async authorize(authorizationUrl, login, redirectUri) {
      const cookies = new Map<string, string>();
      let next: { url: string; method: string; body?: string } = {
        url: authorizationUrl,
        method: 'GET',
      };
      for (let step = 0; step < 20; step += 1) {
        const answer = await httpsCall(next.url, caPem, {
          method: next.method,
          body: next.body,
          headers: {
            cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
            ...(next.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          },
        });
        for (const line of [answer.headers['set-cookie'] ?? []].flat()) {
          const [pair = ''] = line.split(';');
          const [name = '', ...value] = pair.split('=');
          if (value.join('=')) cookies.set(name.trim(), value.join('='));
          else cookies.delete(name.trim());
        }
        const location = answer.headers['location'];
        if (answer.status >= 300 && answer.status < 400 && typeof location === 'string') {
          const target = new URL(location, next.url);
          if (target.href.startsWith(redirectUri)) return target.searchParams;
          next = { url: target.href, method: 'GET' };
          continue;
        }
        const form = /<form method="post" action="([^"]+)"/.exec(answer.text);
        if (answer.status === 200 && form?.[1]) {
          next = {
            url: new URL(form[1], next.url).href,
            method: 'POST',
            body: new URLSearchParams({ login }).toString(),
          };
          continue;
        }
        throw new Error(
          `the authorization stopped at ${answer.status}: ${answer.text.slice(0, 300)}`,
        );
      }
      throw new Error('the authorization did not come back after 20 steps');
    },
    async stop() {
      await handler.close();
      for (const server of [mcpHttps, internal]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
