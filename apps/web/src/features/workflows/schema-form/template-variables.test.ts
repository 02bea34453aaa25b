import { describe, expect, test } from 'vitest';
import {
  insertAt,
  isInsideJsonString,
  jsonTokenFor,
  MAX_VARIABLES_PER_GROUP,
  pathsOf,
  stepVariables,
  triggerVariables,
} from './template-variables';

describe('the variables of a test event body', () => {
  test('every path below the root, arrays through their first item, with a sample', () => {
    const variables = triggerVariables({
      order: { id: 7, lines: [{ sku: 'A-1' }, { sku: 'B-2' }] },
      note: 'x'.repeat(60),
    });
    expect(variables.map((variable) => [variable.expression, variable.sample])).toEqual([
      ['Custom Webhook.order', 'object'],
      ['Custom Webhook.order.id', '7'],
      ['Custom Webhook.order.lines', '2 items'],
      ['Custom Webhook.order.lines.0', 'object'],
      ['Custom Webhook.order.lines.0.sku', '"A-1"'],
      ['Custom Webhook.note', `"${'x'.repeat(39)}…`],
    ]);
  });

  test('keys the runner cannot address (dots, braces, edge spaces, empty) are left out', () => {
    const paths = pathsOf({ 'a.b': 1, '{x}': 2, ' pad': 3, '': 4, fine: 5 }).map((p) => p.path);
    expect(paths).toEqual(['fine']);
  });

  test('a body that is not an object has no variables; a huge one is cut', () => {
    expect(triggerVariables('text')).toEqual([]);
    expect(triggerVariables(null)).toEqual([]);
    const wide = Object.fromEntries(Array.from({ length: 500 }, (_, at) => [`k${at}`, at]));
    expect(triggerVariables(wide)).toHaveLength(MAX_VARIABLES_PER_GROUP);
  });
});

describe('the variables of an earlier step', () => {
  test('an object output gives its paths under steps.<name>', () => {
    expect(stepVariables('Fetch', { status: 200 }).map((v) => v.expression)).toEqual([
      'steps.Fetch.status',
    ]);
  });

  test('a scalar output is the step itself; no output, or a name with a dot, gives none', () => {
    expect(stepVariables('Count', 3)).toEqual([
      { expression: 'steps.Count', path: '(the output)', sample: '3' },
    ]);
    expect(stepVariables('Fetch', null)).toEqual([]);
    expect(stepVariables('a.b', { x: 1 })).toEqual([]);
  });
});

describe('inserting at the cursor', () => {
  test('replaces the selection and puts the caret after the token', () => {
    expect(insertAt('Order  shipped', 6, 6, '{{x}}')).toEqual({
      text: 'Order {{x}} shipped',
      caret: 11,
    });
    expect(insertAt('abcdef', 1, 4, 'Z')).toEqual({ text: 'aZef', caret: 2 });
    expect(insertAt('ab', 9, 9, 'Z')).toEqual({ text: 'abZ', caret: 3 });
  });

  test('JSON text: a quoted placeholder between values, a bare one inside a string', () => {
    const text = '{"id": , "note": "order "}';
    expect(isInsideJsonString(text, 7)).toBe(false);
    expect(jsonTokenFor(text, 7, 'Custom Webhook.order.id')).toBe('"{{Custom Webhook.order.id}}"');
    expect(isInsideJsonString(text, 24)).toBe(true);
    expect(jsonTokenFor(text, 24, 'Custom Webhook.order.id')).toBe('{{Custom Webhook.order.id}}');
    expect(isInsideJsonString('{"a": "say \\"hi', 16)).toBe(true);
  });
});
