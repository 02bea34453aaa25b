import { createHmac } from 'node:crypto';
import { Agent, request } from 'node:http';
import fc from 'fast-check';
import { z } from 'zod';
import type { RouteSpec } from '@wap/contracts';

/**
 * Generated requests for the fuzz suite: every part of a request the gateway reads (path ids,
 * query, headers, credentials, body and its framing), drawn from what a route expects and from
 * what it does not, with the real ids of a workspace mixed in so that requests reach the
 * services' own checks and not only the gateway's.
 */

/** Who a generated request claims to be. */
export type Caller = 'owner' | 'stranger' | 'anonymous' | 'garbage' | 'api_key';

/** Provider webhooks whose signature the sender computes, so bodies get past verification. */
export type Signer = 'stripe' | 'github' | 'linear' | 'slack';

/** What the generated requests can name: a workspace of the caller's, another's, a key. */
export interface FuzzWorld {
  url: string;
  ownerCookie: string;
  strangerCookie: string;
  apiKey: string;
  /** Ids of the owner's workspace and what is in it (workflows, webhooks, tables, ...). */
  ownIds: string[];
  /** The owner's ids by the parameter (`taskId`) or the first path segment (`tables`) naming them. */
  ownIdsByResource: Record<string, string[]>;
  /** Ids in the stranger's workspace. */
  foreignIds: string[];
  /** Last path segments of files really stored (task comment attachments). */
  fileNames: string[];
  secrets: Record<Signer, string>;
}

export interface FuzzRequest {
  method: string;
  /** Path and query string, already percent-encoded as they go on the wire. */
  target: string;
  caller: Caller;
  headers: [string, string][];
  body: string | Buffer | undefined;
  /** Sign the body as this provider does, at send time (signatures carry the current time). */
  signAs?: Signer;
}

export interface FuzzAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** An object with these own keys, as JSON.parse would build it (`__proto__` included). */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true });
  }
  return object;
}

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

/** Strings services tend to trip on: bounds, encodings, NUL and lone surrogates, injections. */
const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff x',
    '\uffff',
    '\u202e\u0301',
    '😀👩‍👩‍👧',
    "'; DROP TABLE users; --",
    '%00',
    '../../etc/passwd',
    '..\\..\\windows',
    '${process.env}',
    '{{workspace.id}}',
    '<script>alert(1)</script>',
    'null',
    'undefined',
    'NaN',
    '-1',
    '1e309',
    '99999999999999999999999',
    '0x10',
    'true',
    '[]',
    '{}',
    '2026-02-30T25:61:61Z',
    'http://169.254.169.254/latest/meta-data',
    'file:///etc/passwd',
    ...PROTOTYPE_KEYS,
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 200, max: 70_000 }).map((length) => 'x'.repeat(length)),
);

const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, -1, 1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308, 5e-324),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Any JSON value, wrong in type, size or content for whatever field it lands in. */
function nastyValue(ids: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      nastyString,
      nastyNumber,
      fc.boolean(),
      fc.constant(null),
      ids,
      fc.array(tie('value'), { maxLength: 4 }),
      fc
        .array(fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string()), tie('value')), {
          maxLength: 4,
        })
        .map(objectOf),
    ),
  }));
  return value;
}

/** Fields whose valid values a schema cannot say (a zone name, a cron expression). */
const KEY_HINTS: Record<string, fc.Arbitrary<unknown>> = {
  timezone: fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York', 'Mars/Olympus_Mons'),
  cron_expression: fc.constantFrom('*/5 * * * *', '0 9 * * 1-5', '0 0 31 2 *', '61 * * * *'),
};

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
};

/** A string the pattern accepts, or any short string when fast-check cannot read the pattern. */
function matchingString(pattern: string): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern));
  } catch {
    return fc.string({ maxLength: 20 });
  }
}

/**
 * Values shaped by a route's zod schema (through its JSON Schema): right keys and types, ids
 * from the world, enum members, and when `noisy`, a wrong value in place of any node one time
 * in ten.
 */
