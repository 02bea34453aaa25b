import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ErrorBodySchema, type RouteResponse, type RouteSpec } from '@wap/contracts';

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
}

function parametersOf(route: RouteSpec): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  for (const [location, schema] of [
    ['path', route.request?.params],
    ['query', route.request?.query],
  ] as const) {
    if (!schema) continue;
    for (const [name, field] of Object.entries(schema.shape)) {
      parameters.push({
        name,
        in: location,
        required: location === 'path' || !(field as z.ZodType).safeParse(undefined).success,
        schema: schemaOf(field as z.ZodType, 'input'),
      });
    }
  }
  return parameters;
}

const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The media types and schemas of one declared answer. */
function contentOf(response: RouteResponse): JsonSchema | undefined {
  const content: JsonSchema = {};
  if (response.schema || response.contentType) {
    const type = response.contentType ?? 'application/json';
    content[type] = {
      schema: response.schema
        ? schemaOf(response.schema, 'output')
        : type.startsWith('text/')
          ? { type: 'string' }
          : {},
    };
  }
  for (const alternative of response.alsoAs ?? []) {
    content[alternative.contentType] = {
      schema: alternative.schema ? schemaOf(alternative.schema, 'output') : { type: 'string' },
    };
  }
  return Object.keys(content).length > 0 ? content : undefined;
}

/**
 * What the edge answers on its own before or instead of a route's service (decision 126): a
 * malformed path or body (400), a body over the limit (413), a media type, encoding or charset
 * it does not read and a body on a body-less write (415), for session routes the missing or
 * expired session (401) and a cross-site cookie write (403), and on every route a fault (500)
 * or a service that did not answer (503).
 */
function edgeResponsesOf(route: RouteSpec): Record<string, RouteResponse> {
  const error = (description: string): RouteResponse => ({ description, schema: ErrorBodySchema });
  const responses: Record<string, RouteResponse> = {
    400: error('VALIDATION_ERROR: a malformed path, query or body'),
  };
  if (route.bodyKind !== 'none') {
    responses[413] = error('PAYLOAD_TOO_LARGE');
    responses[415] = error(
      'UNSUPPORTED_MEDIA_TYPE: not the route’s media type, or an unknown encoding or charset',
    );
  }
  if (route.bodyKind === 'none' && UNSAFE_METHODS.has(route.method)) {
    responses[415] = error('UNSUPPORTED_MEDIA_TYPE: this route takes no body');
  }
  if (route.auth === 'session') {
    responses[401] = error('UNAUTHORIZED or SESSION_EXPIRED');
    responses[403] = error('FORBIDDEN: not allowed, or a cookie write from another site');
  }
  responses[500] = error('INTERNAL_ERROR: a fault of the platform (no details are sent)');
  responses[503] = error('SERVICE_UNAVAILABLE: the service behind the route did not answer');
  if (route.auth === 'api_key')
    responses[401] = error('UNAUTHORIZED: a workspace API key is required');
  return responses;
}

/** Header parameters: those forwarded to the service, which the route reads. */
function headerParametersOf(route: RouteSpec): JsonSchema[] {
  return (route.forwardHeaders ?? []).map((name) => ({
    name,
    in: 'header',
    required: false,
    schema: { type: 'string' },
  }));
}

function requestBodyOf(route: RouteSpec): JsonSchema | undefined {
  if (route.upload) {
    return {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: [route.upload.fileField],
            properties: {
              [route.upload.fileField]: {
                type: 'string',
                format: 'binary',
                maxLength: route.upload.maxBytes,
              },
            },
            additionalProperties: { type: 'string' },
          },
        },
      },
    };
  }
  if (route.request?.body) {
    return {
      // "No request body" routes (spec endpoint 3) accept one but need none.
      required: !route.request.body.safeParse(undefined).success,
      content: { 'application/json': { schema: schemaOf(route.request.body, 'input') } },
    };
  }
  if (route.bodyKind === 'raw' && UNSAFE_METHODS.has(route.method)) {
    // Webhooks and the MCP endpoint read the bytes themselves; each takes JSON.
    return { required: true, content: { 'application/json': { schema: {} } } };
  }
  return undefined;
}

/**
 * Moves the definitions each JSON Schema keeps for itself (`$defs`: a recursive schema, as steps
 * inside steps) into `components.schemas`, where a `$ref` in an OpenAPI document can reach them:
 * `#/$defs/x` points at the document's root there. Each is named by its content, so the same
 * definition met under several routes is one component.
 */
function hoistDefinitions(value: unknown, components: Record<string, JsonSchema>): unknown {
  if (Array.isArray(value)) return value.map((item) => hoistDefinitions(item, components));
  if (value === null || typeof value !== 'object') return value;
  const object = value as JsonSchema;
  const defs = object['$defs'] as Record<string, JsonSchema> | undefined;
  if (!defs) {
    return Object.fromEntries(
      Object.entries(object).map(([key, item]) => [key, hoistDefinitions(item, components)]),
    );
  }
  const names = new Map(
    Object.entries(defs).map(([name, definition]) => [
      name,
      `Schema_${createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 12)}`,
    ]),
  );
  const rewritten = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(rewritten);
    if (item === null || typeof item !== 'object') return item;
    return Object.fromEntries(
      Object.entries(item as JsonSchema).map(([key, inner]) => {
        const local =
          key === '$ref' && typeof inner === 'string' ? /^#\/\$defs\/(.+)$/.exec(inner) : null;
        const name = local ? names.get(local[1] ?? '') : undefined;
        return [key, name ? `#/components/schemas/${name}` : rewritten(inner)];
      }),
    );
  };
  for (const [name, definition] of Object.entries(defs)) {
    components[names.get(name) ?? name] = rewritten(definition) as JsonSchema;
  }
  const { $defs: _hoisted, ...rest } = object;
  return hoistDefinitions(rewritten(rest), components);
}

/** The OpenAPI 3.1 document, built from the same route table the gateway serves. */
export function buildOpenApiDocument(
  routes: readonly RouteSpec[],
  options: { serverUrl?: string } = {},
): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const responses: Record<string, RouteResponse> = {
      ...edgeResponsesOf(route),
      ...route.responses,
    };
    const operation: JsonSchema = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.owner],
      parameters: [...parametersOf(route), ...headerParametersOf(route)],
      responses: Object.fromEntries(
        Object.entries(responses).map(([status, response]) => {
          const content = contentOf(response);
          return [status, { description: response.description, ...(content ? { content } : {}) }];
        }),
      ),
      security: securityOf(route),
    };
    const requestBody = requestBodyOf(route);
    if (requestBody) operation['requestBody'] = requestBody;
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  const schemas: Record<string, JsonSchema> = {};
  const hoistedPaths = hoistDefinitions(paths, schemas);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace assistant and automation platform',
      version: '1.0.0',
      license: { name: 'Proprietary' },
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    paths: hoistedPaths,
    components: {
      ...(Object.keys(schemas).length > 0 ? { schemas } : {}),
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'session' },
        extensionBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "The browser extension's token (type extension, 30 days), issued by POST /me/extension-tokens",
        },
        apiKeyBearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A workspace API key, sk_…; accepted by POST /mcp only',
        },
      },
    },
  };
}

/** Either credential on a session route, unless the route refuses the extension's token. */
function securityOf(route: RouteSpec): Record<string, never[]>[] {
  if (route.auth === 'api_key') return [{ apiKeyBearer: [] }];
  if (route.auth !== 'session') return [];
  return route.extensionToken === 'refused'
    ? [{ sessionCookie: [] }]
    : [{ sessionCookie: [] }, { extensionBearer: [] }];
}
