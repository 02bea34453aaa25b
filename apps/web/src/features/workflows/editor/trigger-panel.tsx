import { PROVIDERS, type Provider } from '@wap/contracts';
import { Panel, SelectField, Switch, TextAreaField, TextField } from '../../../components';
import { PROVIDER_LABELS } from '../shared/labels';
import type { DraftErrors, WorkflowDraft } from './workflow-draft';

/** The workflow's name and what starts it: its webhook, its answer, provider events. */
export function TriggerPanel({
  draft,
  errors,
  update,
}: {
  draft: WorkflowDraft;
  errors: DraftErrors;
  update: (change: Partial<WorkflowDraft>) => void;
}) {
  return (
    <Panel title="Name and trigger">
      <TextField
        label="Workflow name"
        value={draft.name}
        error={errors.fields['name']}
        maxLength={200}
        onChange={(event) => update({ name: event.target.value })}
      />
      <p>
        <strong>Trigger: Custom Webhook.</strong> A POST with a JSON body to the workflow&apos;s
        webhook address starts it; its body is <code>{'{{Custom Webhook.<key>}}'}</code> in the
        steps&apos; settings.
      </p>
      <Switch
        label="Answer webhook calls with a custom response"
        description="Off: callers get the standard JSON answer."
        checked={draft.customResponseEnabled}
        onChange={(checked) => update({ customResponseEnabled: checked })}
      />
      {draft.customResponseEnabled && (
        <TextAreaField
          label="Response body"
          hint='JSON or text. {{body.<key>}} is replaced by a value of the request; empty sends {"status": "ok"}.'
          value={draft.customResponseBody}
          error={errors.fields['customResponseBody']}
          className="field__input--multiline schema-form__mono"
          onChange={(event) => update({ customResponseBody: event.target.value })}
        />
      )}
      <Switch
        label="Also start on provider events"
        description="Deliveries of the provider account connected under Provider events start it, their body as the Custom Webhook variables."
        checked={draft.providerEventsEnabled}
        onChange={(providerEventsEnabled) => update({ providerEventsEnabled })}
      />
      {draft.providerEventsEnabled && (
        <div className="wf-provider-events">
          <SelectField
            label="Provider"
            options={PROVIDERS.map((provider) => ({
              value: provider,
              label: PROVIDER_LABELS[provider],
            }))}
            value={draft.provider}
            onChange={(event) => update({ provider: event.target.value as Provider })}
          />
          <TextField
            label="Events"
            hint="Separated by commas: pull_request.opened takes that action, issues every action of issues, * every event."
            value={draft.providerEventsText}
            error={errors.fields['providerEvents']}
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => update({ providerEventsText: event.target.value })}
          />
        </div>
      )}
    </Panel>
  );
}