export function shapedBy(
  schema: z.ZodType,
  ids: fc.Arbitrary<string>,
  noisy: boolean,
  maxDepth = 5,
): fc.Arbitrary<unknown> {
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const nasty = nastyValue(ids);

  function resolve(node: JsonSchema): JsonSchema {
    if (!node.$ref) return node;
    const name = node.$ref.replace(/^#\/\$defs\//, '');
    return root.$defs?.[name] ?? {};
  }

  function shaped(node: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    const schemaNode = resolve(node);
    if (depth > maxDepth) return nasty;
    if (!noisy) return exact(schemaNode, depth);
    return fc.oneof(
      { weight: 9, arbitrary: exact(schemaNode, depth) },
      { weight: 1, arbitrary: nasty },
    );
  }

  function exact(node: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    if (node.const !== undefined) return fc.constant(node.const);
    if (node.enum) return fc.constantFrom(...node.enum);
    const alternatives = node.anyOf ?? node.oneOf;
    if (alternatives && alternatives.length > 0) {
      return fc.oneof(...alternatives.map((alternative) => shaped(alternative, depth + 1)));
    }
    if (node.allOf && node.allOf[0]) return shaped(node.allOf[0], depth + 1);
    const type = Array.isArray(node.type) ? node.type[0] : node.type;
    switch (type) {
      case 'object': {
        const properties = Object.entries(node.properties ?? {});
        if (properties.length === 0) {
          return fc.dictionary(fc.string({ maxLength: 10 }), nasty, { maxKeys: 3 });
        }
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [key, value] of properties) {
          const hint = KEY_HINTS[key];
          record[key] = hint ? fc.oneof(hint, shaped(value, depth + 1)) : shaped(value, depth + 1);
        }
        return fc.record(record, { requiredKeys: node.required ?? [] });
      }
      case 'array': {
        if (node.prefixItems) {
          return fc.tuple(...node.prefixItems.map((item) => shaped(item, depth + 1)));
        }
        const maxLength = Math.min(node.maxItems ?? 4, 4);
        return fc.array(shaped(node.items ?? {}, depth + 1), {
          minLength: Math.min(node.minItems ?? 0, maxLength),
          maxLength,
        });
      }
      case 'string':
        if (node.format === 'uuid') return ids;
        if (node.format === 'email') {
          return node.pattern ? matchingString(node.pattern) : fc.emailAddress();
        }
        if (node.format === 'date-time')
          return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
        if (node.format === 'uri') return fc.webUrl();
        if (node.pattern) return matchingString(node.pattern);
        return fc.string({
          minLength: node.minLength ?? 0,
          maxLength: Math.max(node.minLength ?? 0, Math.min(node.maxLength ?? 30, 30)),
        });
      case 'integer':
        return fc.integer({
          min: Math.max(node.minimum ?? -1000, Number.MIN_SAFE_INTEGER),
          max: Math.min(node.maximum ?? 1000, Number.MAX_SAFE_INTEGER),
        });
      case 'number':
        return fc.double({
          min: node.minimum ?? node.exclusiveMinimum ?? -1000,
          max: node.maximum ?? node.exclusiveMaximum ?? 1000,
          noNaN: true,
        });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case undefined:
      default:
        return nasty;
    }
  }

  return shaped(root, 0);
}

/**
 * Percent-encoded UTF-8, as encodeURIComponent writes it, but total: a lone surrogate (which
 * encodeURIComponent throws on) goes as the replacement character, as a browser sends it.
 */
function percentEncoded(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const character = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9\-_.!~*'()]/.test(character)
      ? character
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/** A query object as a query string: arrays as repeated keys. */
function queryStringOf(query: unknown): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      pairs.push(`${percentEncoded(name)}=${percentEncoded(String(item))}`);
    }
  }
  return pairs.join('&');
}

