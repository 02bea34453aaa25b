import { credentialNamesIn, literalSecretHeaders } from './workspace-credentials';

describe('workspace credentials in step settings', () => {
  test('the names a settings value refers to, each once, wherever they stand', () => {
    expect(
      credentialNamesIn({
        url: 'https://api.example.com/?key={{credentials.KEY}}',
        headers: {
          authorization: 'Bearer {{ credentials.TOKEN }}',
          'x-again': '{{credentials.KEY}}',
        },
        body: ['{{steps.a.b}}', { note: '{{Custom Webhook.x}}' }],
      }),
    ).toEqual(['KEY', 'TOKEN']);
    expect(credentialNamesIn('no templates')).toEqual([]);
  });

  test('credential headers written into the workflow are flagged; references and fetched tokens are not', () => {
    expect(
      literalSecretHeaders({
        headers: {
          authorization: 'Bearer sk_live_123',
          'x-api-key': 'abc',
          cookie: '{{credentials.SESSION}}',
          'x-auth-token': 'Bearer {{steps.login.body.token}}',
          'x-trace': 'plain value',
        },
      }),
    ).toEqual(['authorization', 'x-api-key']);
    expect(literalSecretHeaders({ url: 'https://example.com' })).toEqual([]);
  });
});
