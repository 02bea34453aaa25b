import { z } from 'zod';
import { BUS_APIS, type BusApi } from './bus-apis';
import { ROUTES } from './routes';
import type { RouteSpec } from './route-spec';

/** A JSON Schema as zod writes it (draft 2020-12). */
type JsonSchema = { [keyword: string]: unknown };

/**
 * What callers of one subject send and get back, as JSON Schema. A route subject's replies are
 * keyed by HTTP status; a bus API's request is its `body` and its one reply is `reply`.
 */
export interface SubjectSchemas {
  request: { params?: JsonSchema; query?: JsonSchema; body?: JsonSchema };
  replies: Record<string, JsonSchema>;
}

const asJsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;

function schemasOf(route: RouteSpec): SubjectSchemas {
  const request: SubjectSchemas['request'] = {};
  for (const part of ['params', 'query', 'body'] as const) {
    const schema = route.request?.[part];
    if (schema) request[part] = asJsonSchema(schema, 'input');
  }
  const replies: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    if (response.schema) replies[status] = asJsonSchema(response.schema, 'output');
  }
  return { request, replies };
}

const schemasOfBusApi = (api: BusApi): SubjectSchemas => ({
  request: { body: asJsonSchema(api.request, 'input') },
  replies: { reply: asJsonSchema(api.reply, 'output') },
});

/**
 * Every route subject's and bus API's request and reply schemas, keyed by subject
 * (`<owner>.api.<name>.v<n>`): what `libs/contracts/published-schemas.json` keeps, and what a
 * change is compared with. A route's previous subject keeps what `recorded` (the file) says.
 */
