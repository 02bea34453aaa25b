import { useState } from 'react';
import { Button, ErrorMessage, Panel, SelectField, StatusMessage } from '../../../components';
import { useAuthors, useMembers } from '../../workspace';
import { useAdoptWorkflow, useTransferWorkflow, type Workflow } from '../api/workflows-api';

/**
 * Whom the workflow's runs act as (decision 147): its owner while the owner agreed to what it
 * does; whoever changed its trigger or steps since, until the owner adopts the change.
 */
export function RunsAsPanel(props: { workflow: Workflow; workspaceId: string }) {
  const { workflow } = props;
  const authors = useAuthors(props.workspaceId);
  const adopt = useAdoptWorkflow(workflow.id);
  const named = (userId: string) => (userId === authors.myId ? 'you' : authors.nameOf(userId));
  const owner = named(workflow.owner_id);
  const runsAs = named(workflow.runs_as);
  const agreed = workflow.runs_as === workflow.owner_id;
  const mayHandOver = authors.isOwner || authors.myId === workflow.owner_id;
  return (
    <Panel
      title="Who it runs as"
      description="A run uses this person's access: their private MCP servers, connected accounts and tables."
    >
      <p>
        {agreed
          ? `Runs as ${runsAs}, its owner.`
          : `Changed by ${runsAs}: runs as ${runsAs}, with that access, until ${owner} (its owner) adopts the change.`}
      </p>
      {adopt.isError && <ErrorMessage error={adopt.error} title="Could not adopt it" />}
      {adopt.isSuccess && <StatusMessage>From now on it runs as you.</StatusMessage>}
      {authors.myId !== undefined && authors.myId !== workflow.runs_as && (
        <Button busy={adopt.isPending} onClick={() => adopt.mutate()}>
          Run as me
        </Button>
      )}
      {mayHandOver && <HandOver workflow={workflow} workspaceId={props.workspaceId} />}
    </Panel>
  );
}

/** The owner (or a workspace owner) hands the workflow to another member. */
function HandOver(props: { workflow: Workflow; workspaceId: string }) {
  const members = useMembers(props.workspaceId);
  const transfer = useTransferWorkflow(props.workflow.id);
  const others = (members.data?.members ?? []).filter(
    (member) => member.user_id !== props.workflow.owner_id,
  );
  const [chosen, setChosen] = useState('');
  if (others.length === 0) return null;
  const target = chosen || (others[0]?.user_id ?? '');
  return (
    <form
      className="button-row"
      onSubmit={(event) => {
        event.preventDefault();
        transfer.mutate(target);
      }}
    >
      <SelectField
        label="Hand it over to"
        value={target}
        onChange={(event) => setChosen(event.target.value)}
        options={others.map((member) => ({ value: member.user_id, label: member.name }))}
      />
      <Button type="submit" busy={transfer.isPending}>
        Hand over
      </Button>
      {transfer.isError && <ErrorMessage error={transfer.error} title="Could not hand it over" />}
      {transfer.isSuccess && (
        <StatusMessage>Handed over. It runs as before until its new owner adopts it.</StatusMessage>
      )}
    </form>
  );
}
