import { useId } from 'react';
import { Button, LoadingState } from '../../../components';
import { useMe, useMembers } from '../../workspace';
import type { FieldOverrideProps } from '../schema-form/schema-form';

/**
 * The reviewers of an approval step: the workspace's members to tick, where the platform lists
 * them; otherwise the generated list of user IDs, with the person's own ID to add in one click.
 */
export function ReviewerPicker(props: FieldOverrideProps & { workspaceId: string }) {
  const members = useMembers(props.workspaceId);
  const me = useMe();
  const id = useId();
  const chosen = Array.isArray(props.value)
    ? props.value.filter((item): item is string => typeof item === 'string')
    : [];
  const myId = me.data?.user.id;

  if (members.isPending) return <LoadingState label="Loading the members…" />;

  if (members.isError) {
    return <ReviewerIds {...props} chosen={chosen} myId={myId} />;
  }

  const known = new Set(members.data.members.map((member) => member.user_id));
  const others = chosen.filter((userId) => userId !== '' && !known.has(userId));
  const errorId = props.error ? `${id}-error` : undefined;
  const toggle = (userId: string, checked: boolean) =>
    props.onChange(
      checked
        ? [...chosen.filter((item) => item !== ''), userId]
        : chosen.filter((item) => item !== userId),
    );
  return (
    <fieldset className="schema-form__group" aria-describedby={errorId}>
      <legend className="field__label">
        Reviewers
        <span className="schema-form__required" aria-hidden="true">
          {' '}
          *
        </span>
      </legend>
      <p className="field__hint">Any one of them decides for all; they find it in Approvals.</p>
      {props.error && (
        <p className="field__error" id={errorId}>
          {props.error}
        </p>
      )}
      {members.data.members.map((member) => (
        <label key={member.user_id} className="schema-form__choice">
          <input
            type="checkbox"
            checked={chosen.includes(member.user_id)}
            onChange={(event) => toggle(member.user_id, event.target.checked)}
          />
          {member.name} ({member.email}){member.user_id === myId ? ', you' : ''}
        </label>
      ))}
      {others.map((userId) => (
        <label key={userId} className="schema-form__choice">
          <input
            type="checkbox"
            checked
            onChange={(event) => toggle(userId, event.target.checked)}
          />
          User {userId} (not a member)
        </label>
      ))}
    </fieldset>
  );
}

/** Without the member list: the generated list of user IDs, and the person's own to add. */
function ReviewerIds(
  props: FieldOverrideProps & { chosen: readonly string[]; myId: string | undefined },
) {
  const { chosen, myId } = props;
  const addMe = () => {
    if (!myId || chosen.includes(myId)) return;
    const filled = chosen.filter((item) => item !== '');
    props.onChange([...filled, myId]);
  };
  return (
    <div className="wf-reviewers">
      {props.generated}
      <p className="field__hint">
        The members of the workspace cannot be listed here: enter each reviewer&apos;s user ID.
        {myId && (
          <>
            {' '}
            Yours is <code>{myId}</code>.
          </>
        )}
      </p>
      {myId && (
        <p>
          <Button onClick={addMe} disabled={chosen.includes(myId)}>
            Add me as a reviewer
          </Button>
        </p>
      )}
    </div>
  );
}
