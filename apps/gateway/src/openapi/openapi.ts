import { z } from 'zod';
import type { RouteSpec } from '@wap/contracts';

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

/** The OpenAPI 3.1 document, built from the same route table the gateway serves. */
export function buildOpenApiDocument(routes: readonly RouteSpec[]): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const operation: JsonSchema = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.owner],
      parameters: parametersOf(route),
      responses: Object.fromEntries(
        Object.entries(route.responses).map(([status, response]) => [
          status,
          {
            description: response.description,
            ...(response.schema
              ? {
                  content: {
                    [response.contentType ?? 'application/json']: {
                      schema: schemaOf(response.schema, 'output'),
                    },
                  },
                }
              : {}),
          },
        ]),
      ),
      security: securityOf(route),
    };
    if (route.request?.body) {
      operation['requestBody'] = {
        required: true,
        content: { 'application/json': { schema: schemaOf(route.request.body, 'input') } },
      };
    }
    if (route.upload) {
      operation['requestBody'] = {
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
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Workspace assistant and automation platform', version: '1.0.0' },
    paths,
    components: {
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
