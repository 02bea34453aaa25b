import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type JsonObject = Record<string, unknown>;

/** One answer of the API, as a client received it. */
export interface ObservedResponse {
  method: string;
  /** The request's path, without the query. */
  path: string;
  status: number;
  contentType: string | null;
  text: string;
}

interface PathTemplate {
  template: string;
  pattern: RegExp;
  /** Literal segments: `/workflows/{id}/runs` wins over `/workflows/{id}/{other}`. */
  literals: number;
}

function templateOf(template: string): PathTemplate {
  const segments = template.split('/').slice(1);
  const pattern = segments
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : escapeRegExp(segment)))
    .join('/');
  return {
    template,
    pattern: new RegExp(`^/${pattern}$`),
    literals: segments.filter((segment) => !segment.startsWith('{')).length,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function mediaTypeOf(contentType: string | null): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/**
 * Checks answers against an OpenAPI 3.1 document: the status is declared for the operation,
 * the media type is one it declares, and a JSON body validates against its schema. Answers of
 * paths the document does not describe (health, the web app) are not its concern.
 */
export function createOpenApiConformance(document: JsonObject) {
  const paths = (document['paths'] ?? {}) as Record<string, Record<string, JsonObject>>;
  const templates = Object.keys(paths)
    .map(templateOf)
    .sort((a, b) => b.literals - a.literals);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>();

  const components = ((document['components'] as JsonObject | undefined)?.['schemas'] ??
    {}) as JsonObject;
  /**
   * A schema that refers to the document's components (a recursive one), made whole: they
   * travel along as its own `$defs`, which ajv resolves within the schema it compiles.
   */
  const withComponents = (schema: JsonObject): JsonObject => {
    const text = JSON.stringify(schema);
    if (!text.includes('#/components/schemas/')) return schema;
    const local = (value: JsonObject) =>
      JSON.parse(
        JSON.stringify(value).replaceAll('#/components/schemas/', '#/$defs/'),
      ) as JsonObject;
    return { ...local(schema), $defs: local(components) };
  };

  function validatorFor(key: string, schema: JsonObject): ValidateFunction {
    let validate = validators.get(key);
    if (!validate) {
      // Each schema carries its own `$schema`; ajv keys compiled schemas by `$id`, so none is set.
      validate = ajv.compile(withComponents(schema));
      validators.set(key, validate);
    }
    return validate;
  }

  /** What is wrong with the answer, or an empty list. */
  return function problemsOf(response: ObservedResponse): string[] {
    const method = response.method.toLowerCase();
    const match = templates.find((candidate) => candidate.pattern.test(response.path));
    const operation = match ? paths[match.template]?.[method] : undefined;
    if (!match || !operation) return [];
    const where = `${response.method} ${match.template} → ${response.status}`;
    const responses = (operation['responses'] ?? {}) as Record<string, JsonObject>;
    const declared =
      responses[String(response.status)] ??
      responses[`${String(response.status)[0]}XX`] ??
      responses['default'];
    if (!declared) return [`${where}: the status is not declared`];
    const content = declared['content'] as Record<string, { schema?: JsonObject }> | undefined;
    const mediaType = mediaTypeOf(response.contentType);
    if (method === 'head' || response.text.length === 0) {
      return content && response.status !== 304 && method !== 'head' && content['application/json']
        ? [`${where}: an empty body where the document declares one`]
        : [];
    }
    if (!content) return [`${where}: a body (${mediaType ?? 'untyped'}) where none is declared`];
    const declaredType = Object.keys(content).find((type) => type === mediaType || type === '*/*');
    if (!declaredType) {
      return [
        `${where}: ${mediaType ?? 'untyped'} is not among ${Object.keys(content).join(', ')}`,
      ];
    }
    const schema = content[declaredType]?.schema;
    if (!schema || mediaType !== 'application/json') return [];
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      return [`${where}: the body is not JSON`];
    }
    const validate = validatorFor(`${method} ${match.template} ${response.status}`, schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (error) => `${where}: ${error.instancePath || '(body)'} ${error.message ?? 'is invalid'}`,
    );
  };
}

export type OpenApiConformance = ReturnType<typeof createOpenApiConformance>;
