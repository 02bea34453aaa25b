import { describe, expect, test } from 'vitest';
import { AddMemberBody, CreateApiKeyBody, CreateWorkspaceBody } from '@wap/contracts';
import { validateForm } from './validate-form';

describe('validateForm with the contracts schemas', () => {
  test('valid values come back parsed (trimmed as the service trims them)', () => {
    expect(validateForm(CreateWorkspaceBody, { name: '  Acme  ' })).toEqual({
      ok: true,
      data: { name: 'Acme' },
    });
  });

  test.each([
    [CreateWorkspaceBody, { name: '   ' }, { name: 'Enter a value.' }],
    [CreateApiKeyBody, { name: 'x'.repeat(201) }, { name: 'Use at most 200 characters.' }],
    [
      AddMemberBody,
      { email: 'not-an-email', role: 'member' },
      { email: 'Enter an email address, like name@example.com.' },
    ],
    [
      AddMemberBody,
      { email: 'a@example.com', role: 'admin' },
      { role: 'Choose one of the options.' },
    ],
    [AddMemberBody, { role: 'member' }, { email: 'Enter a value.' }],
  ])('%#: each failing field gets one readable message', (schema, values, errors) => {
    expect(validateForm(schema, values)).toEqual({ ok: false, errors });
  });
});
