import { useId } from 'react';
import { Link } from 'react-router';
import { Button, ErrorMessage, LoadingState, Panel, StatusMessage } from '../../../components';
import { useWorkspaceId } from '../../../lib/routing';
import { useTestEvents, type TestEvent } from '../api/workflows-api';
import { formatDateTime } from '../shared/labels';
import { JsonBlock, workflowPaths } from '../shared/workflow-frame';

/** What became of the last Run asked for on this page. */
export interface RunRequest {
  /** The test event it ran on; undefined for the header's Run (the newest event). */
  testEventId: string | undefined;
  status: 'pending' | 'started' | 'failed';
  runId?: string;
  error?: unknown;
}

const PREVIEW_CHARS = 80;

function preview(body: unknown): string {
  const text = JSON.stringify(body) ?? '';
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}

/**
 * The requests captured at the webhook address, newest first, refreshed every few seconds;
 * each opens to its body and headers and can be run.
 */
export function TestEventsPanel(props: {
  workflowId: string;
  runRequest: RunRequest | null;
  onRun: (testEventId: string) => void;
}) {
  const events = useTestEvents(props.workflowId);
  return (
    <Panel
      title="Test events"
      description="Requests to the webhook address, newest first. Run the workflow on one to try it with that body."
    >
      {events.isPending && <LoadingState label="Loading the test events…" />}
      {events.isError && <ErrorMessage error={events.error} />}
      {events.data && events.data.events.length === 0 && (
        <p className="wf-empty-line">
          No test events yet. Call the webhook address (copy the curl command above): the request
          appears here within a few seconds.
        </p>
      )}
      {events.data && events.data.events.length > 0 && (
        <ol className="wf-events">
          {events.data.events.map((event) => (
            <TestEventItem
              key={event.id}
              event={event}
              workflowId={props.workflowId}
              runRequest={props.runRequest?.testEventId === event.id ? props.runRequest : null}
              onRun={() => props.onRun(event.id)}
            />
          ))}
        </ol>
      )}
    </Panel>
  );
}

function TestEventItem(props: {
  event: TestEvent;
  workflowId: string;
  runRequest: RunRequest | null;
  onRun: () => void;
}) {
  const summaryId = useId();
  const { event, runRequest } = props;
  const headers = Object.entries(event.headers).sort(([a], [b]) => a.localeCompare(b));
  return (
    <li className="wf-event">
      <details className="wf-event__details">
        <summary id={summaryId}>
          <span className="wf-event__time">Received {formatDateTime(event.received_at)}</span>{' '}
          <code className="wf-event__preview">{preview(event.body)}</code>
        </summary>
        <JsonBlock label="Body" value={event.body} />
        {headers.length > 0 && (
          <table className="data-table wf-event__headers">
            <caption>Headers</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {headers.map(([name, value]) => (
                <tr key={name}>
                  <td>
                    <code>{name}</code>
                  </td>
                  <td>{value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </details>
      <div className="wf-event__actions">
        <Button
          aria-describedby={summaryId}
          busy={runRequest?.status === 'pending'}
          onClick={props.onRun}
        >
          Run on this event
        </Button>
        <RunOutcome request={runRequest} workflowId={props.workflowId} />
      </div>
    </li>
  );
}

/** "Run started: open it", or why it did not start. */
export function RunOutcome(props: { request: RunRequest | null; workflowId: string }) {
  const workspaceId = useWorkspaceId();
  const { request } = props;
  if (!request || request.status === 'pending') return null;
  if (request.status === 'failed')
    return <ErrorMessage error={request.error} title="Run did not start" />;
  return (
    <StatusMessage>
      Run started.{' '}
      {request.runId && (
        <Link to={workflowPaths.run(workspaceId, props.workflowId, request.runId)}>
          Open the run
        </Link>
      )}
    </StatusMessage>
  );
}
