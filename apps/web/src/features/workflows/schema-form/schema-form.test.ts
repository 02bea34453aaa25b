import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { STEP_SETTINGS } from '@wap/contracts';
import type { JsonSchema } from './json-schema';
import { SchemaForm, type SchemaFormProps } from './schema-form';

const published = (type: keyof typeof STEP_SETTINGS) =>
  z.toJSONSchema(STEP_SETTINGS[type], { io: 'input' }) as JsonSchema;

function render(props: Partial<SchemaFormProps> & { schema: JsonSchema }): string {
  return renderToStaticMarkup(
    createElement(SchemaForm, { value: {}, onChange: () => undefined, ...props }),
  );
}

/** The text of each `<label>` and `<legend>`, tags and whitespace removed. */
function labels(html: string): string[] {
  return [...html.matchAll(/<(label|legend)[^>]*>(.*?)<\/\1>/gs)].map(([, , inner]) =>
    (inner ?? '')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

/** Every `id` some label points at with `for`, and every control's `id`. */
function labelledControls(html: string): { labelled: string[]; controls: string[] } {
  const labelled = [...html.matchAll(/<label[^>]*\bfor="([^"]+)"/g)].map((match) => match[1] ?? '');
  const controls = [...html.matchAll(/<(input|select|textarea)\b([^>]*)>/g)].flatMap((match) => {
    const attributes = match[2] ?? '';
    if (/aria-label="/.test(attributes)) return [];
    if (/type="checkbox"/.test(attributes) && !/role="switch"/.test(attributes)) return [];
    return [/\bid="([^"]+)"/.exec(attributes)?.[1] ?? '(no id)'];
  });
  return { labelled, controls };
}

describe('SchemaForm renders a labelled control for each setting', () => {
  test('http_request: a select of methods, a required URL, JSON for headers and body', () => {
    const html = render({ schema: published('http_request'), value: { method: 'POST' } });
    expect(labels(html)).toEqual(['Method *', 'URL *', 'Headers', 'Body']);
    expect(html).toContain('<option value="POST" selected="">POST</option>');
    expect(html).toMatch(/<input[^>]*required=""[^>]*maxLength="4096"/);
    expect(html.match(/<textarea/g)).toHaveLength(2);
    expect(html).toContain('marks a required setting');
  });

  test('every control without an aria-label is the target of a label', () => {
    for (const type of Object.keys(STEP_SETTINGS) as (keyof typeof STEP_SETTINGS)[]) {
      const { labelled, controls } = labelledControls(render({ schema: published(type) }));
      for (const id of controls) expect(labelled).toContain(id);
    }
  });

  test('the required mark is hidden from screen readers, which hear "required" instead', () => {
    const html = render({ schema: published('delay') });
    expect(html).toContain('<span class="schema-form__required" aria-hidden="true"> *</span>');
    expect(html).toMatch(/<input[^>]*required=""[^>]*type="number"/);
    expect(html).toContain('0 to 604,800.');
  });

  test('a list of IDs has one named input and Remove button per entry, and an Add button', () => {
    const html = render({
      schema: published('approval'),
      value: { reviewerIds: ['a', 'b'] },
    });
    expect(labels(html)).toEqual(['Reviewer IDs *', 'Message']);
    expect(html).toContain('aria-label="Reviewer IDs, item 1"');
    expect(html).toContain('aria-label="Reviewer IDs, item 2"');
    expect(html).toContain('aria-label="Remove Reviewer IDs, item 2"');
    expect(html).toContain('aria-label="Add an item to Reviewer IDs"');
  });

  test('nested objects are fieldsets; booleans are switches; enums of arrays are checkboxes', () => {
    const html = render({
      schema: {
        type: 'object',
        properties: {
          address: {
            type: 'object',
            properties: { city: { type: 'string' }, zip: { type: 'integer' } },
            required: ['city'],
          },
          notify: { type: 'boolean' },
          days: { type: 'array', items: { type: 'string', enum: ['mon', 'tue'] } },
        },
        required: ['address'],
      },
      value: { address: { city: 'Oslo' }, notify: true, days: ['tue'] },
    });
    expect(labels(html)).toEqual(['Address *', 'City *', 'Zip', 'Notify', 'Days', 'mon', 'tue']);
    expect(html).toContain('value="Oslo"');
    expect(html).toMatch(/role="switch"[^>]*checked=""/);
    expect(html).toMatch(/<input type="checkbox" checked=""\/>tue/);
  });

  test('errors are shown under their field and tied to it', () => {
    const html = render({
      schema: published('delay'),
      errors: { seconds: 'Enter a value.' },
    });
    const errorId = /<p class="field__error" id="([^"]+)">Enter a value\.<\/p>/.exec(html)?.[1];
    expect(errorId).toBeDefined();
    expect(html).toMatch(new RegExp(`aria-invalid="true"[^>]*aria-describedby="[^"]*${errorId}`));
  });

  test('an override replaces one property and may show the generated control', () => {
    const html = render({
      schema: published('approval'),
      overrides: {
        reviewerIds: ({ field, generated }) =>
          createElement('div', { 'data-override': field.name }, generated),
      },
    });
    expect(html).toContain('data-override="reviewerIds"');
    expect(html).toContain('aria-label="Add an item to Reviewer IDs"');
  });

  test('a schema without properties says the step has no settings', () => {
    expect(render({ schema: { type: 'object', properties: {} } })).toContain(
      'This step has no settings.',
    );
  });
});
