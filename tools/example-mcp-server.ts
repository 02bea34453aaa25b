// Starts an example MCP server on this machine that `npm start` can register: the official
// `@modelcontextprotocol/server-everything` over HTTPS (the registry connects to https only),
// with a CA of its own kept in DATA_DIR/example-mcp. Prints what npm start needs to trust it.
//   npm run example:mcp            (EXAMPLE_MCP_PORT, default 3443)
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startEverythingMcpServer } from '@wap/testing';

async function main(): Promise<void> {
  const port = Number(process.env['EXAMPLE_MCP_PORT'] ?? '3443');
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(
      `EXAMPLE_MCP_PORT must be a port number, not ${process.env['EXAMPLE_MCP_PORT']}`,
    );
  }
  const certificatesDir = resolve(process.env['DATA_DIR'] ?? './data', 'example-mcp');
  mkdirSync(certificatesDir, { recursive: true });
  const server = await startEverythingMcpServer({ port, certificatesDir });
  const caFile = join(certificatesDir, 'ca.pem');
  process.stdout.write(
    [
      `Example MCP server (server-everything) at ${server.openUrl}`,
      '',
      'Start the platform so that it accepts this server (a private address, its own CA):',
      `  MCP_SSRF_ALLOWLIST=127.0.0.1 MCP_EXTRA_CA_CERTS=${caFile} npm start`,
      `then register ${server.openUrl} under MCP servers. Ctrl+C stops it.`,
      '',
    ].join('\n'),
  );
  const stop = () => void server.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
