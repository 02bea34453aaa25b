import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server, createMcpHandler } from '@modelcontextprotocol/server';
import { makeTestCertificates } from '@wap/testing';

/** The bench's MCP server: `toolCount` tools listed `pageSize` at a time, over HTTPS with a throw-away CA. */
export interface BenchToolServer {
  url: string;
  caPem: string;
  stop(): Promise<void>;
}

function certificates(): { caPem: string; keyPem: string; certPem: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'wap-bench-mcp-'));
  return { ...makeTestCertificates(dir, 'bench CA'), dir };
}

export async function startBenchToolServer(options: {
  toolCount: number;
  pageSize: number;
}): Promise<BenchToolServer> {
  const tools = Array.from({ length: options.toolCount }, (_, index) => ({
    name: index === 0 ? 'echo' : `tool_${index}`,
    description: `Bench tool number ${index}: returns its arguments.`,
    inputSchema: {
      type: 'object' as const,
      properties: { message: { type: 'string', description: 'What to send back' } },
    },
  }));
  const handler = createMcpHandler(
    () => {
      const server = new Server(
        { name: 'bench-tools', version: '1.0.0' },
        { capabilities: { tools: {} } },
      );
      server.setRequestHandler('tools/list', (request) => {
        const start = Number(request.params?.cursor ?? '0');
        const next = start + options.pageSize;
        return {
          tools: tools.slice(start, next),
          ...(next < tools.length ? { nextCursor: String(next) } : {}),
        };
      });
      server.setRequestHandler('tools/call', (request) => ({
        content: [{ type: 'text', text: JSON.stringify(request.params.arguments ?? {}) }],
      }));
      return server;
    },
    { legacy: 'stateless', responseMode: 'json' },
  );
  const { caPem, keyPem, certPem, dir } = certificates();
  const https: HttpsServer = createServer({ key: keyPem, cert: certPem }, (req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      const response = await handler.fetch(
        new Request(`https://127.0.0.1${req.url ?? '/'}`, {
          method: req.method,
          headers,
          body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  const { port } = https.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/mcp`,
    caPem,
    async stop() {
      await handler.close();
      https.closeAllConnections();
      await new Promise<void>((resolve) => https.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Run as its own process (`tsx bench/mcp/tool-server.ts <tools> <pageSize>`), so the bench's
// measurements do not share a CPU with the server: prints {url, caPem} as one JSON line.
if (require.main === module) {
  void startBenchToolServer({
    toolCount: Number(process.argv[2] ?? '500'),
    pageSize: Number(process.argv[3] ?? '100'),
  }).then((server) => {
    process.stdout.write(`${JSON.stringify({ url: server.url, caPem: server.caPem })}\n`);
    process.once('SIGTERM', () => {
      void server.stop().then(() => process.exit(0));
    });
  });
}
