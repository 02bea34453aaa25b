import { describe, expect, test } from 'vitest';
import { ApiError } from '../../../lib/api';
import { readAccessDenied } from './access-denied';

const resource = {
  id: '0b6f2c1e-3b1a-4a59-9a55-1f1e6f7c9d10',
  type: 'chat',
  name: 'Salary review',
  ownerName: 'Alex',
  alreadyRequested: false,
};

describe('readAccessDenied', () => {
  test('reads the chat and its owner from the 403 Access-denied body', () => {
    const error = new ApiError(403, { error: 'access_denied', resource } as never, undefined);
    expect(readAccessDenied(error)).toEqual(resource);
  });

  test.each([
    [
      'a 403 FORBIDDEN',
      new ApiError(403, { error: 'Only the owner', code: 'FORBIDDEN' }, 'FORBIDDEN'),
    ],
    ['a 404', new ApiError(404, { error: 'access_denied', resource } as never, undefined)],
    ['a body without a resource', new ApiError(403, { error: 'access_denied' }, undefined)],
    ['an error that is not an ApiError', new Error('access_denied')],
  ])('is undefined for %s', (_name, error) => {
    expect(readAccessDenied(error)).toBeUndefined();
  });
});
