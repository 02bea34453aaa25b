import { AppError } from '@wap/contracts';
import {
  normalizeEmail,
  placeholderName,
  placeholderSubject,
  requireMember,
  requireMemberForNotificationSettings,
  requireOwner,
  type WorkspaceStanding,
} from './access';

const missing: WorkspaceStanding = { exists: false, role: null };
const outsider: WorkspaceStanding = { exists: true, role: null };
const member: WorkspaceStanding = { exists: true, role: 'member' };
const owner: WorkspaceStanding = { exists: true, role: 'owner' };

function failureOf(check: () => unknown): { code: string; status: number; message: string } {
  try {
    check();
  } catch (error) {
    if (error instanceof AppError) {
      return { code: error.code, status: error.status, message: error.message };
    }
    throw error;
  }
  throw new Error('expected the check to fail');
}

describe('workspace access rules', () => {
  test.each([
    ['unknown or deleted workspace', missing],
    ['outsider', outsider],
  ])('requireMember: %s gets 404 Workspace not found', (_case, standing) => {
    expect(failureOf(() => requireMember(standing))).toEqual({
      code: 'NOT_FOUND',
      status: 404,
      message: 'Workspace not found',
    });
  });

  test.each([
    ['member', member, 'member'],
    ['owner', owner, 'owner'],
  ])('requireMember: %s passes with its role', (_case, standing, role) => {
    expect(requireMember(standing)).toBe(role);
  });

  test.each([
    ['unknown or deleted workspace', missing, 'NOT_FOUND', 404, 'Workspace not found'],
    ['outsider', outsider, 'NOT_FOUND', 404, 'Workspace not found'],
    ['member', member, 'FORBIDDEN', 403, 'Only owners'],
  ])('requireOwner: %s fails with %s', (_case, standing, code, status, message) => {
    expect(failureOf(() => requireOwner(standing, 'Only owners'))).toEqual({
      code,
      status,
      message,
    });
  });

  test('requireOwner: an owner passes', () => {
    expect(() => requireOwner(owner, 'Only owners')).not.toThrow();
  });

  test.each([
    ['unknown or deleted workspace', missing, 'NOT_FOUND', 404, 'Workspace not found'],
    ['outsider', outsider, 'FORBIDDEN', 403, 'You are not a member of this workspace'],
  ])('notification settings: %s fails with %s', (_case, standing, code, status, message) => {
    expect(failureOf(() => requireMemberForNotificationSettings(standing))).toEqual({
      code,
      status,
      message,
    });
  });

  test.each([
    ['member', member, 'member'],
    ['owner', owner, 'owner'],
  ])('notification settings: a %s passes', (_case, standing, role) => {
    expect(requireMemberForNotificationSettings(standing)).toBe(role);
  });
});

describe('users added by email', () => {
  test('emails are trimmed and lower-cased', () => {
    expect(normalizeEmail('  Ada.Lovelace@Example.COM ')).toBe('ada.lovelace@example.com');
  });

  test('the placeholder subject is derived from the normalized email', () => {
    expect(placeholderSubject('Ada@Example.com')).toBe('email:ada@example.com');
  });

  test.each([
    ['Ada.Lovelace@Example.com', 'ada.lovelace'],
    ['no-at-sign', 'no-at-sign'],
  ])('placeholder name of %s is %s', (email, name) => {
    expect(placeholderName(email)).toBe(name);
  });
});
