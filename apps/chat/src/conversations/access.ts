import { AppError, type AccessType } from '@wap/contracts';

/** How a user stands to one chat, as far as opening and sending go (decision 80). */
export interface ChatStanding {
  accessType: AccessType;
  /** The chat's owner (`user_id`). */
  isOwner: boolean;
  /** Whether the user is a member of the chat's workspace (a live one). */
  isMember: boolean;
  /** The user's participant row of the chat, if it was shared with them; null otherwise. */
  participant: { canEdit: boolean } | null;
}

/** What a user may do with a chat: read it (open it, list it) and edit it (send messages). */
export interface ChatAccess {
  canRead: boolean;
  canEdit: boolean;
}

const NO_ACCESS: ChatAccess = { canRead: false, canEdit: false };

/**
 * The access rule of decision 80. Outsiders of the workspace get nothing, the owner everything.
 * `private` gives participants nothing (their rows are kept for a switch back to `invited`);
 * `invited` lets participants read, and send when `can_edit`; `everyone` lets every member
 * read, while sending still needs a participant row with `can_edit`.
 */
export function chatAccess(standing: ChatStanding): ChatAccess {
  if (!standing.isMember) return NO_ACCESS;
  if (standing.isOwner) return { canRead: true, canEdit: true };
  const participantCanEdit = standing.participant?.canEdit === true;
  switch (standing.accessType) {
    case 'private':
      return NO_ACCESS;
    case 'invited':
      return standing.participant ? { canRead: true, canEdit: participantCanEdit } : NO_ACCESS;
    case 'everyone':
      return { canRead: true, canEdit: participantCanEdit };
    default:
      return assertNever(standing.accessType);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected access type ${String(value)}`);
}

/** Owner-only actions (decision 80): a viewer who can open the chat but is not its owner. */
export function requireChatOwner(viewerIsOwner: boolean, forbiddenMessage: string): void {
  if (!viewerIsOwner) throw new AppError('FORBIDDEN', forbiddenMessage);
}

/** The metadata key kept per viewer in `viewer_states`, never in the shared metadata (decision 81). */
export const STARRED_KEY = 'starred';

/** A PATCH's `metadata` split into the shared keys it changes and the viewer's own pin. */
export interface MetadataPatch {
  /** `null`: clear every shared key; otherwise keys to set (`null` value: remove the key). */
  shared: Record<string, unknown> | null | undefined;
  /** The viewer's pin: `true`/`false` to set, undefined to leave as it is. */
  starred: boolean | undefined;
}

/**
 * Splits a PATCH's `metadata` (decision 81): `starred` goes to the viewer's own state (a boolean,
 * or null for false); every other key is a change of the shared metadata. `metadata: null`
 * clears the shared keys and leaves the pin alone.
 */
export function splitMetadataPatch(
  metadata: Record<string, unknown> | null | undefined,
): MetadataPatch {
  if (metadata === undefined) return { shared: undefined, starred: undefined };
  if (metadata === null) return { shared: null, starred: undefined };
  const { [STARRED_KEY]: starred, ...shared } = metadata;
  if (starred !== undefined && starred !== null && typeof starred !== 'boolean') {
    throw new AppError('VALIDATION_ERROR', 'Invalid request', {
      details: [{ path: ['metadata', STARRED_KEY], message: 'starred must be a boolean' }],
    });
  }
  return {
    shared: Object.keys(shared).length > 0 ? shared : undefined,
    starred: starred === undefined ? undefined : starred === true,
  };
}

/** What a PATCH asks of its caller (decision 80): owner, an editor, or any viewer. */
export type UpdateRequirement = 'owner' | 'editor' | 'viewer';

/**
 * The right a PATCH needs: `access_type` is the owner's; `title`, `is_archived` and shared
 * metadata keys need edit rights; the viewer's own pin needs only the right to open the chat.
 */
export function updateRequirement(change: {
  accessType: boolean;
  title: boolean;
  isArchived: boolean;
  sharedMetadata: boolean;
}): UpdateRequirement {
  if (change.accessType) return 'owner';
  if (change.title || change.isArchived || change.sharedMetadata) return 'editor';
  return 'viewer';
}

/**
 * The most the shared metadata may hold after a merge, in JSON characters: the limit each
 * PATCH's `metadata` has in the contracts, so many small patches cannot grow it past one.
 */
export const SHARED_METADATA_MAX_CHARS = 16_384;

/**
 * A shared-metadata patch applied to the stored keys (decision 81): `null` clears them all; a
 * key set to null is removed, any other value replaces the key's. `starred` is never stored
 * here. Null when nothing is left.
 */
export function mergeSharedMetadata(
  current: Record<string, unknown> | null,
  patch: Record<string, unknown> | null,
): Record<string, unknown> | null {
  if (patch === null) return null;
  // A Map, then fromEntries: keys such as `__proto__` stay plain keys.
  const merged = new Map(Object.entries(current ?? {}));
  for (const [key, value] of Object.entries(patch)) {
    if (key === STARRED_KEY) continue;
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  }
  if (merged.size === 0) return null;
  const metadata = Object.fromEntries(merged);
  if (JSON.stringify(metadata).length > SHARED_METADATA_MAX_CHARS) {
    throw new AppError('VALIDATION_ERROR', 'Invalid request', {
      details: [
        {
          path: ['metadata'],
          message: `metadata must be at most ${SHARED_METADATA_MAX_CHARS} characters of JSON`,
        },
      ],
    });
  }
  return metadata;
}
