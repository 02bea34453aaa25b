import {
  useEffect,
  useRef,
  useState,
  type Dispatch,
  type FormEvent,
  type ReactNode,
  type SetStateAction,
} from 'react';
import type { McpServerView } from '@wap/contracts';
import { Button, ErrorMessage, Panel, Switch, TextAreaField, TextField } from '../../../components';
import { ApiError } from '../../../lib/api';
import { AUTH_TYPE_LABELS } from '../server-words';
import { AccessSection } from './access-section';
import { AuthSection } from './auth-section';
import { HeadersEditor } from './headers-editor';
import type { ServerFormErrors, ServerFormValues } from './server-form-model';

/** What the edit form replaces; the register form always sends everything. */
export interface Replacements {
  headers: boolean;
  auth: boolean;
}

/**
 * The server's refusals that concern one field, worded for the person at that field (the
 * message above the form keeps the server's own words).
 */
const FIELD_OF_REFUSAL: Partial<Record<string, { field: string; message: string }>> = {
  INSECURE_SERVER_URL: {
    field: 'serverUrl',
    message: 'Use an address that starts with https://: the platform only connects over HTTPS.',
  },
  SERVER_URL_NOT_ALLOWED: {
    field: 'serverUrl',
    message:
      'This address is in a private network. The platform only connects to public addresses.',
  },
};

/**
 * Registers a server or changes one. `check` turns the values into the request body (or field
 * errors) with the contracts' schemas; the page sends it.
 */
export function ServerForm(props: {
  workspaceId: string;
  creatorId: string | undefined;
  initialValues: ServerFormValues;
  /** Editing: the stored server, whose address stays and whose secrets are never shown. */
  existing?: McpServerView;
  submitLabel: string;
  busy: boolean;
  /** The failed request, shown above the form. */
  failure: unknown;
  failureTitle: string;
  onSubmit: (values: ServerFormValues, replace: Replacements) => ServerFormErrors | undefined;
  cancel?: ReactNode;
}) {
  const [values, setValues] = useState(props.initialValues);
  const [replace, setReplace] = useState<Replacements>({
    headers: !props.existing,
    auth: !props.existing,
  });
  const [errors, setErrors] = useState<ServerFormErrors>({});
  const [attempt, setAttempt] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);

  // After a refused submit, the keyboard goes to the first field to correct.
  useEffect(() => {
    if (attempt === 0) return;
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [attempt]);

  // A refusal about one field is put away once the person changes that field.
  const [settledFailure, setSettledFailure] = useState<unknown>(null);
  const failure = props.failure === settledFailure ? null : props.failure;
  const refusal =
    failure instanceof ApiError && failure.code ? FIELD_OF_REFUSAL[failure.code] : undefined;
  const change = (update: Partial<ServerFormValues>) => {
    if (refusal && refusal.field in update) setSettledFailure(props.failure);
    setValues((previous) => ({ ...previous, ...update }));
  };
  const fieldError = (field: string) =>
    errors[field] ?? (refusal?.field === field ? refusal.message : undefined);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = props.onSubmit(values, replace) ?? {};
    setErrors(found);
    if (Object.keys(found).length > 0) setAttempt((count) => count + 1);
  };

  const existing = props.existing;
  return (
    <form ref={formRef} onSubmit={submit} noValidate className="mcp-form">
      {failure !== null && failure !== undefined && (
        <ErrorMessage error={failure} title={props.failureTitle} />
      )}
      <ServerPanel values={values} existing={existing} fieldError={fieldError} change={change} />

      <ConnectionPanel
        values={values}
        existing={existing}
        errors={errors}
        replace={replace}
        setReplace={setReplace}
        change={change}
      />

      <Panel title="Access">
        <AccessSection
          workspaceId={props.workspaceId}
          creatorId={props.creatorId}
          accessMode={values.accessMode}
          accessibleTo={values.accessibleTo}
          onChange={change}
          error={errors['accessibleTo']}
        />
      </Panel>

      <p className="button-row">
        <Button type="submit" variant="primary" busy={props.busy}>
          {props.submitLabel}
        </Button>
        {props.cancel}
      </p>
    </form>
  );
}

type Change = (update: Partial<ServerFormValues>) => void;

/** The server's name, address (fixed once registered) and description. */
function ServerPanel({
  values,
  existing,
  fieldError,
  change,
}: {
  values: ServerFormValues;
  existing: McpServerView | undefined;
  fieldError: (field: string) => string | undefined;
  change: Change;
}) {
  return (
    <Panel title="Server">
      <TextField
        label="Name"
        autoComplete="off"
        hint="How the assistant and your colleagues will know it, for example GitHub."
        value={values.name}
        error={fieldError('name')}
        onChange={(event) => change({ name: event.target.value })}
      />
      {existing ? (
        <TextField
          label="Server URL"
          readOnly
          hint="The address cannot be changed: register a new server for another one."
          value={existing.server_url}
        />
      ) : (
        <TextField
          label="Server URL"
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="https://mcp.example.com/mcp"
          hint="The server's MCP endpoint. It must use https://."
          value={values.serverUrl}
          error={fieldError('serverUrl')}
          onChange={(event) => change({ serverUrl: event.target.value })}
        />
      )}
      <TextAreaField
        label="Description"
        hint="What its tools are for; the assistant reads it when choosing tools. Optional."
        className="mcp-form__textarea"
        rows={3}
        value={values.description}
        error={fieldError('description')}
        onChange={(event) => change({ description: event.target.value })}
      />
    </Panel>
  );
}

/** The headers and authentication sent to the server; editing replaces them only when asked. */
function ConnectionPanel({
  values,
  existing,
  errors,
  replace,
  setReplace,
  change,
}: {
  values: ServerFormValues;
  existing: McpServerView | undefined;
  errors: ServerFormErrors;
  replace: Replacements;
  setReplace: Dispatch<SetStateAction<Replacements>>;
  change: Change;
}) {
  return (
    <Panel title="Connection">
      {existing && (
        <Switch
          label="Replace the headers"
          description={
            existing.header_names.length > 0
              ? `Stored: ${existing.header_names.join(', ')}. Their values are never shown; new ones replace them all.`
              : 'No headers are stored.'
          }
          checked={replace.headers}
          onChange={(headers) => setReplace((previous) => ({ ...previous, headers }))}
        />
      )}
      {replace.headers && (
        <HeadersEditor
          rows={values.headers}
          onChange={(headers) => change({ headers })}
          error={errors['headers']}
          rowErrors={errors.headerRows}
        />
      )}
      {existing && (
        <Switch
          label="Replace the authentication"
          description={`Now: ${AUTH_TYPE_LABELS[existing.auth_type]}. Credentials are never shown back; new ones replace them.`}
          checked={replace.auth}
          onChange={(auth) => setReplace((previous) => ({ ...previous, auth }))}
        />
      )}
      {replace.auth && <AuthSection values={values} onChange={change} errors={errors} />}
    </Panel>
  );
}
