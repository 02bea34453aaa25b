import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { STEP_SETTINGS } from '@wap/contracts';
import {
  cleanValue,
  constraintHint,
  fieldModelOf,
  humanize,
  initialValueOf,
  propertyFieldsOf,
  valueAt,
  type JsonSchema,
} from './json-schema';

/** The schemas as `GET /workflows/step-types` publishes them. */
const published = (type: keyof typeof STEP_SETTINGS) =>
  z.toJSONSchema(STEP_SETTINGS[type], { io: 'input' }) as JsonSchema;

describe('fieldModelOf: how each part of a schema is edited', () => {
  test('strings, enums, numbers, integers and booleans get their own controls', () => {
    expect(fieldModelOf({ type: 'string', maxLength: 200 })).toEqual({
      kind: 'text',
      multiline: false,
      maxLength: 200,
      format: undefined,
      minLength: undefined,
    });
    expect(fieldModelOf({ type: 'string', maxLength: 20_000 })).toMatchObject({
      kind: 'text',
      multiline: true,
    });
    expect(fieldModelOf({ type: 'string', enum: ['GET', 'POST'] })).toEqual({
      kind: 'select',
      options: ['GET', 'POST'],
    });
    expect(fieldModelOf({ type: 'number', minimum: 0, maximum: 10 })).toEqual({
      kind: 'number',
      integer: false,
      min: 0,
      max: 10,
    });
    expect(fieldModelOf({ type: 'integer', exclusiveMinimum: 0 })).toMatchObject({
      kind: 'number',
      integer: true,
      min: 0,
    });
    expect(fieldModelOf({ type: 'boolean' })).toEqual({ kind: 'boolean' });
  });

  test('arrays of strings are lists; arrays of an enum are checkboxes', () => {
    expect(
      fieldModelOf({ type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 1 }),
    ).toMatchObject({ kind: 'list', item: { kind: 'text', format: 'uuid' }, minItems: 1 });
    expect(
      fieldModelOf({ type: 'array', items: { type: 'string', enum: ['a', 'b'] } }),
    ).toMatchObject({ kind: 'choices', options: ['a', 'b'] });
  });

  test('nested objects become groups of their own fields, required ones marked', () => {
    const model = fieldModelOf({
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'string' } },
      required: ['city'],
    });
    expect(model.kind).toBe('object');
    expect(model.kind === 'object' && model.fields.map((f) => [f.name, f.required])).toEqual([
      ['city', true],
      ['zip', false],
    ]);
  });

  test.each<[string, JsonSchema]>([
    ['a record (headers)', { type: 'object', additionalProperties: { type: 'string' } }],
    ['any value ({})', {}],
    ['a union', { anyOf: [{ type: 'string' }, { type: 'null' }] }],
    ['a reference', { $ref: '#/$defs/x' }],
    ['an array of objects', { type: 'array', items: { type: 'object', properties: {} } }],
    ['an enum of numbers', { type: 'string', enum: [1, 2] }],
  ])('%s falls back to JSON text', (_, schema) => {
    expect(fieldModelOf(schema)).toEqual({ kind: 'json' });
  });
});

describe('the published step schemas', () => {
  test('http_request: method is a select, url a required text, headers and body JSON', () => {
    const fields = propertyFieldsOf(published('http_request'));
    expect(fields.map((f) => [f.name, f.label, f.required, f.model.kind])).toEqual([
      ['method', 'Method', true, 'select'],
      ['url', 'URL', true, 'text'],
      ['headers', 'Headers', false, 'json'],
      ['body', 'Body', false, 'json'],
    ]);
  });

  test('approval: reviewer IDs are a list of IDs, the message a text area', () => {
    const [reviewers, message] = propertyFieldsOf(published('approval'));
    expect(reviewers).toMatchObject({
      label: 'Reviewer IDs',
      required: true,
      model: { kind: 'list' },
    });
    expect(message).toMatchObject({
      label: 'Message',
      required: false,
      model: { multiline: true },
    });
    expect(reviewers && constraintHint(reviewers)).toBe('At least 1, each an ID like 0b6f…-….');
  });

  test('delay: seconds is a required number with its bounds in the hint', () => {
    const [seconds] = propertyFieldsOf(published('delay'));
    expect(seconds).toMatchObject({ name: 'seconds', required: true, model: { kind: 'number' } });
    expect(seconds && constraintHint(seconds)).toBe('0 to 604,800.');
  });

  test('new steps start with defaults, the first option of a required choice, one list entry', () => {
    expect(initialValueOf(published('http_request'))).toEqual({ method: 'GET' });
    expect(initialValueOf(published('delay'))).toEqual({});
    expect(initialValueOf(published('approval'))).toEqual({ reviewerIds: [''] });
    expect(initialValueOf(published('mcp_tool'))).toEqual({ arguments: {} });
    expect(initialValueOf(published('table_row'))).toEqual({ values: {} });
  });
});

describe('cleanValue: what is sent', () => {
  const approval = published('approval');

  test('empty list entries are left out', () => {
    expect(cleanValue(approval, { reviewerIds: ['', 'a', ''], message: 'ok' })).toEqual({
      reviewerIds: ['a'],
      message: 'ok',
    });
  });

  test('optional empty objects and lists are left out; required ones stay', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' } },
        must: { type: 'array', items: { type: 'string' } },
        nested: { type: 'object', properties: { a: { type: 'string' } } },
      },
      required: ['must'],
    };
    expect(cleanValue(schema, { tags: [''], must: [''], nested: {} })).toEqual({ must: [] });
  });

  test('the cleaned settings of a filled form pass the contracts schema', () => {
    const value = cleanValue(approval, {
      reviewerIds: ['4f8c1d5e-6a7b-4c8d-9e0f-1a2b3c4d5e6f', ''],
    });
    expect(STEP_SETTINGS.approval.safeParse(value).success).toBe(true);
  });
});

describe('labels and paths', () => {
  test.each([
    ['reviewerIds', 'Reviewer IDs'],
    ['url', 'URL'],
    ['toolName', 'Tool name'],
    ['max_runs_per_day', 'Max runs per day'],
    ['serverId', 'Server ID'],
    ['HTTPMethod', 'HTTP method'],
  ])('%s reads "%s"', (name, label) => {
    expect(humanize(name)).toBe(label);
  });

  test('valueAt follows objects and array indexes', () => {
    expect(valueAt({ a: { b: ['x', 'y'] } }, 'a.b.1')).toBe('y');
    expect(valueAt({ a: 1 }, 'a.b')).toBeUndefined();
  });
});
