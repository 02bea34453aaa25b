import type { ReactNode } from 'react';
import { McpAuthType } from '@wap/contracts';
import { RadioGroup, TextField } from '../../../components';
import type { FieldErrors } from '../../../lib/forms';
import { AUTH_TYPE_LABELS } from '../server-words';
import type { ServerFormValues } from './server-form-model';

const AUTH_OPTIONS = McpAuthType.options.map((type) => ({
  value: type,
  label: AUTH_TYPE_LABELS[type],
}));

type AuthFields = Pick<
  ServerFormValues,
  | 'authType'
  | 'authHeaderName'
  | 'authPrefix'
  | 'secret'
  | 'username'
  | 'password'
  | 'envVarName'
  | 'scopes'
>;

/**
 * How the platform proves itself to the server (docs/decisions/0020): one choice, then exactly
 * the fields of that type. Secrets are typed here and never shown back.
 */
export function AuthSection(props: {
  values: AuthFields;
  onChange: (change: Partial<AuthFields>) => void;
  errors: FieldErrors;
}) {
  const { values, onChange } = props;
  return (
    <div className="mcp-form__group">
      <RadioGroup
        legend="Authentication"
        description="How the platform signs in to the server. Credentials are stored encrypted and never shown again."
        options={AUTH_OPTIONS}
        value={values.authType}
        onChange={(type) => onChange({ authType: type as McpAuthType })}
      />
      <AuthTypeFields {...props} />
    </div>
  );
}

function AuthTypeFields({ values, onChange, errors }: Parameters<typeof AuthSection>[0]) {
  const type = values.authType;
  switch (type) {
    case 'none':
      return null;
    case 'direct':
      return (
        <AuthFieldset legend="The secret">
          <TextField
            label="Secret"
            type="password"
            autoComplete="new-password"
            hint="The API key or token the server gave you."
            value={values.secret}
            error={errors['secret']}
            onChange={(event) => onChange({ secret: event.target.value })}
          />
          <HeaderFields values={values} onChange={onChange} errors={errors} carries="secret" />
        </AuthFieldset>
      );
    case 'basic':
      return (
        <AuthFieldset legend="Username and password">
          <TextField
            label="Username"
            autoComplete="off"
            spellCheck={false}
            value={values.username}
            error={errors['username']}
            onChange={(event) => onChange({ username: event.target.value })}
          />
          <TextField
            label="Password"
            type="password"
            autoComplete="new-password"
            hint="Sent as HTTP Basic authentication (Authorization: Basic …)."
            value={values.password}
            error={errors['password']}
            onChange={(event) => onChange({ password: event.target.value })}
          />
        </AuthFieldset>
      );
    case 'env_var':
      return (
        <AuthFieldset legend="The environment variable">
          <TextField
            label="Environment variable"
            autoComplete="off"
            spellCheck={false}
            hint="A variable of the platform's own environment, for example GITHUB_TOKEN. The operator has to allow it (MCP_ENV_ALLOWLIST); its value is read at each connection and never stored."
            value={values.envVarName}
            error={errors['envVarName']}
            onChange={(event) => onChange({ envVarName: event.target.value })}
          />
          <HeaderFields values={values} onChange={onChange} errors={errors} carries="value" />
        </AuthFieldset>
      );
    case 'account':
      return (
        <AuthFieldset legend="Each person's own account">
          <TextField
            label="Scopes (optional)"
            autoComplete="off"
            spellCheck={false}
            hint="Each person who uses the server connects their own account there (OAuth), from the server's page; calls then act as them. Leave empty to ask for the scopes the server names."
            value={values.scopes}
            error={errors['scopes']}
            onChange={(event) => onChange({ scopes: event.target.value })}
          />
        </AuthFieldset>
      );
  }
}

/** The header that carries the credential and what goes before it. */
function HeaderFields(props: {
  values: AuthFields;
  onChange: (change: Partial<AuthFields>) => void;
  errors: FieldErrors;
  carries: string;
}) {
  return (
    <>
      <TextField
        label="Credential header"
        autoComplete="off"
        spellCheck={false}
        hint={`The header that carries the ${props.carries}. Left empty: Authorization.`}
        value={props.values.authHeaderName}
        error={props.errors['headerName']}
        onChange={(event) => props.onChange({ authHeaderName: event.target.value })}
      />
      <TextField
        label="Credential prefix"
        autoComplete="off"
        spellCheck={false}
        hint={`Put before the ${props.carries}, for example Bearer. Empty: the ${props.carries} alone.`}
        value={props.values.authPrefix}
        error={props.errors['prefix']}
        onChange={(event) => props.onChange({ authPrefix: event.target.value })}
      />
    </>
  );
}

function AuthFieldset(props: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="mcp-form__subgroup">
      <legend className="field__label">{props.legend}</legend>
      {props.children}
    </fieldset>
  );
}
