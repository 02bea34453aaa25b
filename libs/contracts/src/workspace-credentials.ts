import { z } from 'zod';
import { isCredentialHeader } from './credential-headers';
import { WorkspaceIdParams } from './directory';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes } from './route-spec';

/*
 * Workspace credentials (issue 41, decision 152): named secrets, sealed with the keys MCP
 * credentials use, written into an http_request step as `{{credentials.<name>}}` and filled in
 * only when the request is sent. The API never returns a value once saved; a run's history shows
 * `[credential <name>]` where one was, and any copy of it a response brings back as `[redacted]`.
 */

/** A credential's name, as a template names it: a letter, then letters, digits and `_`. */
export const CredentialName = z
  .string()
  .trim()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'a letter, then letters, digits or _ (64 at most)');

/**
 * Whose runs may use it: `creator_only`, runs acting as the person who saved it (its creator);
 * `workspace`, runs of any workflow of the workspace (any member can then send it anywhere).
 */
export const CredentialAccess = z.enum(['creator_only', 'workspace']);
export type CredentialAccess = z.infer<typeof CredentialAccess>;

const CredentialValue = z.string().min(1, 'enter the secret').max(8192);

export const WorkspaceCredential = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  access: CredentialAccess,
  created_by: z.uuid(),
  created_at: z.iso.datetime(),
  updated_by: z.uuid(),
  updated_at: z.iso.datetime(),
});
export type WorkspaceCredential = z.infer<typeof WorkspaceCredential>;
export const WorkspaceCredentialResponse = z.object({ credential: WorkspaceCredential });
export const WorkspaceCredentialsResponse = z.object({ credentials: z.array(WorkspaceCredential) });

export const CreateCredentialBody = z
  .object({
    name: CredentialName,
    value: CredentialValue,
    access: CredentialAccess.default('creator_only'),
  })
  .strict();
export type CreateCredentialBody = z.infer<typeof CreateCredentialBody>;

/** A new value (its creator or a workspace owner), or who may use it (its creator alone). */
export const UpdateCredentialBody = z
  .object({ value: CredentialValue.optional(), access: CredentialAccess.optional() })
  .strict()
  .refine((body) => body.value !== undefined || body.access !== undefined, {
    message: 'give a new value or access',
  });
export type UpdateCredentialBody = z.infer<typeof UpdateCredentialBody>;

export const CredentialIdParams = WorkspaceIdParams.extend({ credentialId: z.uuid() });

/** What a run's history shows in place of a credential's value. */
export function credentialPlaceholder(name: string): string {
  return `[credential ${name}]`;
}

const CREDENTIAL_REFERENCE = /\{\{\s*credentials\s*\.\s*([^{}]*?)\s*\}\}/g;

/** The credential names a settings value refers to, each once. */
export function credentialNamesIn(value: unknown): string[] {
  const names = new Set<string>();
  const visit = (item: unknown): void => {
    if (typeof item === 'string') {
      for (const match of item.matchAll(CREDENTIAL_REFERENCE)) names.add(match[1] ?? '');
    } else if (Array.isArray(item)) {
      item.forEach(visit);
    } else if (item !== null && typeof item === 'object') {
      Object.values(item).forEach(visit);
    }
  };
  visit(value);
  return [...names];
}

const ANY_PLACEHOLDER = /\{\{[^{}]*\}\}/g;
const AUTH_SCHEME = /^(bearer|basic|token|bot|digest)\b/i;

/**
 * The credential headers of an http_request step's settings whose value is written into the
 * workflow itself (readable by every member) rather than named as `{{credentials.<name>}}`: the
 * editor flags them. A value made of placeholders alone (a token an earlier step fetched) is not.
 */
export function literalSecretHeaders(settings: unknown): string[] {
  const headers = (settings as { headers?: unknown } | null)?.headers;
  if (headers === null || typeof headers !== 'object') return [];
  return Object.entries(headers as Record<string, unknown>).flatMap(([name, value]) => {
    if (!isCredentialHeader(name) || typeof value !== 'string') return [];
    if (credentialNamesIn(value).length > 0) return [];
    const literal = value.replace(ANY_PLACEHOLDER, '').trim().replace(AUTH_SCHEME, '').trim();
    return literal === '' ? [] : [name];
  });
}

const notFound = { description: 'Not found, or not a member', schema: ErrorBodySchema };

export const workspaceCredentialRoutes = defineRoutes([
  {
    operationId: 'list_workspace_credentials',
    summary: "The workspace's credentials: names and who may use them, never values (members)",
    method: 'GET',
    path: '/workspaces/:workspaceId/credentials',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_workspace_credentials.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkspaceIdParams },
    responses: {
      200: { description: 'The credentials', schema: WorkspaceCredentialsResponse },
      ...sessionErrorResponses,
      404: notFound,
    },
  },
  {
    operationId: 'create_workspace_credential',
    summary: 'Save a named secret for http_request steps; its value is never returned (members)',
    method: 'POST',
    path: '/workspaces/:workspaceId/credentials',
    owner: 'workflow-runner',
    subject: 'workflow.api.create_workspace_credential.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    request: { params: WorkspaceIdParams, body: CreateCredentialBody },
    responses: {
      201: { description: 'Saved', schema: WorkspaceCredentialResponse },
      409: { description: 'CONFLICT: the workspace has one of that name', schema: ErrorBodySchema },
      ...sessionErrorResponses,
      404: notFound,
    },
  },
  {
    operationId: 'update_workspace_credential',
    summary: "Replace a credential's value (its creator, workspace owners) or access (its creator)",
    method: 'PATCH',
    path: '/workspaces/:workspaceId/credentials/:credentialId',
    owner: 'workflow-runner',
    subject: 'workflow.api.update_workspace_credential.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    request: { params: CredentialIdParams, body: UpdateCredentialBody },
    responses: {
      200: { description: 'Saved', schema: WorkspaceCredentialResponse },
      ...sessionErrorResponses,
      404: notFound,
    },
  },
  {
    operationId: 'delete_workspace_credential',
    summary:
      'Delete a credential; steps naming it fail from then on (its creator, workspace owners)',
    method: 'DELETE',
    path: '/workspaces/:workspaceId/credentials/:credentialId',
    owner: 'workflow-runner',
    subject: 'workflow.api.delete_workspace_credential.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'none',
    request: { params: CredentialIdParams },
    responses: { 204: { description: 'Deleted' }, ...sessionErrorResponses, 404: notFound },
  },
] as const);
