import { toModelTools } from './model-tools';
import type { ToolDescription } from './tool-gateway';

function tool(name: string, serverName = 'one', id = `${serverName}:${name}`): ToolDescription {
  return {
    id,
    name,
    description: `${name} tool`,
    serverId: serverName,
    serverName,
    inputSchema: { properties: { a: { type: 'string' } } },
  };
}

describe('the MCP tools as model functions', () => {
  test.each([
    ['echo', 'echo'],
    ['trigger-long-running-operation', 'trigger-long-running-operation'],
    ['files.read', 'files_read'],
    ['résumé tool', 'r_sum__tool'],
    ['x'.repeat(80), 'x'.repeat(64)],
  ])('%s is offered as %s', (name, functionName) => {
    const tools = toModelTools([tool(name)]);
    expect(tools.definitions[0]?.function.name).toBe(functionName);
    expect(tools.find(functionName)?.name).toBe(name);
  });

  test('two servers with a tool of one name get distinct function names, each found again', () => {
    const tools = toModelTools([tool('search', 'docs'), tool('search', 'tickets')]);
    expect(tools.names()).toEqual(['search', 'search_2']);
    expect(tools.find('search')?.serverName).toBe('docs');
    expect(tools.find('search_2')?.serverName).toBe('tickets');
  });

  test('a definition carries the description and the input schema as an object schema', () => {
    const [definition] = toModelTools([tool('echo')]).definitions;
    expect(definition).toEqual({
      type: 'function',
      function: {
        name: 'echo',
        description: 'echo tool',
        parameters: { type: 'object', properties: { a: { type: 'string' } } },
      },
    });
  });

  test('a tool is found by its MCP name too, and an unknown name finds nothing', () => {
    const tools = toModelTools([tool('files.read')]);
    expect(tools.find('files.read')?.name).toBe('files.read');
    expect(tools.find('nothing')).toBeUndefined();
  });
});
