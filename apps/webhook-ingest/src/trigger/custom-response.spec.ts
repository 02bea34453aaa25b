import { renderCustomResponse } from './custom-response';

const body = { order: { id: 'o-1', total: 42 }, name: 'Ada', tags: ['a', 'b'], empty: '' };

describe('renderCustomResponse', () => {
  test.each([
    ['an empty text sends the default custom body', '', { status: 'ok' }],
    ['plain JSON is sent as is', '{"received": true}', { received: true }],
    [
      'placeholders inside strings are filled as text',
      '{"message": "Thanks {{body.name}}, order {{body.order.id}}"}',
      { message: 'Thanks Ada, order o-1' },
    ],
    [
      'a string that is one placeholder keeps the value type',
      '{"total": "{{body.order.total}}", "tags": "{{ body.tags }}"}',
      { total: 42, tags: ['a', 'b'] },
    ],
    [
      'a bare placeholder in JSON is filled with JSON',
      '{"total": {{body.order.total}}}',
      { total: 42 },
    ],
    ['an empty string value can be echoed', '{"e": "{{body.empty}}"}', { e: '' }],
  ])('%s', (_label, template, expected) => {
    expect(renderCustomResponse(template, body)).toEqual({ status: 200, body: expected });
  });

  test("a sender's value cannot add keys or close a string: quoted and bare placeholders mixed are filled as JSON", () => {
    const injected = { x: '", "admin": true, "z": "', n: 5 };
    expect(renderCustomResponse('{"a": "{{body.x}}", "n": {{body.n}}}', injected)).toEqual({
      status: 200,
      body: { a: '", "admin": true, "z": "', n: 5 },
    });
    expect(renderCustomResponse('{"a": "id {{body.x}}", "n": {{body.n}}}', injected)).toEqual({
      status: 200,
      body: { a: 'id ", "admin": true, "z": "', n: 5 },
    });
  });

  test('{{Custom Webhook.<key>}} is the same value as {{body.<key>}}, in keys too', () => {
    expect(
      renderCustomResponse('{"{{Custom Webhook.name}}": {{Custom Webhook.order.total}}}', body),
    ).toEqual({ status: 200, body: { Ada: 42 } });
  });

  test('text that is not JSON goes out as plain text', () => {
    expect(renderCustomResponse('Hello {{body.name}}, total {{body.order.total}}', body)).toEqual({
      status: 200,
      body: 'Hello Ada, total 42',
      bodyKind: 'text',
    });
  });

  test.each([
    ['a missing field in JSON', '{"x": "{{body.missing}}"}'],
    ['a missing nested field', '{"x": "id {{body.order.nothing}}"}'],
    ['a missing field in text', 'Hello {{body.nobody}}'],
    ['a path through a scalar', '{"x": "{{body.name.first}}"}'],
  ])('%s cannot be filled: undefined, so the default response is sent', (_label, template) => {
    expect(renderCustomResponse(template, body)).toBeUndefined();
  });
});
