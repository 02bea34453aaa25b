import type { Participant, ViewedConversation } from '@wap/contracts';
import type { z } from 'zod';
import type { AccessRequest } from '@wap/contracts';
import { STARRED_KEY } from './access';
import type { AccessRequestRecord, ConversationRecord, ParticipantRecord } from './records';

/** What one viewer has of a chat besides its record. */
export interface Viewer {
  isOwner: boolean;
  canEdit: boolean;
  starred: boolean;
}

/**
 * A chat as one viewer sees it (spec Conversation plus viewerIsOwner and viewerCanEdit). Its
 * `metadata` is the shared keys plus `starred`, always a boolean: this viewer's own pin, never
 * another's (decision 81).
 */
export function conversationView(record: ConversationRecord, viewer: Viewer): ViewedConversation {
  return {
    id: record.id,
    user_id: record.userId,
    workspace_id: record.workspaceId,
    project_id: record.projectId,
    title: record.title,
    source: record.source,
    access_type: record.accessType,
    is_archived: record.isArchived,
    metadata: { ...record.metadata, [STARRED_KEY]: viewer.starred },
    last_message: record.lastMessage ?? null,
    last_activity_at: record.lastActivityAt.toISOString(),
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    viewerIsOwner: viewer.isOwner,
    viewerCanEdit: viewer.canEdit,
  };
}

export function participantView(participant: ParticipantRecord): z.infer<typeof Participant> {
  return {
    user_id: participant.userId,
    can_edit: participant.canEdit,
    created_at: participant.createdAt.toISOString(),
  };
}

export function accessRequestView(request: AccessRequestRecord): z.infer<typeof AccessRequest> {
  return {
    id: request.id,
    conversation_id: request.conversationId,
    user_id: request.userId,
    user_name: request.userName,
    status: request.status,
    created_at: request.createdAt.toISOString(),
    decided_at: request.decidedAt?.toISOString() ?? null,
  };
}
