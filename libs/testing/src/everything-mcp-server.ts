import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createRequire } from 'node:module';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { makeTestCertificates, type TestCertificates } from './certificates';
import { freePort } from './ports';

/** The credentials the proxy's /basic/ path demands (HTTP Basic). */
export const BASIC_USER = 'mcp-user';
export const BASIC_PASSWORD = 'mcp-basic-password-51d2';

/**
 * `@modelcontextprotocol/server-everything` (Streamable HTTP) behind an HTTPS reverse proxy whose
 * certificate is signed by a throw-away CA made with openssl, as the registry only connects to
 * https URLs. server-everything checks no credentials, so the proxy does on `/basic/`.
 */
export interface McpTestServer {
  /** PEM file of the CA, for the platform's MCP_EXTRA_CA_CERTS. */
  caFile: string;
  /** The open endpoint: https://127.0.0.1:<port>/open/mcp */
  openUrl: string;
  /** The same server behind HTTP Basic: https://127.0.0.1:<port>/basic/mcp */
  basicUrl: string;
  stop(): Promise<void>;
}

export interface EverythingMcpServerOptions {
  /** The HTTPS port; a free one when left out. */
  port?: number;
  /**
   * Where the CA and the server certificate are kept; a temp folder (removed on stop) when
   * left out. Given, they are reused while still valid and kept after stop, so a platform
   * started with `MCP_EXTRA_CA_CERTS=<dir>/ca.pem` keeps trusting the server across restarts.
   */
  certificatesDir?: string;
}

export async function startEverythingMcpServer(
  options: EverythingMcpServerOptions = {},
): Promise<McpTestServer> {
  const dir = options.certificatesDir ?? mkdtempSync(join(tmpdir(), 'wap-mcp-tls-'));
  const { keyPem, certPem }: TestCertificates = options.certificatesDir
    ? makeTestCertificates(dir, 'wap example MCP CA', { days: 30, reuse: true })
    : makeTestCertificates(dir, 'wap test MCP CA');
  const everything = await startEverythingProcess();
  const basicAuthorization = `Basic ${Buffer.from(`${BASIC_USER}:${BASIC_PASSWORD}`).toString('base64')}`;

  const proxy = createHttpsServer({ key: keyPem, cert: certPem }, (req, res) => {
    const url = req.url ?? '/';
    const prefix = ['/open/', '/basic/'].find((candidate) => url.startsWith(candidate));
    if (!prefix) {
      res.writeHead(404).end();
      return;
    }
    if (prefix === '/basic/' && req.headers.authorization !== basicAuthorization) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    forwardTo(req, res, everything.port, `/${url.slice(prefix.length)}`);
  });
  await new Promise<void>((resolve, reject) => {
    proxy.once('error', reject);
    proxy.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const origin = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return {
    caFile: join(dir, 'ca.pem'),
    openUrl: `${origin}/open/mcp`,
    basicUrl: `${origin}/basic/mcp`,
    async stop() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await stopChild(everything.child);
      if (!options.certificatesDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Passes a request on to 127.0.0.1:`port` at `path` and its answer back; 502 if none comes. */
export function forwardTo(
  req: IncomingMessage,
  res: ServerResponse,
  port: number,
  path: string,
): void {
  const headers = { ...req.headers, host: `127.0.0.1:${port}` };
  const upstream = httpRequest(
    { host: '127.0.0.1', port, method: req.method, path, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
}

/** The command `@modelcontextprotocol/server-everything` publishes (its package.json `bin`). */
function everythingCommand(): string {
  const manifestPath = createRequire(join(process.cwd(), 'package.json')).resolve(
    '@modelcontextprotocol/server-everything/package.json',
  );
  const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: Record<string, string> };
  const command = bin['mcp-server-everything'];
  if (!command) throw new Error(`${manifestPath} no longer publishes mcp-server-everything`);
  return join(dirname(manifestPath), command);
}

/**
 * Starts server-everything over Streamable HTTP or legacy SSE on a free port, with a clean
 * environment: one of its tools prints the environment.
 */
export async function startEverythingProcess(
  mode: 'streamableHttp' | 'sse' = 'streamableHttp',
): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingCommand(), mode], {
    env: { PORT: String(port), PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server-everything ${mode} did not start:\n${output}`)),
      30_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening|running/i.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything ${mode} exited (${String(code)}):\n${output}`));
    });
  });
  return { port, child };
}

/** Stops a child process and waits for it to exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}
