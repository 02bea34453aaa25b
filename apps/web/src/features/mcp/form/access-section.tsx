import { Link } from 'react-router';
import { McpAccessMode } from '@wap/contracts';
import { ErrorMessage, LoadingState, RadioGroup } from '../../../components';
import { appPaths } from '../../../lib/routing';
import { useMembers } from '../../workspace';
import { ACCESS_MODE_LABELS } from '../server-words';
import { takesMembers } from './server-form-model';

const ACCESS_OPTIONS = McpAccessMode.options.map((mode) => ({
  value: mode,
  label: ACCESS_MODE_LABELS[mode],
}));

/**
 * Who may see and use the server (docs/decisions/0021); for the two modes that name people,
 * the members to give it to. Whoever registers a server can always use it.
 */
export function AccessSection(props: {
  workspaceId: string;
  /** The person filling the form: always has access, so not offered. */
  creatorId: string | undefined;
  accessMode: McpAccessMode;
  accessibleTo: string[];
  onChange: (change: { accessMode?: McpAccessMode; accessibleTo?: string[] }) => void;
  error?: string;
}) {
  return (
    <div className="mcp-form__group">
      <RadioGroup
        legend="Who may use it"
        description="Whoever registers a server can always use it; its creator and the workspace owners manage it."
        options={ACCESS_OPTIONS}
        value={props.accessMode}
        onChange={(mode) => props.onChange({ accessMode: mode as McpAccessMode })}
      />
      {takesMembers(props.accessMode) && <MemberPicker {...props} />}
    </div>
  );
}

function MemberPicker(props: Parameters<typeof AccessSection>[0]) {
  const members = useMembers(props.workspaceId, true);
  const chosen = new Set(props.accessibleTo);
  const toggle = (userId: string, on: boolean) =>
    props.onChange({
      accessibleTo: on
        ? [...props.accessibleTo, userId]
        : props.accessibleTo.filter((id) => id !== userId),
    });
  const others = (members.data?.members ?? []).filter(
    (member) => member.user_id !== props.creatorId,
  );
  const known = new Set(members.data?.members.map((member) => member.user_id));
  // Chosen before and no longer members: shown so they can be taken off.
  const departed = members.data ? props.accessibleTo.filter((id) => !known.has(id)) : [];
  return (
    <fieldset className="mcp-form__subgroup" aria-invalid={props.error ? true : undefined}>
      <legend className="field__label">Members who may use it</legend>
      {props.error && <p className="field__error">{props.error}</p>}
      {members.isPending && <LoadingState label="Loading the members…" />}
      {members.isError && (
        <ErrorMessage error={members.error} title="The members could not be listed." />
      )}
      {members.data && others.length === 0 && departed.length === 0 && (
        <p className="field__hint">
          You are the only member.{' '}
          <Link to={appPaths.workspace(props.workspaceId, 'members')}>Add members</Link> to give
          them this server.
        </p>
      )}
      {(others.length > 0 || departed.length > 0) && (
        <ul className="mcp-member-list">
          {others.map((member) => (
            <li key={member.user_id}>
              <label className="mcp-member-list__option">
                <input
                  type="checkbox"
                  checked={chosen.has(member.user_id)}
                  onChange={(event) => toggle(member.user_id, event.target.checked)}
                />
                <span>
                  {member.name} <span className="mcp-muted">({member.email})</span>
                </span>
              </label>
            </li>
          ))}
          {departed.map((userId) => (
            <li key={userId}>
              <label className="mcp-member-list__option">
                <input
                  type="checkbox"
                  checked
                  onChange={(event) => toggle(userId, event.target.checked)}
                />
                <span>No longer a member ({userId})</span>
              </label>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}
