import type { McpAccessMode, WorkspaceRole } from '@wap/contracts';
import { canManage, canUse } from './access';

const CREATOR = 'creator';
const LISTED = 'listed';
const OTHER = 'other';

function server(accessMode: McpAccessMode) {
  return { createdBy: CREATOR, accessMode, accessibleTo: [LISTED] };
}

describe('access modes', () => {
  test.each<[McpAccessMode, string, WorkspaceRole | undefined, boolean]>([
    ['everyone', OTHER, 'member', true],
    ['everyone', OTHER, undefined, false],
    ['specific', LISTED, 'member', true],
    ['specific', OTHER, 'member', false],
    ['specific', OTHER, 'owner', true],
    ['specific_users', LISTED, 'member', true],
    ['specific_users', OTHER, 'owner', false],
    ['specific_users', LISTED, undefined, false],
    ['creator_only', CREATOR, 'member', true],
    ['creator_only', LISTED, 'member', false],
    ['creator_only', OTHER, 'owner', false],
  ])('%s: %s as %s may use it: %s', (mode, userId, role, expected) => {
    expect(canUse(server(mode), userId, role)).toBe(expected);
  });

  test.each<[string, WorkspaceRole | undefined, boolean]>([
    [CREATOR, 'member', true],
    [OTHER, 'owner', true],
    [LISTED, 'member', false],
    [CREATOR, undefined, false],
  ])('%s as %s may manage it: %s', (userId, role, expected) => {
    expect(canManage(server('everyone'), userId, role)).toBe(expected);
  });
});
