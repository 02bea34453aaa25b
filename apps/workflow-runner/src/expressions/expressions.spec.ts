import type { Step } from '@wap/contracts';
import { expressionsIn, resolveString, type TemplateScope } from '../runs/templates';
import {
  compileExpression,
  evaluateExpression,
  ExpressionError,
  MAX_EXPRESSION_LENGTH,
  type ExpressionScope,
} from './expressions';
import { expressionProblems } from './settings-check';

const scope: ExpressionScope = {
  webhook: {
    order: {
      total: 150,
      items: [
        { sku: 'A1', qty: 2, price: 10.5 },
        { sku: 'B2', qty: 1, price: 129 },
      ],
    },
    customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    at: '2026-12-04T10:00:00Z',
  },
  steps: { 'fetch order': { status: 200, body: { id: 'order-7' } }, lookup: { found: false } },
  vars: { region: 'eu' },
};
const evaluate = (text: string) => evaluateExpression(compileExpression(text), scope);
const failure = (action: () => unknown) => {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return (error as Error).message;
  }
  throw new Error('expected an ExpressionError');
};

describe('expressions (CEL)', () => {
  test.each([
    ['webhook.order.total > 100.0', true],
    ['webhook.order.total > 100', true],
    ['webhook.order.total * 1.2', 180],
    ['webhook.order.items.size()', 2],
    ['webhook.order.items.map(item, item.sku)', ['A1', 'B2']],
    ['webhook.order.items.filter(item, item.price > 100.0).map(i, i.sku)', ['B2']],
    ['webhook.order.items.exists(item, item.sku == "B2")', true],
    ['webhook.customer.name.split(" ")[0]', 'Ada'],
    ['webhook.customer.email.endsWith("@example.com")', true],
    ['webhook.customer.name.upperAscii()', 'ADA LOVELACE'],
    ['steps["fetch order"].body.id + "-paid"', 'order-7-paid'],
    ['steps.lookup.found ? "known" : "new"', 'new'],
    ['has(webhook.customer.phone) ? webhook.customer.phone : "none"', 'none'],
    ['{"id": steps["fetch order"].body.id, "count": 2}', { id: 'order-7', count: 2 }],
    ['int(webhook.order.total) + 1', 151],
    ['timestamp(webhook.at) + duration("1h")', '2026-12-04T11:00:00Z'],
    ['b"hi"', 'aGk='],
    ['null', null],
  ])('%s is %j', (text, expected) => {
    expect(evaluate(text)).toEqual(expected);
  });

  test('what cannot be accepted is refused before it runs, saying why', () => {
    expect(failure(() => compileExpression('webhook.order.total >'))).toMatch(
      /^Not a valid expression: at column \d+: /,
    );
    expect(failure(() => compileExpression('process.env.SECRET'))).toBe(
      'Unknown name "process": an expression reads webhook (the trigger\'s body), steps (earlier steps\' outputs), vars (what set steps named) and, in a loop, item and index',
    );
    expect(failure(() => compileExpression('credentials.token'))).toMatch(
      /^Unknown name "credentials"/,
    );
    expect(
      failure(() =>
        compileExpression('webhook.order.items.map(a, webhook.order.items.map(b, a.qty * b.qty))'),
      ),
    ).toMatch(/inside another is not allowed/);
    expect(failure(() => compileExpression(`"${'x'.repeat(MAX_EXPRESSION_LENGTH)}"`))).toBe(
      `An expression has at most ${MAX_EXPRESSION_LENGTH} characters`,
    );
    expect(failure(() => compileExpression('   '))).toBe('The expression is empty');
    // A macro's own variable is a name it may read.
    expect(compileExpression('webhook.order.items.all(item, item.qty > 0.0)').roots).toEqual(
      new Set(['webhook']),
    );
  });

  test('what fails while it runs says what and how to mend it', () => {
    expect(failure(() => evaluate('webhook.customer.phone'))).toBe(
      'webhook.customer.phone: field not found: phone (has(x.field) tells whether it is there)',
    );
    expect(failure(() => evaluate('webhook.order.total * 2'))).toMatch(
      /numbers from JSON are doubles: write 2\.0 rather than 2/,
    );
    expect(failure(() => evaluate('1 / 0'))).toBe('1 / 0: int divide by zero');
    expect(failure(() => evaluate('webhook.order.total / 0.0'))).toMatch(
      /not a number JSON can hold/,
    );
    expect(
      failure(() => evaluate('webhook.order.items.map(i, webhook.customer.name + "x".repeat(5))')),
    ).toMatch(/repeat/);
  });

  test('a result larger than the bound fails rather than filling the run', () => {
    const big: ExpressionScope = {
      webhook: { text: 'x'.repeat(200_000) },
      steps: {},
      vars: {},
    };
    expect(
      failure(() => evaluateExpression(compileExpression('webhook.text + webhook.text'), big)),
    ).toMatch(/the result is larger than 256 KB/);
  });
});

describe('expressions in settings templates', () => {
  const templateScope: TemplateScope = {
    trigger: scope.webhook,
    steps: scope.steps,
    vars: scope.vars,
  };

  test('a whole placeholder keeps its type; inside text it is written as text', () => {
    expect(resolveString('{{= webhook.order.total * 2.0 }}', templateScope)).toBe(300);
    expect(resolveString('{{=webhook.order.items.map(i, i.sku)}}', templateScope)).toEqual([
      'A1',
      'B2',
    ]);
    expect(
      resolveString(
        'Order {{steps.fetch order.body.id}} of {{= webhook.order.items.size() }} items',
        templateScope,
      ),
    ).toBe('Order order-7 of 2 items');
  });

  test('a value is never read as a template: one pass fills every placeholder', () => {
    const tricky: TemplateScope = {
      trigger: { note: '{{credentials.token}} {{= webhook.secret }}' },
      steps: {},
      vars: {},
      credentials: new Map([['token', 'secret-value']]),
    };
    expect(resolveString('{{= webhook.note }}', tricky)).toBe(
      '{{credentials.token}} {{= webhook.secret }}',
    );
    expect(resolveString('note: {{= webhook.note }}', tricky)).toBe(
      'note: {{credentials.token}} {{= webhook.secret }}',
    );
  });

  test('expressions are found with the path of their setting', () => {
    expect(
      expressionsIn({
        url: 'https://example.com/{{= webhook.id }}',
        body: { lines: ['{{steps.a.b}}', '{{= 1 + 2 }} and {{= 3 }}'] },
      }),
    ).toEqual([
      { path: ['url'], text: ' webhook.id ' },
      { path: ['body', 'lines', 1], text: ' 1 + 2 ' },
      { path: ['body', 'lines', 1], text: ' 3 ' },
    ]);
  });

  test('a save learns of every expression that cannot work, with the step named', () => {
    const steps: Step[] = [
      {
        type: 'http_request',
        name: 'notify',
        settings: {
          method: 'POST',
          url: 'https://example.com',
          body: { id: '{{= steps["fetch order"].body.id }}', total: '{{= webhook.total >}}' },
        },
      },
      { type: 'delay', name: 'fetch order', settings: { seconds: 1 } },
      {
        type: 'http_request',
        name: 'later',
        settings: { method: 'POST', url: 'https://example.com/{{= steps.notify.status }}' },
      },
    ];
    expect(expressionProblems(steps)).toEqual([
      {
        path: 'body.steps.0.settings.body.id',
        message: 'Step "notify": no step before it is named "fetch order"',
      },
      {
        path: 'body.steps.0.settings.body.total',
        message: expect.stringMatching(/^Step "notify": Not a valid expression: at column/),
      },
    ]);
  });
});
