import { z } from 'zod';
import {
  McpAuthConfig,
  McpHeaders,
  RegisterMcpServerBody,
  UpdateMcpServerBody,
  type McpAccessMode,
  type McpAuthType,
} from '@wap/contracts';
import { validateForm, type FieldErrors } from '../../../lib/forms';

/** One row of the free-form headers editor. */
export interface HeaderRow {
  /** Stable React key: rows are added and removed in any order. */
  key: number;
  name: string;
  value: string;
}

/**
 * Everything the register and edit forms hold. Each auth type keeps its own inputs, so
 * switching types and back does not lose what was typed.
 */
export interface ServerFormValues {
  name: string;
  description: string;
  serverUrl: string;
  headers: HeaderRow[];
  accessMode: McpAccessMode;
  accessibleTo: string[];
  authType: McpAuthType;
  /** direct, env_var, account: the header that carries the credential. */
  authHeaderName: string;
  /** direct, env_var, account: put before the credential; empty sends it alone. */
  authPrefix: string;
  /** direct: the secret itself. */
  secret: string;
  /** basic. */
  username: string;
  password: string;
  /** env_var: the name of the platform's environment variable. */
  envVarName: string;
  /** account: the OAuth scopes each person's connection asks for; empty for the server's own. */
  scopes: string;
}

/** The field names errors are keyed by, beside the body's own (name, serverUrl...). */
export type ServerFormErrors = FieldErrors & {
  /** Errors of header rows, by row key. */
  headerRows?: Record<number, { name?: string; value?: string }>;
};

export const DEFAULT_AUTH_HEADER = 'Authorization';
export const DEFAULT_AUTH_PREFIX = 'Bearer';

export function emptyServerForm(): ServerFormValues {
  return {
    name: '',
    description: '',
    serverUrl: '',
    headers: [],
    accessMode: 'everyone',
    accessibleTo: [],
    authType: 'none',
    authHeaderName: DEFAULT_AUTH_HEADER,
    authPrefix: DEFAULT_AUTH_PREFIX,
    secret: '',
    username: '',
    password: '',
    envVarName: '',
    scopes: '',
  };
}

const authField = McpAuthConfig.shape;
/** A key of authConfig that a type cannot do without: the contract's rule plus "not empty". */
const required = (schema: (typeof authField)['value']) => schema.unwrap().min(1);

/**
 * Each auth type's authConfig (docs/decisions/0020), checked with the contract's rules and the
 * keys that type requires. Issues are keyed by the form's field names.
 */
const AUTH_SCHEMAS = {
  direct: z.object({
    headerName: authField.headerName,
    prefix: authField.prefix,
    secret: required(authField.value),
  }),
  basic: z.object({
    username: required(authField.username),
    password: required(authField.password),
  }),
  env_var: z.object({
    headerName: authField.headerName,
    prefix: authField.prefix,
    envVarName: required(authField.value).regex(
      /^[A-Za-z_][A-Za-z0-9_]*$/,
      'Use letters, digits and underscores, not starting with a digit.',
    ),
  }),
  account: z.object({
    scopes: authField.value
      .unwrap()
      .regex(/^[\x21-\x7e ]*$/, 'Scopes are words separated by spaces.'),
  }),
} as const;

/** The header settings of a type that sends its credential in a header of one's choosing. */
function headerSettings(values: ServerFormValues) {
  const headerName = values.authHeaderName.trim();
  return { headerName: headerName || undefined, prefix: values.authPrefix };
}

/** The authConfig of the chosen type, or field errors when its fields are not right. */
export function authConfigOf(
  values: ServerFormValues,
): { ok: true; config: McpAuthConfig | undefined } | { ok: false; errors: FieldErrors } {
  const type = values.authType;
  switch (type) {
    case 'none':
      return { ok: true, config: undefined };
    case 'direct': {
      const checked = validateForm(AUTH_SCHEMAS.direct, {
        ...headerSettings(values),
        secret: values.secret,
      });
      if (!checked.ok) return checked;
      const { secret, ...rest } = checked.data;
      return { ok: true, config: { type, ...rest, value: secret } };
    }
    case 'basic': {
      const checked = validateForm(AUTH_SCHEMAS.basic, {
        username: values.username,
        password: values.password,
      });
      return checked.ok ? { ok: true, config: { type, ...checked.data } } : checked;
    }
    case 'env_var': {
      const checked = validateForm(AUTH_SCHEMAS.env_var, {
        ...headerSettings(values),
        envVarName: values.envVarName.trim(),
      });
      if (!checked.ok) return checked;
      const { envVarName, ...rest } = checked.data;
      return { ok: true, config: { type, ...rest, value: envVarName } };
    }
    case 'account': {
      // Each person connects their own account (decision 138); the token goes as a Bearer token.
      const checked = validateForm(AUTH_SCHEMAS.account, { scopes: values.scopes.trim() });
      if (!checked.ok) return checked;
      return {
        ok: true,
        config: checked.data.scopes ? { type, value: checked.data.scopes } : { type },
      };
    }
  }
}

