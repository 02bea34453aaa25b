import {
  Client,
  SSEClientTransport,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { GuardedFetch } from '@wap/egress';
import type { TransportKind } from '../servers/repository';

/** An open MCP session with a registered server. */
export interface McpConnection {
  client: Client;
  transport: TransportKind;
  close(): Promise<void>;
}

export interface ConnectOptions {
  url: string;
  headers: Record<string, string>;
  fetch: GuardedFetch;
  connectTimeoutMs: number;
  /** Called when the server says its tool list changed (a re-sync is due). */
  onToolsChanged?: () => void;
}

/** Statuses after which a server is tried again with the legacy HTTP+SSE transport. */
const FALLBACK_STATUSES = new Set([400, 404, 405]);

const CLIENT_INFO = { name: 'wap-mcp-registry', version: '1.0.0' };

function newClient(options: ConnectOptions): Client {
  return new Client(CLIENT_INFO, {
    // Both eras: server/discover (2026-07-28) when the server has it, else initialize.
    versionNegotiation: { mode: 'auto' },
    ...(options.onToolsChanged
      ? {
          listChanged: {
            tools: { autoRefresh: false, onChanged: () => options.onToolsChanged?.() },
          },
        }
      : {}),
  });
}

/** The HTTP status a failed connect saw, when the failure was an HTTP answer. */
export function httpStatusOf(error: unknown): number | undefined {
  return error instanceof SdkHttpError ? error.status : undefined;
}

/**
 * Connects with Streamable HTTP first and falls back to the legacy SSE transport only when the
 * server answered 400, 404 or 405 (a server that predates Streamable HTTP); 401 and 403 are
 * credential problems and are reported as they are, never retried on another transport.
 */
export async function connectToServer(options: ConnectOptions): Promise<McpConnection> {
  const url = new URL(options.url);
  const requestInit = { headers: options.headers };
  const streamable = newClient(options);
  try {
    await streamable.connect(
      new StreamableHTTPClientTransport(url, { fetch: options.fetch, requestInit }),
      { timeout: options.connectTimeoutMs },
    );
    return { client: streamable, transport: 'streamable_http', close: () => streamable.close() };
  } catch (error) {
    await streamable.close().catch(() => undefined);
    const status = httpStatusOf(error);
    if (status === undefined || !FALLBACK_STATUSES.has(status)) throw error;
  }
  const legacy = newClient(options);
  try {
    await legacy.connect(
      new SSEClientTransport(url, {
        fetch: options.fetch,
        requestInit,
        eventSourceInit: {
          fetch: (input, init) =>
            options.fetch(String(input), {
              ...init,
              headers: { ...options.headers, ...(init.headers as Record<string, string>) },
            }),
        },
      }),
      { timeout: options.connectTimeoutMs },
    );
  } catch (error) {
    await legacy.close().catch(() => undefined);
    throw error;
  }
  return { client: legacy, transport: 'sse', close: () => legacy.close() };
}
