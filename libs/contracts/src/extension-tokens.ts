import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes } from './route-spec';

/** Spec, Limits: an extension token lives 30 days from issue. */
export const EXTENSION_TOKEN_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** Tokens a person may hold unrevoked at once: each is a credential to look after. */
export const MAX_ACTIVE_EXTENSION_TOKENS = 20;

export const ExtensionTokenIdParams = z.object({ tokenId: z.uuid() });

export const CreateExtensionTokenBody = z.object({
  /** Which extension holds it, as the person will recognise it when revoking. */
  name: z.string().trim().min(1).max(200),
});
export type CreateExtensionTokenBody = z.infer<typeof CreateExtensionTokenBody>;

export const ExtensionToken = z.object({
  id: z.uuid(),
  name: z.string(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  /** When the gateway last accepted it, to the minute; null before its first use. */
  last_used_at: z.iso.datetime().nullable(),
});
export type ExtensionToken = z.infer<typeof ExtensionToken>;

export const ExtensionTokensResponse = z.object({ extension_tokens: z.array(ExtensionToken) });
export const CreateExtensionTokenResponse = z.object({
  extension_token: ExtensionToken,
  /** The bearer token itself, shown once: the platform keeps only its id. */
  token: z.string(),
});

/**
 * The signed-in person's extension tokens (spec, Authentication: "issued when the user
 * authenticates the extension"). These routes take the session cookie only: a token cannot
 * mint, list or revoke tokens (decision 128).
 */
export const extensionTokenRoutes = defineRoutes([
  {
    operationId: 'list_extension_tokens',
    summary: "The caller's unrevoked, unexpired extension tokens, newest first",
    method: 'GET',
    path: '/me/extension-tokens',
    owner: 'storage',
    subject: 'storage.api.list_extension_tokens.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'none',
    responses: {
      200: { description: 'The tokens (never their values)', schema: ExtensionTokensResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'create_extension_token',
    summary: 'Authenticate a browser extension: issue a bearer token, shown once, for 30 days',
    method: 'POST',
    path: '/me/extension-tokens',
    owner: 'storage',
    subject: 'storage.api.create_extension_token.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    request: { body: CreateExtensionTokenBody },
    responses: {
      201: { description: 'Issued', schema: CreateExtensionTokenResponse },
      409: {
        description: `CONFLICT: the caller already holds ${MAX_ACTIVE_EXTENSION_TOKENS} tokens`,
        schema: ErrorBodySchema,
      },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'revoke_extension_token',
    summary: 'Revoke one of the caller’s extension tokens; it is refused from then on',
    method: 'DELETE',
    path: '/me/extension-tokens/:tokenId',
    owner: 'storage',
    subject: 'storage.api.revoke_extension_token.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'none',
    request: { params: ExtensionTokenIdParams },
    responses: { 204: { description: 'Revoked' }, ...sessionErrorResponses },
  },
] as const);

/**
 * `storage.api.verify_extension_token.v1`, asked by the gateway for every request that carries
 * one: the signature, the claims and the token's record (not revoked, its person known).
 */
export const VerifyExtensionTokenRequest = z.object({ token: z.string() });
export type VerifyExtensionTokenRequest = z.infer<typeof VerifyExtensionTokenRequest>;
export const VerifyExtensionTokenReply = z.discriminatedUnion('valid', [
  z.object({
    valid: z.literal(true),
    tokenId: z.uuid(),
    user: z.object({ id: z.uuid(), subject: z.string(), email: z.string(), name: z.string() }),
  }),
  /** `expired` only for a token that is otherwise genuine: the caller answers SESSION_EXPIRED. */
  z.object({ valid: z.literal(false), reason: z.enum(['expired', 'invalid']) }),
]);
export type VerifyExtensionTokenReply = z.infer<typeof VerifyExtensionTokenReply>;

export const EXTENSION_TOKEN_SUBJECTS = {
  verify: 'storage.api.verify_extension_token.v1',
} as const;