/** A path segment in place of a `:param`: real ids, any uuid, or what is not an id at all. */
function pathSegment(
  world: FuzzWorld,
  ids: fc.Arbitrary<string>,
  resourceIds: string[],
): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: resourceIds.length > 0 ? fc.constantFrom(...resourceIds) : ids },
    { weight: 3, arbitrary: ids.map(percentEncoded) },
    {
      weight: 1,
      arbitrary: world.fileNames.length > 0 ? fc.constantFrom(...world.fileNames) : ids,
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '..',
        '%2e%2e',
        '..%2f..%2fetc%2fpasswd',
        '%2F',
        '%00',
        '%',
        '%zz',
        '%E0%A4%A',
        '%C0%AE',
        '%F0%9F%98%80',
        'ABCDEF01-2345-4678-9ABC-DEF012345678',
        '00000000-0000-0000-0000-000000000000',
        '-1',
        'me',
        'null',
        'x'.repeat(5000),
      ),
    },
    { weight: 2, arbitrary: nastyString.map((text) => percentEncoded(text.slice(0, 300))) },
  );
}

/** The route's path with every `:param` filled, sometimes with a trailing slash or odd case. */
function pathOf(
  route: Pick<RouteSpec, 'path'>,
  segment: (param: string) => fc.Arbitrary<string>,
): fc.Arbitrary<string> {
  const parts = route.path
    .split('/')
    .map((part) => (part.startsWith(':') ? segment(part.slice(1)) : fc.constant(part)));
  return fc
    .tuple(fc.tuple(...parts), fc.constantFrom('', '', '', '', '/', '//'), fc.boolean())
    .map(([filled, ending, upper]) => {
      const path = filled.join('/') + ending;
      return upper ? path.replace(/[a-z]+/, (word) => word.toUpperCase()) : path;
    });
}

/** Query strings: the route's own keys with right and wrong values, repeated keys, garbage. */
function queryOf(
  route: Pick<RouteSpec, 'request'>,
  ids: fc.Arbitrary<string>,
): fc.Arbitrary<string> {
  const ownKeys = route.request?.query ? Object.keys(route.request.query.shape) : [];
  const key = fc.oneof(
    ...(ownKeys.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...ownKeys) }] : []),
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'limit',
        'cursor',
        'workspaceId',
        'workspace_id',
        'status',
        'limit[]',
        'a[b]',
        ...PROTOTYPE_KEYS,
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );
  const value = fc.oneof(
    ids,
    fc.constantFrom('-1', '0', '1', '50', '1000', '1e309', '99999999999999999999', 'NaN', ''),
    fc.base64String({ maxLength: 80 }),
    fc.constantFrom('Zm9v', 'eyJpZCI6IngifQ', '!!!', 'bm90ZXM6MQ', 'x'.repeat(4000)),
    nastyString.map((text) => text.slice(0, 200)),
  );
  return fc
    .array(fc.tuple(key, value), { maxLength: 5 })
    .chain((pairs) =>
      fc.constant(
        pairs.map(([name, text]) => `${percentEncoded(name)}=${percentEncoded(text)}`).join('&'),
      ),
    );
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=nonsense',
  'application/merge-patch+json',
  'APPLICATION/JSON',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'application/octet-stream',
  'image/png',
  'json',
  ';;;',
  '',
];

/** Headers besides credentials: framing, encodings, ids, origins, and plain garbage. */
function extraHeaders(): fc.Arbitrary<[string, string][]> {
  const latin1 = fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((code) => code !== 0x7f)
      .map((code) => String.fromCharCode(code)),
    maxLength: 60,
  });
  const header = fc.oneof(
    fc.tuple(
      fc.constant('content-encoding'),
      fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-nonsense', 'gzip, br'),
    ),
    fc.tuple(fc.constant('x-request-id'), fc.oneof(latin1, fc.constant('r'.repeat(3000)))),
    fc.tuple(
      fc.constant('last-event-id'),
      fc.oneof(latin1, fc.constantFrom('0', '-1', '999999999999', '')),
    ),
    fc.tuple(fc.constantFrom('idempotency-key', 'x-idempotency-key'), latin1),
    fc.tuple(
      fc.constant('origin'),
      fc.constantFrom('https://evil.example', 'null', 'http://localhost'),
    ),
    fc.tuple(
      fc.constant('sec-fetch-site'),
      fc.constantFrom('cross-site', 'same-site', 'same-origin', 'none', 'garbage'),
    ),
    fc.tuple(
      fc.constant('referer'),
      fc.constantFrom('https://evil.example/page', 'not a url', 'http://localhost/'),
    ),
    fc.tuple(
      fc.constant('host'),
      fc.constantFrom('example.com', 'a b', '[::1', 'x:99999', ':', 'localhost:0'),
    ),
    fc.tuple(
      fc.constant('x-forwarded-for'),
      fc.constantFrom('1.2.3.4', 'garbage', '::ffff:127.0.0.1, 10.0.0.1'),
    ),
    fc.tuple(fc.constant('x-forwarded-proto'), fc.constantFrom('https', 'gopher', '')),
    fc.tuple(
      fc.constant('accept'),
      fc.constantFrom('text/event-stream', 'application/json', '*/*', 'garbage'),
    ),
    fc.tuple(
      fc.constant('mcp-protocol-version'),
      fc.constantFrom('2025-06-18', '2026-07-28', 'nonsense'),
    ),
    fc.tuple(fc.constant('x-oversized'), fc.constantFrom('o'.repeat(8000), 'o'.repeat(20_000))),
    fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), latin1),
  );
  return fc.array(header, { maxLength: 3 });
}

