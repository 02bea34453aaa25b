import { z } from 'zod';
import { BUS_APIS } from './bus-apis';
import {
  breakingChanges,
  breakingChangesOf,
  publishedSchemas,
  type SubjectSchemas,
} from './published-schemas';

const json = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io }) as Record<string, unknown>;
const request = (before: z.ZodType, after: z.ZodType) =>
  breakingChangesOf(json(before, 'input'), json(after, 'input'), 'body', 'request');
const reply = (before: z.ZodType, after: z.ZodType) =>
  breakingChangesOf(json(before, 'output'), json(after, 'output'), 'reply', 'reply');

const Body = z.object({ name: z.string(), mode: z.enum(['a', 'b']), note: z.string().optional() });

describe('breakingChangesOf', () => {
  test('a new optional field, a wider enum or a looser bound break no caller of a request', () => {
    expect(request(Body, Body.extend({ extra: z.string().optional() }))).toEqual([]);
    expect(request(Body, Body.extend({ mode: z.enum(['a', 'b', 'c']) }))).toEqual([]);
    expect(
      request(Body.extend({ name: z.string().max(10) }), Body.extend({ name: z.string().max(20) })),
    ).toEqual([]);
  });

  test('a request field removed, newly required or narrowed breaks its callers', () => {
    expect(request(Body, Body.omit({ note: true }))).toEqual(['body.note: removed']);
    expect(request(Body, Body.extend({ note: z.string() }))).toEqual(['body.note: newly required']);
    expect(request(Body, Body.extend({ mode: z.enum(['a']) }))).toEqual([
      'body.mode: enum ["a","b"] → ["a"] (narrowed)',
    ]);
    expect(request(Body, Body.extend({ name: z.string().max(5) }))).toEqual([
      'body.name: maxLength none → 5 (narrowed)',
    ]);
    expect(request(Body, Body.extend({ name: z.number() }))).toEqual([
      'body.name: type string → number (narrowed)',
    ]);
  });

  test('a reply field removed, made optional or widened breaks its readers; narrowed does not', () => {
    expect(reply(Body, Body.omit({ name: true }))).toEqual(['reply.name: removed']);
    expect(reply(Body, Body.extend({ name: z.string().optional() }))).toEqual([
      'reply.name: no longer always present',
    ]);
    expect(reply(Body, Body.extend({ mode: z.enum(['a', 'b', 'c']) }))).toEqual([
      'reply.mode: enum ["a","b"] → ["a","b","c"] (widened)',
    ]);
    expect(reply(Body, Body.extend({ name: z.string().nullable() }))).toEqual([
      'reply.name: type string → string|null (widened)',
    ]);
    expect(reply(Body, Body.extend({ mode: z.enum(['a']) }))).toEqual([]);
    expect(reply(Body, Body.extend({ note: z.string() }))).toEqual([]);
  });
});

describe('variants of a union', () => {
  const Kind = (extra: z.ZodRawShape = {}) =>
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('a'), value: z.string(), ...extra }),
      z.object({ type: z.literal('b'), count: z.number() }),
    ]);

  test('a variant that gained an optional request field still takes what it took', () => {
    expect(request(Kind(), Kind({ note: z.string().optional() }))).toEqual([]);
  });

  test('a variant that now requires a field, or one gone, breaks the callers of a request', () => {
    expect(request(Kind(), Kind({ note: z.string() }))).toEqual([
      'body: variants changed (narrowed)',
    ]);
    expect(
      request(
        Kind(),
        z.discriminatedUnion('type', [z.object({ type: z.literal('b'), count: z.number() })]),
      ),
    ).toEqual(['body: variants changed (narrowed)']);
  });

  test('a reply variant its readers never saw breaks them; a new field in one does not', () => {
    expect(reply(Kind(), Kind({ note: z.string() }))).toEqual([]);
    const withC = z.discriminatedUnion('type', [
      z.object({ type: z.literal('a'), value: z.string() }),
      z.object({ type: z.literal('b'), count: z.number() }),
      z.object({ type: z.literal('c') }),
    ]);
    expect(reply(Kind(), withC)).toEqual(['reply: variants changed (widened)']);
  });
});

describe('breakingChanges', () => {
  const schemas = (body: z.ZodType): SubjectSchemas => ({
    request: { body: json(body, 'input') },
    replies: { '200': json(Body, 'output') },
  });

  test('a recursive schema is compared through its $refs, where the recursion goes', () => {
    type Node = { kind: string; children?: Node[] };
    const treeOf = (kinds: [string, ...string[]]) => {
      const node: z.ZodType<Node> = z.object({
        kind: z.enum(kinds),
        children: z.lazy(() => z.array(node)).optional(),
      });
      return z.object({ nodes: z.array(node) });
    };
    expect(reply(treeOf(['a', 'b']), treeOf(['a', 'b']))).toEqual([]);
    // A kind the readers never saw, anywhere in the tree, is a break.
    expect(reply(treeOf(['a', 'b']), treeOf(['a', 'b', 'c']))).toEqual([
      'reply.nodes[].kind: enum ["a","b"] → ["a","b","c"] (widened)',
    ]);
  });

  test('a new version beside the old one is not a break; removing the published one is', () => {
    const v1 = { 'storage.api.create_thing.v1': schemas(Body) };
    const v2 = { ...v1, 'storage.api.create_thing.v2': schemas(Body.extend({ note: z.string() })) };
    expect(breakingChanges(v1, v2)).toEqual([]);
    expect(
      breakingChanges(v2, { 'storage.api.create_thing.v2': v2['storage.api.create_thing.v2'] }),
    ).toEqual(['storage.api.create_thing.v1: removed (publish a new version beside it instead)']);
  });

  test('a change inside a published version is reported with its subject and part', () => {
    const v1 = { 'storage.api.create_thing.v1': schemas(Body) };
    expect(
      breakingChanges(v1, {
        'storage.api.create_thing.v1': schemas(Body.extend({ note: z.string() })),
      }),
    ).toEqual(['storage.api.create_thing.v1 request body.note: newly required']);
  });
});

describe('publishedSchemas', () => {
  test('records every bus API, and a field dropped from its reply is a break', () => {
    const published = publishedSchemas();
    for (const api of Object.values(BUS_APIS)) {
      expect(published[api.subject]?.replies['reply']).toBeDefined();
    }
    const subject = BUS_APIS.ensureUser.subject;
    const entry = published[subject];
    if (!entry) throw new Error(`${subject} is not published`);
    const withoutUserId: SubjectSchemas = {
      ...entry,
      replies: { reply: { ...entry.replies['reply'], properties: {}, required: [] } },
    };
    expect(breakingChanges(published, { ...published, [subject]: withoutUserId })).toEqual([
      `${subject} reply reply.userId: removed`,
    ]);
  });
});
