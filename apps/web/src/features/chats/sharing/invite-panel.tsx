import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { InviteBody, type ViewedConversation } from '@wap/contracts';
import { Button, ErrorMessage, LoadingState, Panel, StatusMessage } from '../../../components';
import { validateForm } from '../../../lib/forms';
import { appPaths } from '../../../lib/routing';
import { useMembers, type Member } from '../../workspace';
import { useInvite } from '../api/chats-api';

/** Shares the chat with chosen members of the workspace, with or without edit rights. */
export function InvitePanel(props: { chat: ViewedConversation }) {
  const { chat } = props;
  const members = useMembers(chat.workspace_id);
  const invite = useInvite(chat.id);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [canEdit, setCanEdit] = useState(false);
  const [error, setError] = useState<string>();
  const [outcome, setOutcome] = useState<string>();

  const candidates = (members.data?.members ?? []).filter(
    (member) => member.user_id !== chat.user_id,
  );
  const nameOf = (userId: string) =>
    members.data?.members.find((member) => member.user_id === userId)?.name ?? 'A member';

  const toggle = (member: Member, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(member.user_id);
    else next.delete(member.user_id);
    setChosen(next);
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (chosen.size === 0) {
      setError('Choose at least one person.');
      return;
    }
    const result = validateForm(InviteBody, { userIds: [...chosen], canEdit });
    if (!result.ok) {
      setError(result.errors['userIds'] ?? 'These people cannot be invited.');
      return;
    }
    setError(undefined);
    const names = result.data.userIds.map(nameOf).join(', ');
    invite.mutate(result.data, {
      onSuccess: () => {
        setOutcome(`Invited ${names} ${result.data.canEdit ? 'with edit rights' : 'to read'}.`);
        setChosen(new Set());
      },
    });
  };

  return (
    <Panel
      title="Invite people"
      description="Invited people open the chat unless it is set to “Only me”; inviting someone to a private chat shares it with the people you invite."
    >
      {members.isPending && <LoadingState label="Loading the workspace's members…" />}
      {members.isError && <ErrorMessage error={members.error} />}
      {members.isSuccess && candidates.length === 0 && (
        <p>
          Nobody else is in this workspace yet.{' '}
          <Link to={appPaths.workspace(chat.workspace_id, 'members')}>Add members</Link> first.
        </p>
      )}
      {candidates.length > 0 && (
        <form onSubmit={submit} noValidate>
          {invite.isError && <ErrorMessage error={invite.error} />}
          <MemberPicker candidates={candidates} chosen={chosen} error={error} onToggle={toggle} />
          <label className="member-picker__option member-picker__can-edit">
            <input
              type="checkbox"
              checked={canEdit}
              onChange={(event) => setCanEdit(event.target.checked)}
            />
            Can edit: send messages, rename and archive
          </label>
          <Button type="submit" variant="primary" busy={invite.isPending}>
            Invite
          </Button>
        </form>
      )}
      {outcome && <StatusMessage>{outcome}</StatusMessage>}
    </Panel>
  );
}

/** The workspace's members to choose from, and why the choice cannot be sent. */
function MemberPicker(props: {
  candidates: readonly Member[];
  chosen: ReadonlySet<string>;
  error: string | undefined;
  onToggle: (member: Member, on: boolean) => void;
}) {
  const errorId = useId();
  return (
    <>
      <fieldset className="member-picker" aria-describedby={props.error ? errorId : undefined}>
        <legend className="field__label">People</legend>
        {props.candidates.map((member) => (
          <label key={member.user_id} className="member-picker__option">
            <input
              type="checkbox"
              checked={props.chosen.has(member.user_id)}
              onChange={(event) => props.onToggle(member, event.target.checked)}
            />
            <span>
              {member.name} <span className="member-picker__email">{member.email}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {props.error && (
        <p className="field__error" id={errorId}>
          {props.error}
        </p>
      )}
    </>
  );
}
