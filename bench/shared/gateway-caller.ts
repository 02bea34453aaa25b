import { mintSessionToken } from '@wap/auth';

/** A JSON request through the gateway as the bench's person; a status of 300 or more throws. */
export type GatewayCall = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/**
 * Calls through the gateway at `url` as a platform administrator signed in with a session the
 * bench mints (it knows the gateway's `sessionSecret`), and a workspace of theirs granted
 * `credits`.
 */
export async function adminWorkspace(
  url: string,
  sessionSecret: string,
  name: string,
  credits: number,
): Promise<{ call: GatewayCall; workspaceId: string }> {
  const email = `${name.toLowerCase()}@example.com`;
  const cookie = `session=${await mintSessionToken({
    secret: sessionSecret,
    sub: `bench|${email}`,
    email,
    name: 'Bench',
    platformAdmin: true,
    expiresInSec: 7200,
  })}`;
  const call: GatewayCall = async <T>(method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const { workspace } = await call<{ workspace: { id: string } }>('POST', '/workspaces', { name });
  await call('POST', `/workspaces/${workspace.id}/credits/grants`, {
    amount: credits,
    reason: 'bench',
  });
  return { call, workspaceId: workspace.id };
}