/** A body as bytes: the value as JSON, broken JSON, other encodings, or no JSON at all. */
function serialized(
  value: fc.Arbitrary<unknown>,
): fc.Arbitrary<{ body: string | Buffer | undefined; contentType?: string }> {
  return fc.oneof(
    { weight: 6, arbitrary: value.map((v) => ({ body: JSON.stringify(v) ?? 'null' })) },
    {
      weight: 1,
      arbitrary: fc.tuple(value, fc.nat()).map(([v, cut]) => {
        const text = JSON.stringify(v) ?? '';
        return {
          body:
            text.slice(0, text.length === 0 ? 0 : cut % text.length) +
            (cut % 3 === 0 ? '\u0000}' : ''),
        };
      }),
    },
    {
      weight: 1,
      arbitrary: value.map((v) => ({
        body: Buffer.from(JSON.stringify(v) ?? '{}', 'utf16le'),
        contentType: 'application/json; charset=utf-16le',
      })),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ body: Buffer.from(bytes) })),
    },
    {
      // Around and far past the nesting limit of decision 119, in arrays or objects.
      weight: 1,
      arbitrary: fc
        .tuple(value, fc.integer({ min: 250, max: 6000 }), fc.boolean())
        .map(([v, depth, objects]) => {
          const inner = JSON.stringify(v) ?? 'null';
          return {
            body: objects
              ? `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`
              : `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`,
          };
        }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '',
          '{',
          '{"a":1,"a":2}',
          '[1,2,',
          '{"__proto__":{"polluted":true}}',
          '{"constructor":{"prototype":{"polluted":true}}}',
          '1e999',
          '"\\ud800"',
          '{"a":"\\u0000"}',
          '\ufeff{}',
          'a=1&b=2',
          '['.repeat(5000),
        )
        .map((body) => ({ body })),
    },
  );
}

