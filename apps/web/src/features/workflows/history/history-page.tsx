import { useState } from 'react';
import {
  Button,
  ConfirmButton,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  StatusMessage,
} from '../../../components';
import { useWorkspaceId } from '../../../lib/routing';
import { useAuthors } from '../../workspace';
import {
  useRestoreVersion,
  useVersionDiff,
  useWorkflowVersions,
  type Workflow,
} from '../api/workflows-api';
import { formatDateTime } from '../shared/labels';
import { StatusBadge, WorkflowFrame, WorkflowTabs } from '../shared/workflow-frame';
import '../workflows.css';

type VersionSummary = NonNullable<
  ReturnType<typeof useWorkflowVersions>['data']
>['versions'][number];

/** Every version of a workflow (decision 163): who saved what, what differs, and restore. */
export function HistoryPage() {
  return (
    <WorkflowFrame>
      {({ workflow }) => <History key={workflow.id} workflow={workflow} />}
    </WorkflowFrame>
  );
}

function History(props: { workflow: Workflow }) {
  const { workflow } = props;
  const versions = useWorkflowVersions(workflow.id);
  const restore = useRestoreVersion(workflow.id);
  return (
    <>
      <PageHeader
        title={`History of ${workflow.name}`}
        description="Every save that changes what the workflow does is a version. Run runs the newest; the address runs the published one. Restoring makes a version the newest again, published by Set live."
      />
      <WorkflowTabs workflowId={workflow.id} />
      {restore.isError && <ErrorMessage error={restore.error} title="Could not restore it" />}
      {restore.isSuccess && (
        <StatusMessage>
          Restored as version {restore.data.workflow.version}.
          {restore.data.workflow.status === 'live' &&
            ' Live traffic runs the published version until you publish this one.'}
        </StatusMessage>
      )}
      {versions.isPending && <LoadingState label="Loading the versions" />}
      {versions.isError && (
        <ErrorMessage error={versions.error} title="Could not load the versions" />
      )}
      {versions.data && (
        <ol className="wf-versions" aria-label="Versions">
          {versions.data.versions.map((version) => (
            <VersionItem
              key={version.number}
              workflow={workflow}
              version={version}
              restoring={restore.isPending && restore.variables === version.number}
              onRestore={() => restore.mutate(version.number)}
            />
          ))}
        </ol>
      )}
    </>
  );
}

function VersionItem(props: {
  workflow: Workflow;
  version: VersionSummary;
  restoring: boolean;
  onRestore: () => void;
}) {
  const { workflow, version } = props;
  const authors = useAuthors(useWorkspaceId());
  const [comparing, setComparing] = useState(false);
  const author = version.author_id === authors.myId ? 'you' : authors.nameOf(version.author_id);
  const newest = version.number === workflow.version;
  return (
    <li>
      <Panel
        title={`Version ${version.number}`}
        description={`Saved by ${author}, ${formatDateTime(version.created_at)}${version.restored_from ? `, restoring version ${version.restored_from}` : ''}.`}
      >
        <p className="wf-version-badges">
          {version.live && <StatusBadge tone="success">Published</StatusBadge>}
          {newest && <StatusBadge tone="active">Newest</StatusBadge>}
        </p>
        <ul className="wf-version-changes">
          {version.changes.map((change) => (
            <li key={change}>{change}</li>
          ))}
        </ul>
        <div className="button-row">
          {version.number > 1 && (
            <Button aria-expanded={comparing} onClick={() => setComparing((open) => !open)}>
              {comparing ? 'Hide the differences' : `Compare with version ${version.number - 1}`}
            </Button>
          )}
          {!newest && (
            <ConfirmButton
              label="Restore"
              action={`Restore version ${version.number}`}
              busy={props.restoring}
              onConfirm={props.onRestore}
            />
          )}
        </div>
        {comparing && <VersionDifferences workflowId={workflow.id} number={version.number} />}
      </Panel>
    </li>
  );
}

function VersionDifferences(props: { workflowId: string; number: number }) {
  const diff = useVersionDiff(props.workflowId, props.number, true);
  if (diff.isPending) return <LoadingState label="Comparing" />;
  if (diff.isError) return <ErrorMessage error={diff.error} title="Could not compare them" />;
  const shown = (value: unknown) => (value === null ? 'nothing' : JSON.stringify(value));
  return (
    <table className="wf-version-diff">
      <caption>
        What changed from version {diff.data.from} to version {diff.data.to}
      </caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {diff.data.differences.map((difference) => (
          <tr key={difference.path}>
            <th scope="row">
              <code>{difference.path}</code>
            </th>
            <td>
              <code>{shown(difference.before)}</code>
            </td>
            <td>
              <code>{shown(difference.after)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
