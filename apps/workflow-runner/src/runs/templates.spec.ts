import { lookupVariable, resolveString, resolveTemplates, type TemplateScope } from './templates';

const scope: TemplateScope = {
  trigger: {
    customer: { name: 'Ada', address: { city: 'London' }, tags: ['vip', 'beta'] },
    amount: 42,
    paid: true,
    note: null,
  },
  steps: {
    fetch: { status: 200, body: { id: 'order-7', items: [{ sku: 'A1' }] } },
    'Send mail': { accepted: 1 },
  },
  vars: { region: 'eu', limits: { max: 3 } },
  loop: { item: { sku: 'B2', qty: 4 }, index: 1 },
};

describe('template resolution', () => {
  test.each([
    ['{{Custom Webhook.customer.name}}', 'Ada'],
    ['Hello {{Custom Webhook.customer.name}}!', 'Hello Ada!'],
    ['{{ Custom Webhook.customer.address.city }}', 'London'],
    ['{{Custom Webhook.customer.tags.1}}', 'beta'],
    ['{{Custom Webhook.amount}}', 42],
    ['{{vars.region}}', 'eu'],
    ['{{vars.limits.max}}', 3],
    ['{{item.sku}}', 'B2'],
    ['{{item}}', { sku: 'B2', qty: 4 }],
    ['line {{index}}', 'line 1'],
    ['total: {{Custom Webhook.amount}}', 'total: 42'],
    ['{{Custom Webhook.paid}}', true],
    ['{{Custom Webhook.customer.address}}', { city: 'London' }],
    ['at {{Custom Webhook.customer.address}}', 'at {"city":"London"}'],
    ['{{steps.fetch.body.id}}', 'order-7'],
    ['{{steps.fetch.body.items.0.sku}}-{{steps.Send mail.accepted}}', 'A1-1'],
    ['{{steps.fetch.status}}', 200],
  ])('%s resolves to %j', (template, expected) => {
    expect(resolveString(template, scope)).toEqual(expected);
  });

  test.each([
    ['{{Custom Webhook.missing}}', ''],
    ['{{Custom Webhook.customer.name.first}}', ''],
    ['{{Custom Webhook.note}}', ''],
    ['a{{Custom Webhook.note}}b', 'ab'],
    ['x={{Custom Webhook.nope.deeper}};', 'x=;'],
    ['{{steps.unknown.output}}', ''],
    ['{{steps.fetch.body.items.5.sku}}', ''],
    ['{{Other Group.key}}', ''],
    ['{{Custom Webhook}}', ''],
    ['{{Custom Webhook.customer.constructor}}', ''],
    ['{{Custom Webhook.customer.__proto__}}', ''],
  ])(
    'the missing variable in %s resolves to %j, never to the template text',
    (template, expected) => {
      expect(resolveString(template, scope)).toEqual(expected);
    },
  );

  test('text without placeholders is unchanged', () => {
    expect(resolveString('plain {text} here', scope)).toBe('plain {text} here');
  });

  test('settings objects and arrays are filled throughout; keys and non-strings stay', () => {
    expect(
      resolveTemplates(
        {
          url: 'https://example.com/orders/{{steps.fetch.body.id}}',
          headers: { 'x-customer': '{{Custom Webhook.customer.name}}' },
          body: {
            amount: '{{Custom Webhook.amount}}',
            list: ['{{Custom Webhook.customer.tags.0}}', 3],
          },
          retries: 2,
        },
        scope,
      ),
    ).toEqual({
      url: 'https://example.com/orders/order-7',
      headers: { 'x-customer': 'Ada' },
      body: { amount: 42, list: ['vip', 3] },
      retries: 2,
    });
  });

  test('lookupVariable tells a missing variable (undefined) from a present one', () => {
    expect(lookupVariable('Custom Webhook.absent', scope)).toBeUndefined();
    expect(lookupVariable('Custom Webhook.note', scope)).toBeNull();
  });
});
