import { CustomResponseInput } from './workflows';
import { parseJsonTemplate } from './custom-response-template';

describe('custom response templates at save', () => {
  test.each([
    ['plain text', 'Thanks {{body.name}}', true],
    ['JSON with quoted and bare placeholders', '{"a": "{{body.x}}", "n": {{body.n}}}', true],
    ['an escaped quote before a placeholder', '{"a": "say \\"{{body.x}}\\""}', true],
    ['an escaped quote that does not end the string', '{"a": "\\"", "b": {{body.x}}}', true],
    ['JSON that is broken', '{"a": "{{body.x}}", "n": }', false],
    ['a bare placeholder as a key', '{{{body.k}}: 1}', true],
    ['a placeholder that leaves a string open', '{"a": "{{body.x}}}', false],
  ])('%s: accepted %s', (_label, body, accepted) => {
    expect(CustomResponseInput.safeParse({ enabled: true, body }).success).toBe(accepted);
  });

  test('placeholders are told apart: a whole value or text within a string', () => {
    expect(
      parseJsonTemplate('{"a": "x {{body.a}}", "b": {{body.b}}, "c": "{{body.c}}"}')?.parts,
    ).toEqual([
      { kind: 'text', path: 'a' },
      { kind: 'value', path: 'b' },
      { kind: 'text', path: 'c' },
    ]);
  });
});
