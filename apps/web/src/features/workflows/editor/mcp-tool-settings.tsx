import { ErrorMessage, LoadingState, SelectField } from '../../../components';
import { useUsableTools, type McpToolRecord } from '../api/workflows-api';
import { isRecord, type JsonSchema } from '../schema-form/json-schema';
import { SchemaForm, type PathErrors } from '../schema-form/schema-form';

export interface McpToolSettingsProps {
  workspaceId: string;
  settings: Record<string, unknown>;
  errors: PathErrors;
  onChange: (settings: Record<string, unknown>) => void;
  onJsonValidityChange: (path: string, valid: boolean) => void;
}

/** Edited when the step's tool is not among the usable ones: its arguments as JSON. */
const ANY_ARGUMENTS: JsonSchema = {
  type: 'object',
  properties: { arguments: { type: 'object', title: 'Arguments (JSON)' } },
};

function chosenTool(
  tools: readonly McpToolRecord[],
  settings: Record<string, unknown>,
): McpToolRecord | undefined {
  if (typeof settings['toolId'] === 'string') {
    return tools.find((tool) => tool.id === settings['toolId']);
  }
  return tools.find(
    (tool) => tool.mcpServerId === settings['serverId'] && tool.name === settings['toolName'],
  );
}

/** Errors under `arguments.` with that prefix taken off, for the arguments' own form. */
function argumentErrors(errors: PathErrors): PathErrors {
  return Object.fromEntries(
    Object.entries(errors).flatMap(([path, message]) =>
      path.startsWith('arguments.') ? [[path.slice('arguments.'.length), message]] : [],
    ),
  );
}

/**
 * An MCP-tool step: a server and one of its tools picked from the workspace's usable tools, then
 * a form generated from the tool's input schema for its arguments. Settings are saved as
 * `serverId` and `toolName` (a tool id given through the API is shown and replaced on change).
 */
export function McpToolSettings(props: McpToolSettingsProps) {
  const tools = useUsableTools(props.workspaceId);
  const { settings } = props;
  if (tools.isPending) return <LoadingState label="Loading the workspace's MCP tools…" />;
  if (tools.isError) return <ErrorMessage error={tools.error} title="Could not load the tools" />;

  const usable = tools.data;
  const tool = chosenTool(usable, settings);
  const serverId = tool?.mcpServerId ?? (settings['serverId'] as string | undefined) ?? '';
  const servers = [
    ...new Map(usable.map((candidate) => [candidate.mcpServerId, candidate.mcpServerName])),
  ];
  const serverTools = usable.filter((candidate) => candidate.mcpServerId === serverId);
  const args = isRecord(settings['arguments']) ? settings['arguments'] : {};
  const missing = props.errors[''] ? 'Choose a server and a tool.' : undefined;
  const choose = (nextServerId: string, toolName: string | undefined) =>
    props.onChange({
      serverId: nextServerId || undefined,
      toolName,
      // Arguments belong to one tool: another tool starts from none.
      arguments: toolName === tool?.name && nextServerId === serverId ? args : {},
    });

  if (servers.length === 0) {
    return (
      <p className="wf-step__notice">
        No MCP tools are available in this workspace to you yet: register a server under MCP
        servers, then come back.
      </p>
    );
  }
  return (
    <div className="schema-form">
      <SelectField
        label="MCP server"
        value={serverId}
        error={tool ? undefined : (props.errors['serverId'] ?? missing)}
        options={[
          { value: '', label: 'Choose…' },
          ...servers.map(([id, name]) => ({ value: id, label: name })),
        ]}
        onChange={(event) => choose(event.target.value, undefined)}
      />
      {serverId && (
        <SelectField
          label="Tool"
          value={tool?.name ?? ''}
          error={tool ? undefined : (props.errors['toolName'] ?? missing)}
          options={[
            { value: '', label: 'Choose…' },
            ...serverTools.map((candidate) => ({ value: candidate.name, label: candidate.name })),
          ]}
          onChange={(event) => choose(serverId, event.target.value || undefined)}
        />
      )}
      {tool?.description && <p className="field__hint">{tool.description}</p>}
      {!tool && (settings['toolId'] !== undefined || settings['toolName'] !== undefined) && (
        <p className="wf-step__notice">
          The tool this step names is not available to you (removed, disabled or not shared): choose
          another, or keep its arguments below.
        </p>
      )}
      <ToolArguments tool={tool} args={args} {...props} />
    </div>
  );
}

/** The tool's arguments: a form of its input schema, or one JSON object when it is not known. */
function ToolArguments(
  props: McpToolSettingsProps & { tool: McpToolRecord | undefined; args: Record<string, unknown> },
) {
  const { tool, args, settings } = props;
  return tool ? (
    <fieldset className="schema-form__group">
      <legend className="field__label">Arguments of {tool.name}</legend>
      <SchemaForm
        schema={tool.inputSchema as JsonSchema}
        value={args}
        errors={argumentErrors(props.errors)}
        onChange={(next) => props.onChange({ ...settings, arguments: next })}
        onJsonValidityChange={(path, valid) =>
          props.onJsonValidityChange(`arguments.${path}`, valid)
        }
      />
    </fieldset>
  ) : (
    <SchemaForm
      schema={ANY_ARGUMENTS}
      value={{ arguments: args }}
      errors={props.errors}
      onChange={(next) =>
        props.onChange({
          ...settings,
          arguments: isRecord(next['arguments']) ? next['arguments'] : {},
        })
      }
      onJsonValidityChange={props.onJsonValidityChange}
    />
  );
}
