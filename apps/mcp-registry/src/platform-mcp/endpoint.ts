import type { Logger } from 'pino';
import { z } from 'zod';
import { McpServer, createMcpHandler, type CallToolResult } from '@modelcontextprotocol/server';
import {
  AppError,
  BUS_APIS,
  type ApiKeyPrincipal,
  type RawServiceRequest,
  type BusApi,
  type ServiceReply,
} from '@wap/contracts';
import { BusTimeoutError, NoRespondersError, type Bus } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';

/** How long the workflow runner may take to answer one MCP tool call. */
const WORKFLOW_CALL_TIMEOUT_MS = 10_000;

function result(value: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

function failure(error: unknown): CallToolResult {
  let message = 'The workflow service failed';
  if (error instanceof AppError) message = error.message;
  else if (error instanceof NoRespondersError || error instanceof BusTimeoutError) {
    message = 'The workflow service is unavailable';
  }
  return { isError: true, content: [{ type: 'text', text: message }] };
}

function principalOf(extra: Record<string, unknown> | undefined): ApiKeyPrincipal {
  const principal = extra?.['principal'] as ApiKeyPrincipal | undefined;
  if (!principal) throw new AppError('UNAUTHORIZED', 'A workspace API key is required');
  return principal;
}

/** The platform's own MCP server: its tools act for the API key's workspace. */
function buildServer(bus: Bus, principal: ApiKeyPrincipal): McpServer {
  const server = new McpServer({ name: 'workspace-automation', version: '1.0.0' });
  const call = async <Request extends z.ZodType, Reply extends z.ZodType>(
    api: BusApi<Request, Reply>,
    payload: z.input<Request>,
  ): Promise<CallToolResult> => {
    try {
      return result(await callApi(bus, api, payload, { timeoutMs: WORKFLOW_CALL_TIMEOUT_MS }));
    } catch (error) {
      return failure(error);
    }
  };
  server.registerTool(
    'list_workflows',
    { description: 'List the workflows of this workspace with their status and credit cost.' },
    () => call(BUS_APIS.listWorkflows, { workspaceId: principal.workspaceId }),
  );
  server.registerTool(
    'run_workflow',
    {
      description:
        'Start a run of a workflow of this workspace; credits are charged like a webhook run.',
      inputSchema: z.object({
        workflowId: z.uuid().describe('The workflow to run'),
        input: z.record(z.string(), z.unknown()).optional().describe('Data the run starts with'),
      }),
    },
    ({ workflowId, input }) =>
      call(BUS_APIS.startRun, {
        workspaceId: principal.workspaceId,
        workflowId,
        keyId: principal.keyId,
        input: input ?? {},
      }),
  );
  server.registerTool(
    'get_run',
    {
      description: 'The status, steps and credits of one run of this workspace.',
      inputSchema: z.object({ runId: z.uuid().describe('The run id run_workflow returned') }),
    },
    ({ runId }) => call(BUS_APIS.getRun, { workspaceId: principal.workspaceId, runId }),
  );
  server.registerTool(
    'retry_run',
    {
      description:
        'Retry an ended run of this workspace as a new run: from its failed step (the steps before keep their outputs and are not charged again) or from the start.',
      inputSchema: z.object({
        runId: z.uuid().describe('The run to retry'),
        from: z
          .enum(['failed_step', 'start'])
          .default('failed_step')
          .describe('Where the retry starts'),
      }),
    },
    ({ runId, from }) =>
      call(BUS_APIS.retryRun, { workspaceId: principal.workspaceId, runId, from }),
  );
  return server;
}

function methodNotAllowed(): ServiceReply {
  return {
    status: 405,
    headers: { allow: 'POST' },
    body: { error: 'Method not allowed: this MCP server is stateless', code: 'METHOD_NOT_ALLOWED' },
  };
}

/**
 * POST /mcp over Streamable HTTP in stateless JSON-response mode (both protocol eras): every
 * request gets a fresh server bound to the key's workspace, answered as one JSON body. GET
 * (server stream) and DELETE (session end) are 405, as the transport spec allows.
 */
export function createPlatformMcpEndpoint(deps: { bus: Bus; logger: Logger }) {
  const handler = createMcpHandler(
    (context) => buildServer(deps.bus, principalOf(context.authInfo?.extra)),
    {
      legacy: 'stateless',
      responseMode: 'json',
      onerror: (error) => deps.logger.warn({ err: error }, 'mcp endpoint error'),
    },
  );

  return {
    async post(request: RawServiceRequest): Promise<ServiceReply> {
      if (!request.apiKey) throw new AppError('UNAUTHORIZED', 'A workspace API key is required');
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(request.query)) {
        for (const item of Array.isArray(value) ? value : [value]) search.append(name, item);
      }
      const query = search.size > 0 ? `?${search.toString()}` : '';
      const url = `${request.protocol}://${request.host}${request.path}${query}`;
      // The Host header is the caller's to send: one that makes no URL is their mistake.
      if (!URL.canParse(url)) throw new AppError('BAD_REQUEST', 'The Host header is not valid');
      const webRequest = new Request(url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
      });
      const response = await handler.fetch(webRequest, {
        authInfo: {
          token: '',
          clientId: request.apiKey.keyId,
          scopes: [],
          extra: { principal: request.apiKey },
        },
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const text = await response.text();
      if (!text) return { status: response.status, headers };
      if ((headers['content-type'] ?? '').includes('application/json')) {
        return { status: response.status, headers, body: JSON.parse(text) as unknown };
      }
      return { status: response.status, headers, body: text, bodyKind: 'text' };
    },
    stream: async (): Promise<ServiceReply> => methodNotAllowed(),
    session: async (): Promise<ServiceReply> => methodNotAllowed(),
    close: () => handler.close(),
  };
}
