import type { z } from 'zod';
import { ApprovalRecipientsReply, ApprovalRecipientsRequest, APPROVAL_SUBJECTS } from './approvals';
import {
  CallToolReply,
  CallToolRequest,
  GetRunReply,
  GetRunRequest,
  ListToolsReply,
  ListToolsRequest,
  ListWorkflowsReply,
  ListWorkflowsRequest,
  MCP_SUBJECTS,
  RUN_OF_EVENT_SUBJECT,
  RunOfEventReply,
  RunOfEventRequest,
  RetryRunReply,
  RetryRunRequest,
  StartRunReply,
  StartRunRequest,
  WORKFLOW_SUBJECTS,
} from './automation';
import { CHAT_SUBJECTS, ControlTurnReply, ControlTurnRequest } from './chat';
import {
  DIRECTORY_SUBJECTS,
  EnsureUserReply,
  EnsureUserRequest,
  FirstWorkspaceReply,
  FirstWorkspaceRequest,
  VerifyApiKeyReply,
  VerifyApiKeyRequest,
} from './directory';
import {
  EXTENSION_TOKEN_SUBJECTS,
  VerifyExtensionTokenReply,
  VerifyExtensionTokenRequest,
} from './extension-tokens';
import {
  OPERATIONS_SUBJECTS,
  OperatorDeleteWorkspaceReply,
  OperatorDeleteWorkspaceRequest,
  OperatorRewrapCredentialsReply,
  OperatorRewrapCredentialsRequest,
  OperatorRetryRunReply,
  OperatorRetryRunRequest,
} from './operations';
import {
  PROVIDER_CONNECTION_SECRET_SUBJECT,
  PROVIDER_EVENT_TARGETS_SUBJECT,
  PROVIDER_EVENT_TARGETS_V1_SUBJECT,
  ProviderConnectionSecretReply,
  ProviderConnectionSecretRequest,
  ProviderEventTargetsReply,
  ProviderEventTargetsRequest,
  ProviderEventTargetsV1Request,
} from './provider-events';
import {
  GRANT_CREDITS_FROM_PAYMENT_SUBJECT,
  GrantCreditsFromPaymentReply,
  GrantCreditsFromPaymentRequest,
} from './webhooks';
import {
  AssistantModelReply,
  AssistantModelRequest,
  AssistantPromptReply,
  AssistantPromptRequest,
  STEP_SUBJECTS,
  TableRowReply,
  TableRowRequest,
} from './workflows';
import { PREPARE_TASK_ATTACHMENT } from './workspace-data';

/**
 * A request/reply subject served over the bus and reached by no HTTP route: what its callers
 * send and what they get back. Its server and its callers take both schemas from here, so the
 * two sides cannot disagree, and the schemas are published like the routes' (decision 143).
 */
export interface BusApi<
  Request extends z.ZodType = z.ZodType,
  Reply extends z.ZodType = z.ZodType,
> {
  subject: string;
  request: Request;
  reply: Reply;
}

const busApi = <Request extends z.ZodType, Reply extends z.ZodType>(
  subject: string,
  request: Request,
  reply: Reply,
): BusApi<Request, Reply> => ({ subject, request, reply });

/** Every bus-only request/reply subject, by name. */
export const BUS_APIS = {
  ensureUser: busApi(DIRECTORY_SUBJECTS.ensureUser, EnsureUserRequest, EnsureUserReply),
  firstWorkspace: busApi(
    DIRECTORY_SUBJECTS.firstWorkspace,
    FirstWorkspaceRequest,
    FirstWorkspaceReply,
  ),
  verifyApiKey: busApi(DIRECTORY_SUBJECTS.verifyApiKey, VerifyApiKeyRequest, VerifyApiKeyReply),
  verifyExtensionToken: busApi(
    EXTENSION_TOKEN_SUBJECTS.verify,
    VerifyExtensionTokenRequest,
    VerifyExtensionTokenReply,
  ),
  approvalRecipients: busApi(
    APPROVAL_SUBJECTS.recipients,
    ApprovalRecipientsRequest,
    ApprovalRecipientsReply,
  ),
  prepareTaskAttachment: PREPARE_TASK_ATTACHMENT,
  tableRow: busApi(STEP_SUBJECTS.tableRow, TableRowRequest, TableRowReply),
  assistantPrompt: busApi(
    STEP_SUBJECTS.assistantPrompt,
    AssistantPromptRequest,
    AssistantPromptReply,
  ),
  assistantModel: busApi(STEP_SUBJECTS.assistantModel, AssistantModelRequest, AssistantModelReply),
  /** Served at `controlTurnSubject(requestId)` by the replica running the turn only. */
  controlTurn: busApi(CHAT_SUBJECTS.controlTurn, ControlTurnRequest, ControlTurnReply),
  listTools: busApi(MCP_SUBJECTS.listTools, ListToolsRequest, ListToolsReply),
  callTool: busApi(MCP_SUBJECTS.callTool, CallToolRequest, CallToolReply),
  listWorkflows: busApi(WORKFLOW_SUBJECTS.listWorkflows, ListWorkflowsRequest, ListWorkflowsReply),
  startRun: busApi(WORKFLOW_SUBJECTS.startRun, StartRunRequest, StartRunReply),
  getRun: busApi(WORKFLOW_SUBJECTS.getRun, GetRunRequest, GetRunReply),
  retryRun: busApi(WORKFLOW_SUBJECTS.retryRun, RetryRunRequest, RetryRunReply),
  runOfEvent: busApi(RUN_OF_EVENT_SUBJECT, RunOfEventRequest, RunOfEventReply),
  providerConnectionSecret: busApi(
    PROVIDER_CONNECTION_SECRET_SUBJECT,
    ProviderConnectionSecretRequest,
    ProviderConnectionSecretReply,
  ),
  providerEventTargetsV1: busApi(
    PROVIDER_EVENT_TARGETS_V1_SUBJECT,
    ProviderEventTargetsV1Request,
    ProviderEventTargetsReply,
  ),
  providerEventTargets: busApi(
    PROVIDER_EVENT_TARGETS_SUBJECT,
    ProviderEventTargetsRequest,
    ProviderEventTargetsReply,
  ),
  grantCreditsFromPayment: busApi(
    GRANT_CREDITS_FROM_PAYMENT_SUBJECT,
    GrantCreditsFromPaymentRequest,
    GrantCreditsFromPaymentReply,
  ),
  operatorDeleteWorkspace: busApi(
    OPERATIONS_SUBJECTS.deleteWorkspace,
    OperatorDeleteWorkspaceRequest,
    OperatorDeleteWorkspaceReply,
  ),
  operatorRewrapCredentials: busApi(
    OPERATIONS_SUBJECTS.rewrapCredentials,
    OperatorRewrapCredentialsRequest,
    OperatorRewrapCredentialsReply,
  ),
  operatorRewrapWorkflowSecrets: busApi(
    OPERATIONS_SUBJECTS.rewrapWorkflowSecrets,
    OperatorRewrapCredentialsRequest,
    OperatorRewrapCredentialsReply,
  ),
  operatorRetryRun: busApi(
    OPERATIONS_SUBJECTS.retryRun,
    OperatorRetryRunRequest,
    OperatorRetryRunReply,
  ),
} as const;
