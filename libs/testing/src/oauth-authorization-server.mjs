// A real OAuth 2.1 authorization server for the connected-account tests: oidc-provider (ESM
// only, so it runs in its own process) over HTTPS with the test CA's certificate. It offers
// dynamic client registration, the authorization code grant with PKCE, refresh tokens and
// revocation, and issues JWT access tokens for one resource (the test MCP server).
//
// Sign-in is a form that takes any login name: the person is whoever the test says. Consent is
// given at once. Events the tests check (registrations, token grants, revocation requests and the
// grants they revoked) are kept and served at GET /test/events.
//
// Settings come from the environment: TLS_KEY_FILE, TLS_CERT_FILE, SIGNING_JWK (a private RSA
// JWK as JSON), RESOURCE (the MCP server's URL), ACCESS_TOKEN_TTL (seconds). It prints
// `listening <issuer>` once it accepts requests.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Provider, { errors } from 'oidc-provider';

const settings = {
  key: readFileSync(process.env.TLS_KEY_FILE ?? ''),
  cert: readFileSync(process.env.TLS_CERT_FILE ?? ''),
  signingJwk: JSON.parse(process.env.SIGNING_JWK ?? '{}'),
  resource: process.env.RESOURCE ?? '',
  accessTokenTtl: Number(process.env.ACCESS_TOKEN_TTL ?? '3600'),
};
const RESOURCE_SCOPE = 'mcp:tools';

const events = [];
const record = (name, details) => events.push({ name, at: Date.now(), ...details });

function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function readForm(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const https = createServer({ key: settings.key, cert: settings.cert });
await new Promise((resolve) => https.listen(0, '127.0.0.1', resolve));
const issuer = `https://127.0.0.1:${https.address().port}`;

const provider = new Provider(issuer, {
  jwks: { keys: [settings.signingJwk] },
  cookies: { keys: ['connected-accounts-test-cookie-key'] },
  scopes: ['openid', 'offline_access', RESOURCE_SCOPE],
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => settings.resource,
      useGrantedResource: () => true,
      getResourceServerInfo(ctx, resourceIndicator) {
        if (resourceIndicator !== settings.resource) throw new errors.InvalidTarget();
        return {
          scope: RESOURCE_SCOPE,
          audience: settings.resource,
          accessTokenTTL: settings.accessTokenTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
  issueRefreshToken: (ctx, client) => client.grantTypeAllowed('refresh_token'),
  findAccount: (ctx, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
});

provider.on('registration_create.success', (ctx, client) =>
  record('registered', { clientId: client.clientId }),
);
provider.on('grant.success', (ctx) =>
  record('token', { grantType: ctx.oidc.params?.grant_type, clientId: ctx.oidc.client?.clientId }),
);
provider.on('grant.error', (ctx, error) =>
  record('token_refused', { grantType: ctx.oidc.params?.grant_type, error: error.error }),
);
provider.on('revocation.success', (ctx) =>
  record('revoked', { clientId: ctx.oidc.client?.clientId }),
);
provider.on('revocation.error', (ctx, error) =>
  record('revocation_refused', { error: error.error }),
);
provider.on('grant.revoked', (ctx, grantId) => record('grant_revoked', { grantId }));

/** Login asks for a name; consent grants what was asked at once. */
async function interaction(req, res, uid) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  if (details.prompt.name === 'login') {
    if (req.method === 'POST') {
      const login = (await readForm(req)).get('login') ?? '';
      await provider.interactionFinished(req, res, { login: { accountId: login } });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Sign in</title><form method="post" action="/interaction/${escapeHtml(uid)}">` +
        `<label>Login <input name="login" autofocus></label><button>Sign in</button></form>`,
    );
    return;
  }
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details;
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({
        accountId: details.session.accountId,
        clientId: details.params.client_id,
      });
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { consent: { grantId } },
    { mergeWithLastSubmission: true },
  );
}

const callback = provider.callback();
https.on('request', (req, res) => {
  const url = new URL(req.url ?? '/', issuer);
  const interactionMatch = /^\/interaction\/([\w-]+)$/.exec(url.pathname);
  if (url.pathname === '/token/revocation') {
    res.on('finish', () => record('revocation', { status: res.statusCode }));
  }
  if (url.pathname === '/test/events') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(events));
    return;
  }
  if (interactionMatch) {
    interaction(req, res, interactionMatch[1]).catch((error) => {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(String(error?.message ?? error));
    });
    return;
  }
  callback(req, res);
});
process.on('SIGTERM', () => https.close(() => process.exit(0)));
console.log(`listening ${issuer}`);