const HeaderRowSchema = z.object({ name: McpHeaders.keyType, value: McpHeaders.valueType });

/**
 * The headers map of the rows (blank rows left out), or the rows' errors: each row's name and
 * value by the contract's rules, no name twice, then the map's own rules (count, transport
 * headers) as one message for the whole list.
 */
export function headersOf(
  rows: readonly HeaderRow[],
):
  | { ok: true; headers: Record<string, string> }
  | { ok: false; rowErrors: ServerFormErrors['headerRows']; error?: string } {
  const headers: Record<string, string> = {};
  const rowErrors: NonNullable<ServerFormErrors['headerRows']> = {};
  const seen = new Set<string>();
  for (const row of rows) {
    const name = row.name.trim();
    if (!name && !row.value) continue;
    const checked = validateForm(HeaderRowSchema, { name, value: row.value });
    if (!checked.ok) {
      rowErrors[row.key] = { name: checked.errors['name'], value: checked.errors['value'] };
      continue;
    }
    if (seen.has(name.toLowerCase())) {
      rowErrors[row.key] = { name: 'This header is already listed.' };
      continue;
    }
    seen.add(name.toLowerCase());
    headers[name] = row.value;
  }
  if (Object.keys(rowErrors).length > 0) return { ok: false, rowErrors };
  const whole = validateForm(McpHeaders, headers);
  if (!whole.ok) return { ok: false, rowErrors: {}, error: Object.values(whole.errors)[0] };
  return { ok: true, headers: whole.data };
}

/** Only the access modes that name people take the chosen members. */
export function takesMembers(mode: McpAccessMode): boolean {
  return mode === 'specific' || mode === 'specific_users';
}

type Checked<T> = { ok: true; body: T } | { ok: false; errors: ServerFormErrors };

/** Collects every section's errors, so the person sees them all at once. */
function sectionsOf(values: ServerFormValues, include: { headers: boolean; auth: boolean }) {
  const errors: ServerFormErrors = {};
  let headers: Record<string, string> | undefined;
  let authConfig: McpAuthConfig | undefined;
  if (include.headers) {
    const checked = headersOf(values.headers);
    if (checked.ok) headers = checked.headers;
    else {
      errors.headerRows = checked.rowErrors;
      errors['headers'] = checked.error ?? 'Correct the headers marked below.';
    }
  }
  if (include.auth) {
    const checked = authConfigOf(values);
    if (checked.ok) authConfig = checked.config;
    else Object.assign(errors, checked.errors);
  }
  return { errors, headers, authConfig };
}

/** The register body (spec endpoint 2) of the form, checked with the contract's schema. */
export function registerBodyOf(
  workspaceId: string,
  values: ServerFormValues,
): Checked<RegisterMcpServerBody> {
  const sections = sectionsOf(values, { headers: true, auth: true });
  const checked = validateForm(RegisterMcpServerBody, {
    workspaceId,
    serverType: 'custom',
    name: values.name,
    serverUrl: values.serverUrl,
    description: values.description,
    headers: sections.headers ?? {},
    accessMode: values.accessMode,
    accessibleTo: takesMembers(values.accessMode) ? values.accessibleTo : [],
    authConfig: sections.authConfig,
  });
  const errors = { ...(checked.ok ? {} : checked.errors), ...sections.errors };
  if (!checked.ok || Object.keys(sections.errors).length > 0) return { ok: false, errors };
  return { ok: true, body: checked.data };
}

/**
 * The change body of the edit form. Stored headers and credentials are never shown back, so
 * they are only sent (and replace the stored ones) when the person chose to replace them.
 */
export function updateBodyOf(
  values: ServerFormValues,
  replace: { headers: boolean; auth: boolean },
): Checked<UpdateMcpServerBody> {
  const sections = sectionsOf(values, replace);
  const checked = validateForm(UpdateMcpServerBody, {
    name: values.name,
    description: values.description,
    accessMode: values.accessMode,
    accessibleTo: takesMembers(values.accessMode) ? values.accessibleTo : [],
    ...(replace.headers ? { headers: sections.headers ?? {} } : {}),
    // Replacing with "none" has to say so: an absent authConfig keeps the stored one.
    ...(replace.auth ? { authConfig: sections.authConfig ?? { type: 'none' } } : {}),
  });
  const errors = { ...(checked.ok ? {} : checked.errors), ...sections.errors };
  if (!checked.ok || Object.keys(sections.errors).length > 0) return { ok: false, errors };
  return { ok: true, body: checked.data };
}
