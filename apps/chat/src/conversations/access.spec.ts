import type { AccessType } from '@wap/contracts';
import {
  chatAccess,
  mergeSharedMetadata,
  SHARED_METADATA_MAX_CHARS,
  splitMetadataPatch,
  updateRequirement,
  type ChatStanding,
} from './access';

type Who = 'owner' | 'editor' | 'reader' | 'member' | 'outsider' | 'outsider participant';

const WHO: Record<Who, Omit<ChatStanding, 'accessType'>> = {
  owner: { isOwner: true, isMember: true, participant: null },
  editor: { isOwner: false, isMember: true, participant: { canEdit: true } },
  reader: { isOwner: false, isMember: true, participant: { canEdit: false } },
  member: { isOwner: false, isMember: true, participant: null },
  outsider: { isOwner: false, isMember: false, participant: null },
  // A participant who has left the workspace keeps the row but not the chat.
  'outsider participant': { isOwner: false, isMember: false, participant: { canEdit: true } },
};

describe('chatAccess (decision 80)', () => {
  test.each<[AccessType, Who, boolean, boolean]>([
    ['private', 'owner', true, true],
    ['private', 'editor', false, false],
    ['private', 'reader', false, false],
    ['private', 'member', false, false],
    ['private', 'outsider', false, false],
    ['private', 'outsider participant', false, false],
    ['invited', 'owner', true, true],
    ['invited', 'editor', true, true],
    ['invited', 'reader', true, false],
    ['invited', 'member', false, false],
    ['invited', 'outsider', false, false],
    ['invited', 'outsider participant', false, false],
    ['everyone', 'owner', true, true],
    ['everyone', 'editor', true, true],
    ['everyone', 'reader', true, false],
    ['everyone', 'member', true, false],
    ['everyone', 'outsider', false, false],
    ['everyone', 'outsider participant', false, false],
  ])('%s chat, %s: canRead %s, canEdit %s', (accessType, who, canRead, canEdit) => {
    expect(chatAccess({ accessType, ...WHO[who] })).toEqual({ canRead, canEdit });
  });

  test('an owner who left the workspace cannot open their chat either', () => {
    expect(chatAccess({ accessType: 'everyone', ...WHO.owner, isMember: false })).toEqual({
      canRead: false,
      canEdit: false,
    });
  });
});

describe('updateRequirement (decision 80)', () => {
  const none = { accessType: false, title: false, isArchived: false, sharedMetadata: false };
  test.each<[string, ReturnType<typeof updateRequirement>, Partial<typeof none>]>([
    ['access_type', 'owner', { accessType: true }],
    ['access_type with a title', 'owner', { accessType: true, title: true }],
    ['title', 'editor', { title: true }],
    ['is_archived', 'editor', { isArchived: true }],
    ['shared metadata keys', 'editor', { sharedMetadata: true }],
    ['only the pin', 'viewer', {}],
  ])('%s needs a(n) %s', (_, requirement, change) => {
    expect(updateRequirement({ ...none, ...change })).toBe(requirement);
  });
});

describe('metadata patches (decision 81)', () => {
  test.each<
    [string, Record<string, unknown> | null | undefined, ReturnType<typeof splitMetadataPatch>]
  >([
    ['absent', undefined, { shared: undefined, starred: undefined }],
    ['null clears shared keys only', null, { shared: null, starred: undefined }],
    ['only the pin', { starred: true }, { shared: undefined, starred: true }],
    ['a null pin unstars', { starred: null }, { shared: undefined, starred: false }],
    [
      'shared keys and the pin',
      { color: 'red', starred: false },
      { shared: { color: 'red' }, starred: false },
    ],
    ['shared keys only', { color: null }, { shared: { color: null }, starred: undefined }],
  ])('%s', (_, metadata, split) => {
    expect(splitMetadataPatch(metadata)).toEqual(split);
  });

  test('a pin that is not a boolean is a VALIDATION_ERROR', () => {
    expect(() => splitMetadataPatch({ starred: 'yes' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
  });

  test.each<
    [
      string,
      Record<string, unknown> | null,
      Record<string, unknown> | null,
      Record<string, unknown> | null,
    ]
  >([
    ['keys are added to the stored ones', { a: 1 }, { b: 2 }, { a: 1, b: 2 }],
    [
      'a given key replaces the stored one',
      { a: 1 },
      { a: { nested: true } },
      { a: { nested: true } },
    ],
    ['a null key is removed', { a: 1, b: 2 }, { a: null }, { b: 2 }],
    ['removing the last key leaves null', { a: 1 }, { a: null }, null],
    ['null clears everything', { a: 1 }, null, null],
    ['nothing stored yet', null, { a: 1 }, { a: 1 }],
    ['starred is never stored', null, { starred: true, a: 1 }, { a: 1 }],
  ])('%s', (_, current, patch, merged) => {
    expect(mergeSharedMetadata(current, patch)).toEqual(merged);
  });

  test('__proto__ stays a plain key', () => {
    const merged = mergeSharedMetadata(null, JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(Object.keys(merged ?? {})).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  test('merged metadata past the limit is a VALIDATION_ERROR', () => {
    const half = 'x'.repeat(SHARED_METADATA_MAX_CHARS / 2);
    expect(() => mergeSharedMetadata({ a: half }, { b: half })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
  });
});