/** A multipart/form-data body, well framed or not, with one or more file parts or none. */
function multipartBody(
  fileField: string,
  ids: fc.Arbitrary<string>,
): fc.Arbitrary<{ body: Buffer; contentType: string }> {
  const fileName = fc.oneof(
    fc.constantFrom(
      'notes.txt',
      'a.png',
      '../../etc/passwd',
      'C:\\x\\y.pdf',
      '',
      '.',
      'x'.repeat(400),
      'na"me.csv',
      'ü ñ 😀.txt',
      'a\u0001b.txt',
    ),
    fc.string({ maxLength: 30 }),
  );
  const content = fc.oneof(
    fc.constantFrom(
      Buffer.from('plain text\n'),
      Buffer.from('a,b\n1,2\n'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
      Buffer.from('%PDF-1.4\n%%EOF'),
      Buffer.from('PK\u0003\u0004garbage'),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(0),
    ),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  );
  const field = fc.record({
    name: fc.constantFrom('workspaceId', 'workspaceId', 'workspace_id', 'x'.repeat(300)),
    fileName: fc.constant(undefined),
    type: fc.constant('text/plain'),
    content: fc
      .oneof(
        ids,
        nastyString.map((text) => text.slice(0, 2000)),
      )
      .map((text) => Buffer.from(text)),
  });
  const part = fc.oneof(
    field,
    fc.record({
      name: fc.oneof(
        { weight: 4, arbitrary: fc.constant(fileField) },
        fc.constantFrom('other', '', 'file[]', '__proto__'),
      ),
      fileName: fc.option(fileName, { nil: undefined }),
      type: fc.constantFrom(
        'text/plain',
        'image/png',
        'application/pdf',
        'application/x-msdownload',
        '',
        'garbage',
      ),
      content,
    }),
  );
  return fc
    .tuple(
      fc.array(part, { minLength: 0, maxLength: 4 }),
      fc.constantFrom('fuzzboundary', 'x', '----WebKitFormBoundary7MA4YWxkTrZu0gW'),
      fc.constantFrom(
        'ok',
        'ok',
        'ok',
        'no-end',
        'truncated',
        'wrong-boundary',
        'no-boundary',
        'lf-only',
      ),
    )
    .map(([parts, boundary, framing]) => {
      const newline = framing === 'lf-only' ? '\n' : '\r\n';
      const chunks: Buffer[] = [];
      for (const item of parts) {
        const disposition = `form-data; name="${item.name}"${item.fileName === undefined ? '' : `; filename="${item.fileName}"`}`;
        chunks.push(
          Buffer.from(
            `--${boundary}${newline}Content-Disposition: ${disposition}${newline}Content-Type: ${item.type}${newline}${newline}`,
          ),
          item.content,
          Buffer.from(newline),
        );
      }
      if (framing !== 'no-end') chunks.push(Buffer.from(`--${boundary}--${newline}`));
      let body = Buffer.concat(chunks);
      if (framing === 'truncated') body = body.subarray(0, Math.floor(body.length / 2));
      const declared = framing === 'wrong-boundary' ? 'other' : boundary;
      const contentType =
        framing === 'no-boundary'
          ? 'multipart/form-data'
          : `multipart/form-data; boundary=${declared}`;
      return { body, contentType };
    });
}

/** The kind of body a route is fuzzed with, by how the gateway reads it. */
function bodyFor(
  route: Pick<RouteSpec, 'bodyKind' | 'request' | 'upload' | 'path'>,
  ids: fc.Arbitrary<string>,
  noisy: boolean,
): fc.Arbitrary<{ body: string | Buffer | undefined; contentType?: string }> {
  const loose = nastyValue(ids);
  switch (route.bodyKind) {
    case 'json':
      if (!noisy) {
        return route.request?.body
          ? shapedBy(route.request.body, ids, false).map((value) => ({
              body: JSON.stringify(value),
            }))
          : fc.constant({ body: undefined });
      }
      return serialized(route.request?.body ? shapedBy(route.request.body, ids, true) : loose);
    case 'multipart':
      return fc.oneof(
        { weight: 4, arbitrary: multipartBody(route.upload?.fileField ?? 'file', ids) },
        { weight: 1, arbitrary: serialized(loose) },
      );
    case 'raw': {
      const jsonRpc = fc.record(
        {
          jsonrpc: fc.constantFrom('2.0', '1.0'),
          id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null)),
          method: fc.constantFrom(
            'initialize',
            'tools/list',
            'tools/call',
            'server/discover',
            'ping',
            'notifications/initialized',
            'nonsense',
          ),
          params: fc.oneof(
            fc.record(
              {
                name: fc.constantFrom(
                  'list_workflows',
                  'run_workflow',
                  'get_run',
                  'retry_run',
                  'nope',
                ),
                arguments: loose,
              },
              { requiredKeys: [] },
            ),
            fc.record(
              {
                protocolVersion: fc.constantFrom('2025-06-18', '2025-11-25', 'x'),
                capabilities: loose,
                clientInfo: loose,
              },
              { requiredKeys: [] },
            ),
            loose,
          ),
        },
        { requiredKeys: ['jsonrpc', 'method'] },
      );
      const providerEvent = fc.record(
        {
          type: fc.constantFrom(
            'url_verification',
            'event_callback',
            'customer.created',
            'Issue',
            'ping',
          ),
          challenge: fc.string({ maxLength: 20 }),
          action: fc.constantFrom('create', 'update', 'opened'),
          id: ids,
          data: loose,
          event: loose,
          webhookTimestamp: fc.constant(0),
        },
        { requiredKeys: [] },
      );
      return fc.oneof(
        serialized(route.path === '/mcp' ? jsonRpc : providerEvent),
        serialized(loose),
        { weight: 1, arbitrary: fc.constant({ body: undefined }) },
      );
    }
    case 'none':
      return fc.oneof(
        { weight: 4, arbitrary: fc.constant({ body: undefined }) },
        { weight: 1, arbitrary: serialized(loose) },
      );
  }
}

