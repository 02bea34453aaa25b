import { mintSessionToken } from '@wap/auth';
import { http } from './stack';

/** A JSON request as a signed-in person, which must succeed; resolves with its body. */
export type Call = <Reply = unknown>(
  method: string,
  path: string,
  body?: unknown,
) => Promise<Reply>;

/**
 * A platform admin named `name` (`<name>@example.com`), signed in on `gatewayUrl` with a
 * session minted by the gateway's own secret: the crash specs' processes have no sign-in page.
 */
export async function adminCaller(
  gatewayUrl: string,
  sessionSecret: string,
  name: string,
): Promise<Call> {
  const email = `${name.toLowerCase()}@example.com`;
  const token = await mintSessionToken({
    secret: sessionSecret,
    sub: `test|${email}`,
    email,
    name,
    platformAdmin: true,
  });
  const cookie = `session=${token}`;
  return async function call<Reply>(method: string, path: string, body?: unknown) {
    const response = await http(`${gatewayUrl}${path}`, { method, cookie, body });
    if (response.status >= 300) {
      throw new Error(
        `${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`,
      );
    }
    return response.body as Reply;
  };
}

/**
 * A new workspace with `credits`, and in it a workflow of `steps` with a Custom Webhook trigger,
 * run once (a workflow goes live only after a run) and set live.
 */
export async function liveWorkflow(
  call: Call,
  options: { name: string; credits: number; steps: unknown[] },
): Promise<{ workflowId: string; webhookId: string }> {
  const { workspace } = await call<{ workspace: { id: string } }>('POST', '/workspaces', {
    name: options.name,
  });
  await call('POST', `/workspaces/${workspace.id}/credits/grants`, {
    amount: options.credits,
    reason: 'e2e',
  });
  const { workflow, webhook } = await call<{ workflow: { id: string }; webhook: { id: string } }>(
    'POST',
    '/workflows',
    {
      workspaceId: workspace.id,
      name: options.name,
      trigger: { type: 'custom_webhook' },
      steps: options.steps,
    },
  );
  const { runId } = await call<{ runId: string }>('POST', `/workflows/${workflow.id}/run`);
  for (;;) {
    const { run } = await call<{ run: { status: string } }>('GET', `/runs/${runId}`);
    if (run.status === 'succeeded') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await call('POST', `/workflows/${workflow.id}/live`);
  return { workflowId: workflow.id, webhookId: webhook.id };
}