export function publishedSchemas(
  recorded: Record<string, SubjectSchemas> = {},
): Record<string, SubjectSchemas> {
  // A previous version is served as it was published: its record is kept as it is.
  const previous = (ROUTES as readonly RouteSpec[]).flatMap((route): [string, SubjectSchemas][] => {
    const kept = route.previousSubject ? recorded[route.previousSubject] : undefined;
    return route.previousSubject && kept ? [[route.previousSubject, kept]] : [];
  });
  const subjects: [string, SubjectSchemas][] = [
    ...previous,
    ...ROUTES.map((route): [string, SubjectSchemas] => [route.subject, schemasOf(route)]),
    ...Object.values(BUS_APIS).map((api): [string, SubjectSchemas] => [
      api.subject,
      schemasOfBusApi(api),
    ]),
  ];
  return Object.fromEntries(subjects.sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Where `$ref`s point: each side's whole schema (a recursive schema, as steps inside steps, is
 * written once under `$defs` and referred to), and the pairs already compared (a recursion
 * compared once is compared).
 */
interface Refs {
  published: JsonSchema;
  next: JsonSchema;
  seen: Set<string>;
}

function deref(schema: JsonSchema, root: JsonSchema): { schema: JsonSchema; ref?: string } {
  const ref = schema['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return { schema };
  const defs = objectOf(root['$defs']) ?? {};
  return { schema: objectOf(defs[ref.slice('#/$defs/'.length)]) ?? {}, ref };
}

const typesOf = (schema: JsonSchema): string[] | undefined =>
  schema['type'] === undefined ? undefined : [schema['type']].flat().map(String);

const objectOf = (value: unknown): JsonSchema | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonSchema)
    : undefined;

const shown = (schema: JsonSchema): string => {
  const variants = (schema['anyOf'] ?? schema['oneOf']) as unknown[] | undefined;
  return typesOf(schema)?.join('|') ?? (variants ? `one of ${variants.length} variants` : 'any');
};

/**
 * The values `next` no longer takes (a request) or now sends (a reply) compared with
 * `published`: fewer or more types, enum values or variants, a bound, a format or a pattern.
 * Each finding reads published → next.
 */
function narrowings(
  published: JsonSchema,
  next: JsonSchema,
  path: string,
  direction: 'request' | 'reply',
  refs: Refs,
): string[] {
  // A request must take all it took; a reply must send nothing its readers never saw.
  const [wide, tight] = direction === 'request' ? [published, next] : [next, published];
  const how = direction === 'request' ? 'narrowed' : 'widened';
  const found: string[] = [];
  const wideTypes = typesOf(wide);
  const tightTypes = typesOf(tight);
  // An integer where numbers are allowed is kept; any other type lost is not.
  const lostType =
    tightTypes !== undefined &&
    (wideTypes === undefined ||
      wideTypes.some(
        (type) =>
          !tightTypes.includes(type) && !(type === 'integer' && tightTypes.includes('number')),
      ));
  if (lostType) found.push(`${path}: type ${shown(published)} → ${shown(next)} (${how})`);
  const wideEnum = wide['enum'] as unknown[] | undefined;
  const tightEnum = tight['enum'] as unknown[] | undefined;
  if (tightEnum && (!wideEnum || wideEnum.some((value) => !tightEnum.includes(value)))) {
    const values = (schema: JsonSchema) => JSON.stringify(schema['enum'] ?? 'any');
    found.push(`${path}: enum ${values(published)} → ${values(next)} (${how})`);
  }
  if ('const' in tight && JSON.stringify(tight['const']) !== JSON.stringify(wide['const'])) {
    const value = (schema: JsonSchema) => JSON.stringify(schema['const'] ?? 'any');
    found.push(`${path}: const ${value(published)} → ${value(next)} (${how})`);
  }
  for (const [keyword, tighter] of [
    ['minimum', 1],
    ['exclusiveMinimum', 1],
    ['minLength', 1],
    ['minItems', 1],
    ['maximum', -1],
    ['exclusiveMaximum', -1],
    ['maxLength', -1],
    ['maxItems', -1],
  ] as const) {
    const loose = wide[keyword] as number | undefined;
    const strict = tight[keyword] as number | undefined;
    if (strict !== undefined && (loose === undefined || (strict - loose) * tighter > 0)) {
      const bound = (schema: JsonSchema) => String(schema[keyword] ?? 'none');
      found.push(`${path}: ${keyword} ${bound(published)} → ${bound(next)} (${how})`);
    }
  }
  for (const keyword of ['format', 'pattern'] as const) {
    if (tight[keyword] !== undefined && tight[keyword] !== wide[keyword]) {
      const rule = (schema: JsonSchema) => String(schema[keyword] ?? 'none');
      found.push(`${path}: ${keyword} ${rule(published)} → ${rule(next)} (${how})`);
    }
  }
  const wideVariants = (wide['anyOf'] ?? wide['oneOf']) as JsonSchema[] | undefined;
  const tightVariants = (tight['anyOf'] ?? tight['oneOf']) as JsonSchema[] | undefined;
  if (wideVariants && tightVariants) {
    // A variant is kept when one of the other side's takes it without a break (a variant that
    // gained an optional request field still takes what it took).
    const kept = (variant: JsonSchema) =>
      tightVariants.some((other) => {
        const [was, now] = direction === 'request' ? [variant, other] : [other, variant];
        return breakingChangesOf(was, now, path, direction, refs).length === 0;
      });
    if (!wideVariants.every(kept)) found.push(`${path}: variants changed (${how})`);
  }
  return found;
}

/**
 * What in `next` breaks a caller who relied on `published`. A request breaks callers when a
 * field is removed, newly required or narrowed; a reply, when a field is removed, no longer
 * always present, or widened (a type, an enum value or a variant the caller never saw).
 */
export function breakingChangesOf(
  publishedAsWritten: JsonSchema,
  nextAsWritten: JsonSchema,
  path: string,
  direction: 'request' | 'reply',
  refs: Refs = { published: publishedAsWritten, next: nextAsWritten, seen: new Set() },
): string[] {
  const was = deref(publishedAsWritten, refs.published);
  const now = deref(nextAsWritten, refs.next);
  if (was.ref !== undefined || now.ref !== undefined) {
    const pair = `${was.ref ?? path}|${now.ref ?? path}`;
    if (refs.seen.has(pair)) return [];
    refs.seen.add(pair);
  }
  const published = was.schema;
  const next = now.schema;
  const found = narrowings(published, next, path, direction, refs);
  const propertiesAfter = objectOf(next['properties']) ?? {};
  for (const [name, schema] of Object.entries(objectOf(published['properties']) ?? {})) {
    const successor = objectOf(propertiesAfter[name]);
    if (successor) {
      found.push(
        ...breakingChangesOf(objectOf(schema) ?? {}, successor, `${path}.${name}`, direction, refs),
      );
    } else {
      found.push(`${path}.${name}: removed`);
    }
  }
  const requiredBefore = (published['required'] as string[] | undefined) ?? [];
  const requiredAfter = (next['required'] as string[] | undefined) ?? [];
  if (direction === 'request') {
    for (const name of requiredAfter) {
      if (!requiredBefore.includes(name)) found.push(`${path}.${name}: newly required`);
    }
  } else {
    for (const name of requiredBefore) {
      if (name in propertiesAfter && !requiredAfter.includes(name)) {
        found.push(`${path}.${name}: no longer always present`);
      }
    }
  }
  const itemsBefore = objectOf(published['items']);
  const itemsAfter = objectOf(next['items']);
  if (itemsBefore && itemsAfter) {
    found.push(...breakingChangesOf(itemsBefore, itemsAfter, `${path}[]`, direction, refs));
  }
  return found;
}

/**
 * The breaking changes from `published` to `next`: a published subject removed, or changed in
 * a way `breakingChangesOf` reports. A new subject (a v2 beside its v1) is never one.
 */
export function breakingChanges(
  published: Record<string, SubjectSchemas>,
  next: Record<string, SubjectSchemas>,
): string[] {
  const found: string[] = [];
  for (const [subject, schemas] of Object.entries(published)) {
    const successor = next[subject];
    if (!successor) {
      found.push(`${subject}: removed (publish a new version beside it instead)`);
      continue;
    }
    for (const part of ['params', 'query', 'body'] as const) {
      const was = schemas.request[part];
      if (!was) continue;
      const now = successor.request[part];
      if (!now) found.push(`${subject} request ${part}: removed`);
      else found.push(...breakingChangesOf(was, now, `${subject} request ${part}`, 'request'));
    }
    for (const [status, was] of Object.entries(schemas.replies)) {
      const now = successor.replies[status];
      if (!now) found.push(`${subject} reply ${status}: removed`);
      else found.push(...breakingChangesOf(was, now, `${subject} reply ${status}`, 'reply'));
    }
  }
  return found;
}