/** The real ids of the world as often as made-up ones: the stranger's ones, any uuid, none. */
export function idsOf(world: FuzzWorld): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...world.ownIds) },
    { weight: 2, arbitrary: fc.constantFrom(...world.foreignIds) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.uuid().map((id) => id.toUpperCase()) },
  );
}

const SIGNERS: Record<string, Signer> = {
  '/webhooks/stripe': 'stripe',
  '/webhooks/github': 'github',
  '/webhooks/linear': 'linear',
  '/webhooks/slack/events': 'slack',
};

/** Generated requests for one route of the table (or one of the gateway's own routes). */
export function requestsFor(
  route: Pick<RouteSpec, 'method' | 'path' | 'auth' | 'bodyKind' | 'request' | 'upload'>,
  world: FuzzWorld,
): fc.Arbitrary<FuzzRequest> {
  const ids = idsOf(world);
  const callerOf: Record<RouteSpec['auth'], fc.Arbitrary<Caller>> = {
    session: fc.oneof(
      { weight: 6, arbitrary: fc.constant<Caller>('owner') },
      fc.constantFrom<Caller>('stranger', 'anonymous', 'garbage', 'api_key'),
    ),
    api_key: fc.oneof(
      { weight: 6, arbitrary: fc.constant<Caller>('api_key') },
      fc.constantFrom<Caller>('owner', 'anonymous', 'garbage'),
    ),
    none: fc.constantFrom<Caller>('anonymous', 'anonymous', 'owner', 'garbage'),
  };
  const signer = SIGNERS[route.path];
  // A named parameter (`:taskId`, `:name`) takes the ids known by that name, `:id` those of the
  // path's resource (`/tables/:id`).
  const resource = route.path.split('/')[1] ?? '';
  const segment = (param: string) =>
    pathSegment(
      world,
      ids,
      world.ownIdsByResource[param] ?? world.ownIdsByResource[resource] ?? [],
    );
  const ownCaller: Record<RouteSpec['auth'], Caller> = {
    session: 'owner',
    api_key: 'api_key',
    none: 'anonymous',
  };
  // One request in four is what a client of the API would send, so that the services' own
  // checks and writes, not only the gateway's refusals, meet the generated values.
  const wellFormed = fc.record({
    method: fc.constant(route.method),
    path: pathOf(route, segment),
    query: route.request?.query
      ? shapedBy(route.request.query, ids, false).map(queryStringOf)
      : fc.constant(''),
    caller: fc.constant(ownCaller[route.auth]),
    body: bodyFor(route, ids, false),
    contentType: fc.constant(undefined),
    headers: fc.constant<[string, string][]>(
      // An MCP client says it takes both answers of Streamable HTTP; the SDK refuses it otherwise.
      route.path === '/mcp' ? [['accept', 'application/json, text/event-stream']] : [],
    ),
    signed: fc.constant(true),
  });
  const anything = fc.record({
    method: fc.oneof(
      { weight: 19, arbitrary: fc.constant(route.method) },
      fc.constantFrom('PUT', 'OPTIONS', 'PATCH', 'DELETE', 'POST'),
    ),
    path: pathOf(route, segment),
    query: fc.oneof(
      { weight: 1, arbitrary: fc.constant('') },
      { weight: 2, arbitrary: queryOf(route, ids) },
    ),
    caller: callerOf[route.auth],
    body: bodyFor(route, ids, true),
    contentType: fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      fc.constantFrom(...CONTENT_TYPES),
    ),
    headers: extraHeaders(),
    signed: fc.boolean(),
  });
  return fc
    .oneof({ weight: 3, arbitrary: anything }, { weight: 1, arbitrary: wellFormed })
    .map(({ method, path, query, caller, body, contentType, headers, signed }) => {
      const type =
        contentType ??
        body.contentType ??
        (body.body === undefined
          ? undefined
          : route.bodyKind === 'multipart'
            ? undefined
            : 'application/json');
      return {
        method,
        target: query ? `${path}?${query}` : path,
        caller,
        headers:
          type === undefined ? headers : [['content-type', type] as [string, string], ...headers],
        body: body.body,
        signAs: signer && signed ? signer : undefined,
      };
    });
}

