import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes, type RouteResponse } from './route-spec';

// ---------------------------------------------------------------- conversations

/** Who may open a chat besides its owner (decision 80 says what each lets a member do). */
export const AccessType = z.enum(['private', 'invited', 'everyone']);
export type AccessType = z.infer<typeof AccessType>;

/**
 * Chat ids in paths are plain strings: a malformed id answers the same 404 as an unknown one
 * (spec endpoint 1), never a 400 that would tell the two apart.
 */
export const ChatIdParams = z.object({ id: z.string().max(200) });
export const TurnIdParams = z.object({ requestId: z.string().max(200) });
export const AccessRequestParams = z.object({
  id: z.string().max(200),
  accessRequestId: z.string().max(200),
});
export const ParticipantParams = z.object({ id: z.string().max(200), userId: z.string().max(200) });

/** The largest message content, in characters: 413 PAYLOAD_TOO_LARGE above (decision 82). */
export const MESSAGE_CONTENT_MAX_CHARS = 32_000;
export const CHAT_TITLE_MAX_CHARS = 200;

const Title = z.string().trim().min(1).max(CHAT_TITLE_MAX_CHARS);
/** `metadata` keys are free-form; `starred` is kept per viewer (decision 81). */
const Metadata = z
  .record(z.string().max(100), z.unknown())
  .refine((value) => JSON.stringify(value).length <= 16_384, 'metadata must be at most 16 KiB');

export const CreateConversationBody = z.object({
  workspaceId: z.uuid(),
  title: Title.nullish(),
  projectId: z.uuid().nullish(),
  source: z.string().trim().min(1).max(50).nullish(),
  access_type: AccessType.optional(),
  metadata: Metadata.nullish(),
});
export type CreateConversationBody = z.infer<typeof CreateConversationBody>;

