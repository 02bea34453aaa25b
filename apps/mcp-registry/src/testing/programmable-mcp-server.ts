import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, createMcpHandler } from '@modelcontextprotocol/server';

/** A tool the programmable server lists. */
export interface TestTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ProgrammableMcpServer {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  /** What tools/list answers; change it between syncs. */
  tools: TestTool[];
  /** Tools per tools/list page. */
  pageSize: number;
  /** tools/list requests served, for pagination assertions. */
  listRequests: number;
  /** When set, the next tools/call tells the client that the tool list changed. */
  announceChangeOnNextCall: boolean;
  stop(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A real MCP server (the SDK's low-level Server over Streamable HTTP, stateless, both eras)
 * whose tool list, page size and change notifications a test controls.
 */
export async function startProgrammableMcpServer(
  initialTools: TestTool[] = [],
): Promise<ProgrammableMcpServer> {
  const state = {
    tools: initialTools,
    pageSize: 100,
    listRequests: 0,
    announceChangeOnNextCall: false,
  };
  const handler = createMcpHandler(
    () => {
      const server = new Server(
        { name: 'programmable', version: '1.0.0' },
        { capabilities: { tools: { listChanged: true } } },
      );
      server.setRequestHandler('tools/list', (request) => {
        state.listRequests += 1;
        const start = Number(request.params?.cursor ?? '0');
        const page = state.tools.slice(start, start + state.pageSize);
        const next = start + state.pageSize;
        return {
          tools: page.map((tool) => ({
            ...tool,
            inputSchema: { type: 'object', ...tool.inputSchema },
          })),
          ...(next < state.tools.length ? { nextCursor: String(next) } : {}),
        };
      });
      server.setRequestHandler('tools/call', async (request, context) => {
        if (state.announceChangeOnNextCall) {
          state.announceChangeOnNextCall = false;
          await context.mcpReq.notify({ method: 'notifications/tools/list_changed' });
        }
        return {
          content: [
            {
              type: 'text',
              text: JSON.stringify({ tool: request.params.name, args: request.params.arguments }),
            },
          ],
        };
      });
      return server;
    },
    { legacy: 'stateless', responseMode: 'auto' },
  );
  const http: HttpServer = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      const response = await handler.fetch(
        new Request(`http://127.0.0.1${req.url ?? '/'}`, {
          method: req.method,
          headers,
          body: req.method === 'POST' ? body : undefined,
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      // Streamed, not buffered: an event stream stays open while the client reads it.
      if (!response.body) {
        res.end();
        return;
      }
      for await (const chunk of response.body) res.write(chunk);
      res.end();
    })().catch(() => {
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  });
}
