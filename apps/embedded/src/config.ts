import { z } from 'zod';
import { parseConfig } from '@wap/config';
import { ChatEnv } from '@wap/chat-service';
import { GatewayHttpEnv } from '@wap/gateway-service';
import { McpRegistryEnv } from '@wap/mcp-registry-service';
import { StorageSettings } from '@wap/storage-service';
import { WebhookIngestEnv } from '@wap/webhook-ingest-service';

/**
 * The embedded runtime's environment: the gateway's HTTP settings (a session secret is
 * generated into DATA_DIR when neither it nor a JWKS URL is set; WEB_DIST_DIR is the web app it
 * serves), mcp-registry's settings (its credential key is generated into DATA_DIR too when
 * unset), webhook-ingest's settings (limits, provider signing secrets), the chat service's (the
 * model provider) and where state is kept.
 */
export const EmbeddedEnv = GatewayHttpEnv.extend(McpRegistryEnv.shape)
  .extend(WebhookIngestEnv.shape)
  .extend(ChatEnv.shape)
  .extend(StorageSettings.shape)
  .extend({
    /** Interface to listen on: this machine only unless said otherwise (0.0.0.0 in the image). */
    HOST: z.string().default('127.0.0.1'),
    /** Credential encryption keys; when unset, one is generated into DATA_DIR on first start. */
    CREDENTIALS_ENCRYPTION_KEYS: z.string().min(1).optional(),
    /** Where the embedded runtime keeps everything: database, streams, KV, blobs, generated secrets. */
    DATA_DIR: z.string().default('./data'),
    /** SMTP server of approval emails; unset: they are written as .eml files under DATA_DIR/mail. */
    SMTP_URL: z.url().optional(),
    /** Sender of approval emails (workflow-runner's default when unset). */
    MAIL_FROM: z.string().min(3).optional(),
    /** What http_request steps may reach although not public (MCP servers: MCP_SSRF_ALLOWLIST). */
    HTTP_STEP_SSRF_ALLOWLIST: z.string().optional(),
  });
export type EmbeddedEnv = z.infer<typeof EmbeddedEnv>;

export function loadEmbeddedEnv(env: NodeJS.ProcessEnv): EmbeddedEnv {
  return parseConfig(EmbeddedEnv, env);
}
