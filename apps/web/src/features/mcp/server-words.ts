import type { McpAccessMode, McpAuthType, McpServerView } from '@wap/contracts';

/** How each access mode reads for a person (docs/decisions/0021). */
export const ACCESS_MODE_LABELS: Record<McpAccessMode, string> = {
  everyone: 'Everyone in the workspace',
  specific: 'Chosen members and the workspace owners',
  specific_users: 'Only the chosen members',
  creator_only: 'Only the person who registered it',
};

/** How each auth type reads for a person (docs/decisions/0020). */
export const AUTH_TYPE_LABELS: Record<McpAuthType, string> = {
  none: 'No authentication',
  direct: 'A secret in a header (API key or bearer token)',
  basic: 'Username and password (HTTP Basic)',
  env_var: "A secret from the platform's environment",
  account: "Each person's own account (OAuth)",
};

const TRANSPORT_LABELS = { streamable_http: 'Streamable HTTP', sse: 'HTTP with SSE (legacy)' };

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

export function transportLabel(server: McpServerView): string {
  return server.transport ? TRANSPORT_LABELS[server.transport] : 'Not connected yet';
}

/** The state of a server's tool sync in one line. */
export function syncStatusLabel(server: McpServerView): string {
  switch (server.sync_status) {
    case 'pending':
      return 'Waiting to sync its tools';
    case 'running':
      return 'Syncing its tools…';
    case 'succeeded':
      return server.last_synced_at
        ? `Tools synced ${formatDateTime(server.last_synced_at)}`
        : 'Tools synced';
    case 'failed':
      return 'The last sync failed';
  }
}

/** "3 tools, 2 enabled", "1 tool, disabled", "No tools yet". */
export function toolCountLabel(total: number, enabled: number): string {
  if (total === 0) return 'No tools yet';
  const tools = total === 1 ? '1 tool' : `${total} tools`;
  if (enabled === total) return `${tools}, all enabled`;
  if (enabled === 0) return `${tools}, none enabled`;
  return `${tools}, ${enabled} enabled`;
}