function hmacHex(secret: string, ...parts: (string | Buffer)[]): string {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
}

/** The provider's signature headers over the body, as of now. */
function signatureHeaders(signer: Signer, secret: string, body: Buffer): [string, string][] {
  const seconds = String(Math.floor(Date.now() / 1000));
  switch (signer) {
    case 'stripe':
      return [['stripe-signature', `t=${seconds},v1=${hmacHex(secret, `${seconds}.`, body)}`]];
    case 'github':
      return [['x-hub-signature-256', `sha256=${hmacHex(secret, body)}`]];
    case 'linear':
      return [['linear-signature', hmacHex(secret, body)]];
    case 'slack':
      return [
        ['x-slack-request-timestamp', seconds],
        ['x-slack-signature', `v0=${hmacHex(secret, `v0:${seconds}:`, body)}`],
      ];
  }
}

function credentialHeaders(caller: Caller, world: FuzzWorld): [string, string][] {
  switch (caller) {
    case 'owner':
      return [['cookie', world.ownerCookie]];
    case 'stranger':
      return [['cookie', world.strangerCookie]];
    case 'anonymous':
      return [];
    case 'garbage':
      return [
        ['cookie', 'session=eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.; session=other'],
        ['authorization', 'Bearer sk_not_a_key'],
      ];
    case 'api_key':
      return [['authorization', `Bearer ${world.apiKey}`]];
  }
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });

/** Longest wait for an answer; an event stream is read this long at most, then closed. */
const ANSWER_WAIT_MS = 15_000;
const STREAM_READ_MS = 1_000;
/** Bytes of an answer kept for the checks: enough for any Error body and a stack in it. */
const KEPT_BYTES = 256 * 1024;

/** Sends one generated request over a real socket and reads its answer. */
export function send(world: FuzzWorld, fuzz: FuzzRequest): Promise<FuzzAnswer> {
  let body =
    fuzz.body === undefined
      ? undefined
      : Buffer.isBuffer(fuzz.body)
        ? fuzz.body
        : Buffer.from(fuzz.body);
  if (body && fuzz.signAs === 'linear') {
    body = Buffer.from(
      body.toString('utf8').replace('"webhookTimestamp":0', `"webhookTimestamp":${Date.now()}`),
    );
  }
  const headers: [string, string][] = [...credentialHeaders(fuzz.caller, world), ...fuzz.headers];
  if (body && fuzz.signAs)
    headers.push(...signatureHeaders(fuzz.signAs, world.secrets[fuzz.signAs], body));
  if (body) headers.push(['content-length', String(body.length)]);
  const url = new URL(world.url);
  // Headers given as a list are sent as they are: without a Host of the request's own.
  if (!headers.some(([name]) => name === 'host')) headers.unshift(['host', url.host]);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: fuzz.method,
        path: fuzz.target,
        headers: headers.flat(),
        agent: keepAlive,
        timeout: ANSWER_WAIT_MS,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const contentType = String(incoming.headers['content-type'] ?? '');
        const finish = () =>
          resolve({
            status: incoming.statusCode ?? 0,
            contentType,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        if (contentType.startsWith('text/event-stream')) {
          setTimeout(() => {
            incoming.destroy();
            finish();
          }, STREAM_READ_MS).unref();
        }
        incoming.on('data', (chunk: Buffer) => {
          if (kept < KEPT_BYTES) chunks.push(chunk);
          kept += chunk.length;
        });
        incoming.on('end', finish);
        incoming.on('error', finish);
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`no answer within ${ANSWER_WAIT_MS} ms`)),
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
