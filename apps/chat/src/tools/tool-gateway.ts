import type { z } from 'zod';
import {
  type CallToolReply,
  MCP_SUBJECTS,
  type CancelToolCall,
  type ToolDescriptor,
  BUS_APIS,
} from '@wap/contracts';
import { encodeJson, type Bus } from '@wap/platform';
import { callApi, injectTraceHeaders } from '@wap/bus-protocol';

export type ToolDescription = z.infer<typeof ToolDescriptor>;
export type ToolCallResult = z.infer<typeof CallToolReply>;

/** How long listing the caller's tools may take before the turn goes on without tools. */
const LIST_TIMEOUT_MS = 5_000;

/**
 * The assistant's way to MCP tools: mcp-registry's bus API lists the tools the user may use in
 * the workspace and calls one as that user, access modes enforced there.
 */
export function createToolGateway(deps: { bus: Bus; callTimeoutMs: number }) {
  const { bus } = deps;
  return {
    async list(workspaceId: string, userId: string): Promise<ToolDescription[]> {
      const reply = await callApi(
        bus,
        BUS_APIS.listTools,
        { workspaceId, userId },
        { timeoutMs: LIST_TIMEOUT_MS },
      );
      return reply.tools;
    },

    /** Calls a tool; `callId` lets `cancel` stop it at the MCP server while it runs. */
    call(request: {
      workspaceId: string;
      userId: string;
      toolId: string;
      arguments: Record<string, unknown>;
      callId: string;
    }): Promise<ToolCallResult> {
      return callApi(
        bus,
        BUS_APIS.callTool,
        { ...request, timeoutMs: deps.callTimeoutMs },
        // The bus waits a little longer than the registry, whose timeout answers first.
        { timeoutMs: deps.callTimeoutMs + 5_000 },
      );
    },

    cancel(callId: string): void {
      const message: CancelToolCall = { callId };
      bus.publish(MCP_SUBJECTS.cancelToolCall, encodeJson(message), injectTraceHeaders());
    },
  };
}

export type ToolGateway = ReturnType<typeof createToolGateway>;
