import { redactCredentialHeaders } from './credential-headers';

describe('credential headers', () => {
  test.each([
    ['Authorization', true],
    ['proxy-authorization', true],
    ['Cookie', true],
    ['x-api-key', true],
    ['X-Goog-Api-Key', true],
    ['x-auth-token', true],
    ['x-client-secret', true],
    ['x-hub-signature-256', true],
    ['stripe-signature', true],
    ['x-slack-signature', true],
    ['content-type', false],
    ['x-github-event', false],
    ['keyboard-layout', false],
    ['x-request-id', false],
  ])('%s is a credential: %s', (name, credential) => {
    expect(redactCredentialHeaders({ [name]: 'value' })[name]).toBe(
      credential ? '[redacted]' : 'value',
    );
  });
});
