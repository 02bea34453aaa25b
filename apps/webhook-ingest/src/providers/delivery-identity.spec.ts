import { deliveryIdentityOf } from './delivery-identity';

const raw = (body: unknown) => new TextEncoder().encode(JSON.stringify(body));

describe('a verified delivery’s identity, as each provider documents it', () => {
  test('GitHub: the delivery header, the event header with the action, installation first', () => {
    const body = {
      action: 'opened',
      installation: { id: 42 },
      repository: { full_name: 'acme/widgets', owner: { login: 'acme' } },
      organization: { login: 'acme' },
    };
    expect(
      deliveryIdentityOf(
        'github',
        { 'x-github-delivery': 'd-1', 'x-github-event': 'pull_request' },
        body,
        raw(body),
      ),
    ).toEqual({
      deliveryId: 'd-1',
      event: 'pull_request.opened',
      accountIds: ['42', 'acme/widgets', 'acme'],
    });
    // An event without an action (push) is named by its header alone.
    expect(deliveryIdentityOf('github', { 'x-github-event': 'push' }, {}, raw({}))?.event).toBe(
      'push',
    );
  });

  test('Linear: type.action and the organization; Stripe: type and the Connect account', () => {
    const issue = { type: 'Issue', action: 'create', organizationId: 'org-1' };
    expect(deliveryIdentityOf('linear', { 'linear-delivery': 'l-1' }, issue, raw(issue))).toEqual({
      deliveryId: 'l-1',
      event: 'Issue.create',
      accountIds: ['org-1'],
    });
    const invoice = { id: 'evt_1', type: 'invoice.paid', account: 'acct_1' };
    expect(deliveryIdentityOf('stripe', {}, invoice, raw(invoice))).toEqual({
      deliveryId: 'evt_1',
      event: 'invoice.paid',
      accountIds: ['acct_1'],
    });
  });

  test('Slack: only event callbacks are events; the URL check and others are not', () => {
    const mention = {
      type: 'event_callback',
      event_id: 'Ev1',
      team_id: 'T1',
      event: { type: 'app_mention' },
    };
    expect(deliveryIdentityOf('slack', {}, mention, raw(mention))).toEqual({
      deliveryId: 'Ev1',
      event: 'app_mention',
      accountIds: ['T1'],
    });
    const check = { type: 'url_verification', challenge: 'c' };
    expect(deliveryIdentityOf('slack', {}, check, raw(check))).toBeUndefined();
  });

  test('without a delivery id the body’s hash stands in, so an identical repeat is one delivery', () => {
    const body = { type: 'Issue', action: 'update' };
    const first = deliveryIdentityOf('linear', {}, body, raw(body));
    const again = deliveryIdentityOf('linear', {}, body, raw(body));
    expect(first?.deliveryId).toMatch(/^[0-9a-f]{64}$/);
    expect(again?.deliveryId).toBe(first?.deliveryId);
  });

  test('a body that names no event is none; over-long ids are not offered as accounts', () => {
    expect(deliveryIdentityOf('stripe', {}, { id: 'evt_2' }, raw({}))).toBeUndefined();
    const long = { type: 'x.y', account: 'a'.repeat(500) };
    expect(deliveryIdentityOf('stripe', {}, long, raw(long))?.accountIds).toEqual([]);
  });
});
