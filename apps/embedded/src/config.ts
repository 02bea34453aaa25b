import { z } from 'zod';
import { parseConfig } from '@wap/http';
import { GatewayHttpEnv } from '@wap/gateway-service';

/**
 * The embedded runtime's environment: the gateway's HTTP settings (a session secret is
 * generated into DATA_DIR when neither it nor a JWKS URL is set) plus where state is kept.
 */
export const EmbeddedEnv = GatewayHttpEnv.extend({
  /** Where the embedded runtime keeps everything: database, streams, KV, blobs, generated secrets. */
  DATA_DIR: z.string().default('./data'),
});
export type EmbeddedEnv = z.infer<typeof EmbeddedEnv>;

export function loadEmbeddedEnv(env: NodeJS.ProcessEnv): EmbeddedEnv {
  return parseConfig(EmbeddedEnv, env);
}