export const UpdateConversationBody = z
  .object({
    title: Title.nullable().optional(),
    access_type: AccessType.optional(),
    is_archived: z.boolean().optional(),
    metadata: Metadata.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'Nothing to change');
export type UpdateConversationBody = z.infer<typeof UpdateConversationBody>;

/** The spec's Conversation fields. */
export const Conversation = z.object({
  id: z.uuid(),
  user_id: z.uuid(),
  workspace_id: z.uuid(),
  project_id: z.uuid().nullable(),
  title: z.string().nullable(),
  source: z.string().nullable(),
  access_type: AccessType,
  is_archived: z.boolean().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  last_message: z.unknown(),
  last_activity_at: z.iso.datetime(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Conversation = z.infer<typeof Conversation>;

/** Endpoint 1's body: the conversation plus what the viewer may do with it. */
export const ViewedConversation = Conversation.extend({
  viewerIsOwner: z.boolean(),
  viewerCanEdit: z.boolean(),
});
export type ViewedConversation = z.infer<typeof ViewedConversation>;

export const ConversationResponse = z.object({ conversation: ViewedConversation });

/** Conversations pages: newest activity first; `limit` 1 to 100, default 50. */
export const CONVERSATIONS_PAGE = { default: 50, max: 100 } as const;
export const ListConversationsQuery = z.object({
  workspaceId: z.uuid(),
  cursor: z.string().max(300).optional(),
  limit: z
    .string()
    .regex(/^[0-9]{1,3}$/, 'limit must be a whole number')
    .refine(
      (value) => Number(value) >= 1 && Number(value) <= CONVERSATIONS_PAGE.max,
      `limit must be 1 to ${CONVERSATIONS_PAGE.max}`,
    )
    .optional(),
  /** `true`: only archived chats; `false` (default): only the others; `all`: both. */
  archived: z.enum(['true', 'false', 'all']).optional(),
});
export const ConversationsPage = z.object({
  conversations: z.array(ViewedConversation),
  nextCursor: z.string().nullable(),
});

/** The spec's Access-denied body (endpoint 1's 403). */
export const AccessDeniedBody = z.object({
  error: z.literal('access_denied'),
  resource: z.object({
    id: z.string(),
    type: z.literal('chat'),
    name: z.string().nullable(),
    ownerName: z.string().nullable(),
    alreadyRequested: z.boolean(),
  }),
});
export type AccessDeniedBody = z.infer<typeof AccessDeniedBody>;

/**
 * The errors of a route of one chat: its 403 is the Access-denied body when the caller is a
 * member of the workspace who may not open the chat (spec, endpoint 1), an Error body otherwise.
 */
const chatErrorResponses: Record<number, RouteResponse> = {
  ...sessionErrorResponses,
  403: {
    description: 'The Access-denied body, or FORBIDDEN',
    schema: z.union([AccessDeniedBody, ErrorBodySchema]),
  },
};

export const InviteBody = z.object({
  userIds: z.array(z.uuid()).min(1).max(100),
  canEdit: z.boolean().default(false),
});
export const Participant = z.object({
  user_id: z.uuid(),
  can_edit: z.boolean(),
  created_at: z.iso.datetime(),
});
/** A chat's participants: what listing them answers, and what an invite answers. */
export const ParticipantsResponse = z.object({ participants: z.array(Participant) });

export const AccessRequestStatus = z.enum(['pending', 'granted', 'declined']);
export const AccessRequest = z.object({
  id: z.uuid(),
  conversation_id: z.uuid(),
  user_id: z.uuid(),
  user_name: z.string().nullable(),
  status: AccessRequestStatus,
  created_at: z.iso.datetime(),
  decided_at: z.iso.datetime().nullable(),
});
export const AccessRequestResponse = z.object({ accessRequest: AccessRequest });
export const AccessRequestsResponse = z.object({ accessRequests: z.array(AccessRequest) });
export const GrantAccessBody = z.object({ canEdit: z.boolean().default(false) });

// ---------------------------------------------------------------- messages and turns

/**
 * A turn's status (decision 83): `running` until it ends as `completed` (the model answered),
 * `stopped` (cancelled by its user) or `failed` (the provider, a limit or the replica running
 * it failed; `error` says why).
 */
export const TurnStatus = z.enum(['running', 'completed', 'stopped', 'failed']);
export type TurnStatus = z.infer<typeof TurnStatus>;
export const FINAL_TURN_STATUSES: readonly TurnStatus[] = ['completed', 'stopped', 'failed'];

export const MessageRole = z.enum(['user', 'assistant']);
export const ToolCallRecord = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  result: z
    .object({
      isError: z.boolean(),
      cancelled: z.boolean(),
      content: z.unknown(),
    })
    .nullable(),
});
export const Message = z.object({
  id: z.uuid(),
  conversation_id: z.uuid(),
  role: MessageRole,
  user_id: z.uuid().nullable(),
  content: z.string(),
  /** The turn that wrote an assistant message, or that a user message started. */
  request_id: z.uuid().nullable(),
  /** An assistant message's turn status; null on user messages. */
  status: TurnStatus.nullable(),
  tool_calls: z.array(ToolCallRecord),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Message = z.infer<typeof Message>;

export const PostMessageBody = z.object({ content: z.string().trim().min(1) });
export const PostMessageResponse = z.object({ message: Message, requestId: z.uuid() });

export const MESSAGES_PAGE = { default: 100, max: 500 } as const;
export const ListMessagesQuery = z.object({
  cursor: z.string().max(300).optional(),
  limit: z
    .string()
    .regex(/^[0-9]{1,3}$/, 'limit must be a whole number')
    .refine(
      (value) => Number(value) >= 1 && Number(value) <= MESSAGES_PAGE.max,
      `limit must be 1 to ${MESSAGES_PAGE.max}`,
    )
    .optional(),
});
/** Messages oldest first; `nextCursor` pages on to newer ones. */
export const MessagesPage = z.object({
  messages: z.array(Message),
  nextCursor: z.string().nullable(),
});

export const Turn = z.object({
  requestId: z.uuid(),
  conversationId: z.uuid(),
  messageId: z.uuid(),
  status: TurnStatus,
  error: z.string().nullable(),
  /** The tool call running now, if any. */
  runningToolCall: z.object({ id: z.string(), name: z.string() }).nullable(),
  startedAt: z.iso.datetime(),
  endedAt: z.iso.datetime().nullable(),
  /** Id of the last stored event: `GET .../events` with Last-Event-ID past it waits for more. */
  lastEventId: z.string(),
});
export type Turn = z.infer<typeof Turn>;

/** Spec endpoint 6. */
export const CancelTurnBody = z.object({
  requestId: z.uuid(),
  cancelToolOnly: z.boolean().default(false),
  toolName: z.string().min(1).max(200).optional(),
});
export type CancelTurnBody = z.infer<typeof CancelTurnBody>;
export const CancelTurnResponse = z.object({
  success: z.boolean(),
  status: z.string(),
  requestId: z.string(),
  cancelledRequestIds: z.array(z.string()),
});
export type CancelTurnResponse = z.infer<typeof CancelTurnResponse>;

/**
 * What a turn's event stream carries (decision 83), in order, each with an id that grows by
 * one: `delta` text of the reply, `tool_call` the model asked for, `tool_result` its answer
 * (`cancelled` when the user stopped it), and `status` (first `running`, last the final one).
 */
export const TurnEventType = z.enum(['status', 'delta', 'tool_call', 'tool_result']);
export type TurnEventType = z.infer<typeof TurnEventType>;
export const TurnEvent = z.object({
  id: z.string(),
  event: TurnEventType,
  data: z.record(z.string(), z.unknown()),
});
export type TurnEvent = z.infer<typeof TurnEvent>;

/**
 * One long-poll answer of `chat.api.turn_events.v1` to the gateway, which writes the events
 * as Server-Sent Events and asks again from the last id until `done`.
 */
export const TurnEventsBatch = z.object({ events: z.array(TurnEvent), done: z.boolean() });
export type TurnEventsBatch = z.infer<typeof TurnEventsBatch>;

// ---------------------------------------------------------------- bus between chat replicas

/**
 * Subjects of the chat service besides its routes. `controlTurn` is suffixed with the turn's
 * request id and served only by the replica running that turn (decision 84); `turnProgress`
 * is published without a stream when a turn stores events, to wake long polls on every replica.
 */
export const CHAT_SUBJECTS = {
  controlTurn: 'chat.api.control_turn.v1',
  turnProgress: 'chat.evt.turn_progress.v1',
} as const;
export function controlTurnSubject(requestId: string): string {
  return `${CHAT_SUBJECTS.controlTurn}.${requestId}`;
}
export const ControlTurnRequest = z.object({
  cancelToolOnly: z.boolean(),
  toolName: z.string().optional(),
});
export type ControlTurnRequest = z.infer<typeof ControlTurnRequest>;
export const ControlTurnReply = z.object({
  status: TurnStatus,
  cancelledRequestIds: z.array(z.string()),
});
export type ControlTurnReply = z.infer<typeof ControlTurnReply>;
export const TurnProgress = z.object({
  requestId: z.uuid(),
  lastSeq: z.number().int(),
  /** The events just stored, when small: a waiting poll answers them without a read. */
  events: z
    .array(
      z.object({
        seq: z.number().int(),
        type: TurnEventType,
        data: z.record(z.string(), z.unknown()),
      }),
    )
    .optional(),
});
export type TurnProgress = z.infer<typeof TurnProgress>;

// ---------------------------------------------------------------- routes

const notFound = { description: 'Not found, or not openable', schema: ErrorBodySchema };

export const chatRoutes = defineRoutes([
  {
    operationId: 'create_conversation',
    summary: 'Start a chat in a workspace',
    method: 'POST',
    path: '/ai-chat/conversations',
    owner: 'chat',
    subject: 'chat.api.create_conversation.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { body: CreateConversationBody },
    responses: {
      201: { description: 'Created', schema: ConversationResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'list_conversations',
    summary: 'Chats the caller can open, newest activity first, cursor-paged',
    method: 'GET',
    path: '/ai-chat/conversations',
    owner: 'chat',
    subject: 'chat.api.list_conversations.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { query: ListConversationsQuery },
    responses: {
      200: { description: 'A page', schema: ConversationsPage },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'get_conversation',
    summary: 'Get a chat (spec endpoint 1)',
    method: 'GET',
    path: '/ai-chat/conversations/:id',
    owner: 'chat',
    subject: 'chat.api.get_conversation.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: ChatIdParams },
    responses: {
      200: { description: 'The chat', schema: ConversationResponse },
      401: { description: 'UNAUTHORIZED or SESSION_EXPIRED', schema: ErrorBodySchema },
      403: {
        description: 'A chat of the caller workspace not shared with the caller',
        schema: AccessDeniedBody,
      },
      404: notFound,
    },
  },
  {
    operationId: 'update_conversation',
    summary: 'Rename, share, archive or star a chat',
    method: 'PATCH',
    path: '/ai-chat/conversations/:id',
    owner: 'chat',
    subject: 'chat.api.update_conversation.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: ChatIdParams, body: UpdateConversationBody },
    responses: {
      200: { description: 'Updated', schema: ConversationResponse },
      ...chatErrorResponses,
    },
  },
  {
    operationId: 'delete_conversation',
    summary: 'Delete a chat (owner only)',
    method: 'DELETE',
    path: '/ai-chat/conversations/:id',
    owner: 'chat',
    subject: 'chat.api.delete_conversation.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: ChatIdParams },
    responses: { 204: { description: 'Deleted' }, ...chatErrorResponses },
  },
  {
    operationId: 'invite_to_conversation',
    summary: 'Invite workspace members to a chat, with or without edit rights',
    method: 'POST',
    path: '/ai-chat/conversations/:id/invites',
    owner: 'chat',
    subject: 'chat.api.invite_to_conversation.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: ChatIdParams, body: InviteBody },
    responses: {
      201: { description: 'Invited', schema: ParticipantsResponse },
      ...chatErrorResponses,
    },
  },
  {
    operationId: 'list_conversation_participants',
    summary: "A chat's invited participants, oldest first (anyone who can open it)",
    method: 'GET',
    path: '/ai-chat/conversations/:id/participants',
    owner: 'chat',
    subject: 'chat.api.list_conversation_participants.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: ChatIdParams },
    responses: {
      200: { description: 'The participants', schema: ParticipantsResponse },
      ...chatErrorResponses,
    },
  },
  {
    operationId: 'remove_conversation_participant',
    summary: 'Take a participant out of a chat (its owner), or leave it (the participant)',
    method: 'DELETE',
    path: '/ai-chat/conversations/:id/participants/:userId',
    owner: 'chat',
    subject: 'chat.api.remove_conversation_participant.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: ParticipantParams },
    responses: { 204: { description: 'Removed' }, ...chatErrorResponses },
  },
  {
    operationId: 'request_conversation_access',
    summary: 'Ask the owner for access to a chat (one pending request per requester)',
    method: 'POST',
    path: '/ai-chat/conversations/:id/access-requests',
    owner: 'chat',
    subject: 'chat.api.request_conversation_access.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: ChatIdParams },
    responses: {
      201: { description: 'Requested', schema: AccessRequestResponse },
      200: { description: 'Already requested: the pending request', schema: AccessRequestResponse },
      409: {
        description: 'CONFLICT: the caller can already open the chat',
        schema: ErrorBodySchema,
      },
      ...chatErrorResponses,
    },
  },
  {
    operationId: 'list_conversation_access_requests',
    summary: 'Pending access requests of a chat (owner only)',
    method: 'GET',
    path: '/ai-chat/conversations/:id/access-requests',
    owner: 'chat',
    subject: 'chat.api.list_conversation_access_requests.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: ChatIdParams },
    responses: {
      200: { description: 'Pending requests', schema: AccessRequestsResponse },
      ...chatErrorResponses,
    },
  },
  {
    operationId: 'grant_conversation_access',
    summary: 'Grant an access request, with or without edit rights (owner only)',
    method: 'POST',
    path: '/ai-chat/conversations/:id/access-requests/:accessRequestId/grant',
    owner: 'chat',
    subject: 'chat.api.grant_conversation_access.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: AccessRequestParams, body: GrantAccessBody },
    responses: {
      200: { description: 'Granted', schema: AccessRequestResponse },
      409: { description: 'CONFLICT: already decided', schema: ErrorBodySchema },
      ...chatErrorResponses,
    },
  },
  {
    operationId: 'decline_conversation_access',
    summary: 'Decline an access request (owner only)',
    method: 'POST',
    path: '/ai-chat/conversations/:id/access-requests/:accessRequestId/decline',
    owner: 'chat',
    subject: 'chat.api.decline_conversation_access.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: AccessRequestParams },
    responses: {
      200: { description: 'Declined', schema: AccessRequestResponse },
      409: { description: 'CONFLICT: already decided', schema: ErrorBodySchema },
      ...chatErrorResponses,
    },
  },
  {
    operationId: 'list_messages',
    summary: 'Messages of a chat, oldest first, cursor-paged',
    method: 'GET',
    path: '/ai-chat/conversations/:id/messages',
    owner: 'chat',
    subject: 'chat.api.list_messages.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: ChatIdParams, query: ListMessagesQuery },
    responses: { 200: { description: 'A page', schema: MessagesPage }, ...chatErrorResponses },
  },
  {
    operationId: 'post_message',
    summary: 'Send a message: the assistant starts a turn',
    method: 'POST',
    path: '/ai-chat/conversations/:id/messages',
    owner: 'chat',
    subject: 'chat.api.post_message.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: ChatIdParams, body: PostMessageBody },
    responses: {
      202: { description: 'Accepted: a turn runs', schema: PostMessageResponse },
      413: { description: 'PAYLOAD_TOO_LARGE: content too long', schema: ErrorBodySchema },
      429: {
        description: 'RATE_LIMITED: too many messages a minute (see Retry-After)',
        schema: ErrorBodySchema,
      },
      ...chatErrorResponses,
    },
  },
  {
    operationId: 'get_turn',
    summary: 'The status of a turn',
    method: 'GET',
    path: '/brain/turns/:requestId',
    owner: 'chat',
    subject: 'chat.api.get_turn.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: TurnIdParams },
    responses: { 200: { description: 'The turn', schema: Turn }, ...sessionErrorResponses },
  },
  {
    operationId: 'turn_events',
    summary: "A turn's events as Server-Sent Events, resumable with Last-Event-ID",
    method: 'GET',
    path: '/brain/turns/:requestId/events',
    owner: 'chat',
    subject: 'chat.api.turn_events.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: TurnIdParams },
    forwardHeaders: ['last-event-id'],
    responseKind: 'event_stream',
    // Each long poll is held up to 10 s by the chat service when nothing new is stored.
    timeoutMs: 30_000,
    responses: {
      200: { description: 'text/event-stream of TurnEvent', contentType: 'text/event-stream' },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'cancel_turn',
    summary: 'Stop a turn, or only its running tool call (spec endpoint 6)',
    method: 'POST',
    path: '/brain/cancel',
    owner: 'chat',
    subject: 'chat.api.cancel_turn.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { body: CancelTurnBody },
    responses: {
      200: { description: 'Stopped, or the final status', schema: CancelTurnResponse },
      ...sessionErrorResponses,
    },
  },
] as const);
