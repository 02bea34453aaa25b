import type { ChatCompletionFunctionTool } from '../brain/model-client';
import type { ToolDescription } from './tool-gateway';

/** Function names a Chat Completions provider accepts. */
const FUNCTION_NAME_MAX = 64;

/** The caller's MCP tools as the model sees them, found again by the name the model calls. */
export interface ModelTools {
  definitions: ChatCompletionFunctionTool[];
  /** The MCP tool behind a function name the model used, or behind the MCP tool's own name. */
  find(name: string): ToolDescription | undefined;
  /** Names of the tools, for messages to the user. */
  names(): string[];
}

/**
 * Gives each tool a function name the providers accept (letters, digits, `_` and `-`, at most
 * 64), unique even when two servers offer a tool of the same name.
 */
export function toModelTools(tools: ToolDescription[]): ModelTools {
  const byFunctionName = new Map<string, ToolDescription>();
  const definitions: ChatCompletionFunctionTool[] = [];
  for (const tool of tools) {
    const base = tool.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, FUNCTION_NAME_MAX) || 'tool';
    let name = base;
    for (let n = 2; byFunctionName.has(name); n += 1) {
      const suffix = `_${n}`;
      name = `${base.slice(0, FUNCTION_NAME_MAX - suffix.length)}${suffix}`;
    }
    byFunctionName.set(name, tool);
    definitions.push({
      type: 'function',
      function: {
        name,
        description: tool.description.slice(0, 1024),
        parameters: { type: 'object', ...tool.inputSchema },
      },
    });
  }
  return {
    definitions,
    find: (name) =>
      byFunctionName.get(name) ?? [...byFunctionName.values()].find((tool) => tool.name === name),
    names: () => [...byFunctionName.keys()],
  };
}
