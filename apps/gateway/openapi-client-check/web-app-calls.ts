/**
 * Type-checked by openapi-document.spec.ts against the client types openapi-typescript
 * generates from /openapi.json (`./generated.d.ts`, written by the spec): each answer the web
 * app reads, typed by the contracts it imports, must accept what the document promises.
 */
import type { z } from 'zod';
import type {
  ApprovalResponse,
  ApprovalsResponse,
  CompletedMcpAccountAuthorizationResponse,
  ContactsPage,
  ConversationsPage,
  CreateApiKeyResponse,
  CreateExtensionTokenResponse,
  ExtensionTokensResponse,
  McpAccountAuthorizationResponse,
  McpAccountResponse,
  MembersResponse,
  MeResponse,
  NotificationSettings,
  RunListResponse,
  RunDetailsResponse,
  TablesPage,
  TasksPage,
  WorkflowListResponse,
} from '@wap/contracts';
import type { paths } from './generated';

type Answer<
  Path extends keyof paths,
  Method extends keyof paths[Path],
  Status extends number,
> = paths[Path][Method] extends { responses: Record<Status, { content: infer Content }> }
  ? Content extends { 'application/json': infer Body }
    ? Body
    : never
  : never;

/** Compiles only when what the document promises is what the web app reads. */
type Reads<Document, WebApp> = [Document] extends [never]
  ? false
  : [Document] extends [WebApp]
    ? true
    : false;
type Holds<T extends true> = T;

export type WebAppCalls = [
  Holds<Reads<Answer<'/me', 'get', 200>, z.infer<typeof MeResponse>>>,
  Holds<
    Reads<Answer<'/workspaces/{workspaceId}/members', 'get', 200>, z.infer<typeof MembersResponse>>
  >,
  Holds<
    Reads<
      Answer<'/workspaces/{workspaceId}/notification-settings', 'get', 200>,
      z.infer<typeof NotificationSettings>
    >
  >,
  Holds<
    Reads<
      Answer<'/workspaces/{workspaceId}/api-keys', 'post', 201>,
      z.infer<typeof CreateApiKeyResponse>
    >
  >,
  Holds<Reads<Answer<'/me/extension-tokens', 'get', 200>, z.infer<typeof ExtensionTokensResponse>>>,
  Holds<
    Reads<Answer<'/me/extension-tokens', 'post', 201>, z.infer<typeof CreateExtensionTokenResponse>>
  >,
  Holds<Reads<Answer<'/workflows', 'get', 200>, z.infer<typeof WorkflowListResponse>>>,
  Holds<Reads<Answer<'/workflows/{id}/runs', 'get', 200>, z.infer<typeof RunListResponse>>>,
  Holds<Reads<Answer<'/runs/{runId}', 'get', 200>, z.infer<typeof RunDetailsResponse>>>,
  Holds<Reads<Answer<'/approvals', 'get', 200>, z.infer<typeof ApprovalsResponse>>>,
  Holds<Reads<Answer<'/approvals/{id}', 'get', 200>, z.infer<typeof ApprovalResponse>>>,
  Holds<Reads<Answer<'/tables', 'get', 200>, z.infer<typeof TablesPage>>>,
  Holds<Reads<Answer<'/tasks', 'get', 200>, z.infer<typeof TasksPage>>>,
  Holds<Reads<Answer<'/contacts', 'get', 200>, z.infer<typeof ContactsPage>>>,
  Holds<Reads<Answer<'/ai-chat/conversations', 'get', 200>, z.infer<typeof ConversationsPage>>>,
  Holds<
    Reads<Answer<'/mcp-registry/{id}/account', 'get', 200>, z.infer<typeof McpAccountResponse>>
  >,
  Holds<
    Reads<
      Answer<'/mcp-registry/{id}/account/authorizations', 'post', 201>,
      z.infer<typeof McpAccountAuthorizationResponse>
    >
  >,
  Holds<
    Reads<
      Answer<'/mcp-registry/oauth/callback', 'post', 200>,
      z.infer<typeof CompletedMcpAccountAuthorizationResponse>
    >
  >,
];
