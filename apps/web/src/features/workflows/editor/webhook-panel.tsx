import { useId } from 'react';
import { CopyButton, Panel, TextField } from '../../../components';
import type { WorkflowWithAddress } from '../api/workflows-api';

/** A shell-safe single-quoted word. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The curl command that calls a webhook address with a small JSON body. */
export function curlCommand(url: string): string {
  return [
    `curl -X POST ${shellQuote(url)}`,
    `  -H 'content-type: application/json'`,
    `  -d '{"order": {"id": 7}}'`,
  ].join(' \\\n');
}

/** The workflow's Custom Webhook address, and how to call it. */
export function WebhookPanel(props: { loaded: WorkflowWithAddress }) {
  const curlId = useId();
  const { webhook, workflow } = props.loaded;
  if (!webhook) {
    return (
      <Panel title="Webhook address">
        <p>
          This workflow has no webhook trigger, so no address starts it. Save the workflow below to
          give it a new address.
        </p>
      </Panel>
    );
  }
  const curl = curlCommand(webhook.url);
  return (
    <Panel
      title="Webhook address"
      description={
        workflow.status === 'live'
          ? 'The workflow is live: each POST with a JSON body starts a run, and is kept as a test event too.'
          : 'The workflow is in draft: each POST with a JSON body is kept as a test event and starts nothing.'
      }
    >
      <TextField
        label="Webhook address"
        className="wf-mono wf-wide"
        readOnly
        value={webhook.url}
        onFocus={(event) => event.target.select()}
      />
      <p>
        <CopyButton value={webhook.url} label="Copy address" />
      </p>
      <div className="field">
        <label className="field__label" htmlFor={curlId}>
          curl command
        </label>
        <textarea
          id={curlId}
          className="field__input field__input--multiline wf-mono"
          readOnly
          rows={3}
          value={curl}
          onFocus={(event) => event.target.select()}
        />
      </div>
      <p>
        <CopyButton value={curl} label="Copy curl command" />
      </p>
      <p className="field__hint">
        Call it from a terminal or your app: the request shows up under Test events below within a
        few seconds.
      </p>
    </Panel>
  );
}
