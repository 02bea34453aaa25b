import { useState, type FormEvent } from 'react';
import { AddMemberBody, type WorkspaceRole } from '@wap/contracts';
import {
  Button,
  ConfirmButton,
  EmptyState,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  SelectField,
  StatusMessage,
  TextField,
} from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { useWorkspaceId } from '../../../lib/routing';
import {
  findWorkspace,
  useAddMember,
  useChangeRole,
  useMe,
  useMembers,
  useRemoveMember,
  type Member,
} from '../api/workspace-api';
import '../workspace.css';

const ROLE_OPTIONS = [
  { value: 'member', label: 'Member' },
  { value: 'owner', label: 'Owner' },
] as const satisfies readonly { value: WorkspaceRole; label: string }[];

const ROLE_LABELS: Record<WorkspaceRole, string> = { owner: 'Owner', member: 'Member' };
const ROLE_ARTICLES: Record<WorkspaceRole, string> = { owner: 'an owner', member: 'a member' };

const joinedFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function MembersPage() {
  const workspaceId = useWorkspaceId();
  const me = useMe();
  const isOwner = findWorkspace(me.data, workspaceId)?.role === 'owner';
  return (
    <>
      <PageHeader
        title="Members"
        description="Members use the workspace's chats, workflows and data; owners also manage it."
      />
      {isOwner ? (
        <AddMemberPanel workspaceId={workspaceId} />
      ) : (
        <p>Only the workspace&apos;s owners add members. Ask one of them to add a colleague.</p>
      )}
      <MemberList workspaceId={workspaceId} isOwner={isOwner} myId={me.data?.user.id} />
    </>
  );
}

function MemberList(props: { workspaceId: string; isOwner: boolean; myId: string | undefined }) {
  const members = useMembers(props.workspaceId);
  const changeRole = useChangeRole(props.workspaceId);
  const removeMember = useRemoveMember(props.workspaceId);
  const [done, setDone] = useState<string | null>(null);
  if (members.isPending) return <LoadingState label="Loading the members…" />;
  if (members.isError) return <ErrorMessage error={members.error} />;
  if (members.data.members.length === 0) {
    return <EmptyState title="No members yet" />;
  }
  const remove = (member: Member) =>
    removeMember.mutate(member.user_id, {
      onSuccess: () => setDone(`Removed ${member.email}.`),
    });
  return (
    <>
      {changeRole.isError && <ErrorMessage error={changeRole.error} title="Role not changed" />}
      {removeMember.isError && <ErrorMessage error={removeMember.error} title="Not removed" />}
      {done && <StatusMessage>{done}</StatusMessage>}
      <table className="data-table">
        <caption>People in this workspace</caption>
        <thead>
          <tr>
            <th scope="col">Person</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
            {props.isOwner && <th scope="col">Manage</th>}
          </tr>
        </thead>
        <tbody>
          {members.data.members.map((member) => (
            <tr key={member.user_id}>
              <td>
                <span className="member__name">{member.name}</span>
                <span className="member__email">{member.email}</span>
              </td>
              <td>
                {props.isOwner ? (
                  <RoleSelect
                    member={member}
                    changeRole={changeRole}
                    onChanged={(changed) =>
                      setDone(`${changed.email} is now ${ROLE_ARTICLES[changed.role]}.`)
                    }
                  />
                ) : (
                  ROLE_LABELS[member.role]
                )}
              </td>
              <td>{joinedFormat.format(new Date(member.joined_at))}</td>
              {props.isOwner && (
                <td>
                  <ConfirmButton
                    label={member.user_id === props.myId ? 'Leave' : 'Remove'}
                    action={
                      member.user_id === props.myId
                        ? 'Leave the workspace'
                        : `Remove ${member.email}`
                    }
                    busy={removeMember.isPending && removeMember.variables === member.user_id}
                    onConfirm={() => remove(member)}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** An owner's choice of a member's role. */
function RoleSelect({
  member,
  changeRole,
  onChanged,
}: {
  member: Member;
  changeRole: ReturnType<typeof useChangeRole>;
  onChanged: (changed: Member) => void;
}) {
  return (
    <select
      className="field__input field__input--select"
      aria-label={`Role of ${member.email}`}
      value={member.role}
      disabled={changeRole.isPending}
      onChange={(event) =>
        changeRole.mutate(
          { userId: member.user_id, role: event.target.value as WorkspaceRole },
          {
            onSuccess: ({ member: changed }) => onChanged(changed),
          },
        )
      }
    >
      {ROLE_OPTIONS.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}

function AddMemberPanel(props: { workspaceId: string }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('member');
  const [errors, setErrors] = useState<FieldErrors>({});
  const addMember = useAddMember(props.workspaceId);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(AddMemberBody, { email, role });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    addMember.mutate(result.data, { onSuccess: () => setEmail('') });
  };
  const added = addMember.data?.member;
  return (
    <Panel
      title="Add a member"
      description="They sign in with this email and find the workspace in their list. Someone who has never signed in gets an account on their first sign-in."
    >
      <form onSubmit={submit} noValidate>
        {addMember.isError && <ErrorMessage error={addMember.error} />}
        {addMember.isSuccess && added && (
          <StatusMessage>
            Added {added.email} as {added.role === 'owner' ? 'an owner' : 'a member'}.
          </StatusMessage>
        )}
        <TextField
          label="Email"
          type="email"
          autoComplete="off"
          value={email}
          error={errors['email']}
          onChange={(event) => setEmail(event.target.value)}
        />
        <SelectField
          label="Role"
          options={ROLE_OPTIONS}
          value={role}
          error={errors['role']}
          onChange={(event) => setRole(event.target.value as WorkspaceRole)}
        />
        <Button type="submit" variant="primary" busy={addMember.isPending}>
          Add member
        </Button>
      </form>
    </Panel>
  );
}
