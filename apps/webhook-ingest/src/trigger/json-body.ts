import { AppError } from '@wap/contracts';
import { nestsDeeperThan } from '@wap/http';
import { isJsonbStorable } from '@wap/platform';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The spec's 400 for anything that is not JSON: form-encoded, XML, empty, broken UTF-8. */
export function invalidJsonBody(): AppError {
  return new AppError('INVALID_JSON', 'Invalid JSON body', { exposeCode: false });
}

/**
 * Parses the raw body as JSON whatever the Content-Type says, or throws the spec's 400. JSON
 * whose strings hold a `\u0000` or a lone surrogate escape is refused the same way: it could
 * be neither kept as a test event nor given to a run, and a request is not answered 200 unless
 * it is stored (decision 41). So is JSON nested deeper than the limit (decision 119), whether
 * it came in one message or was parked in the object store.
 */
export function parseJsonBody(body: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw invalidJsonBody();
  }
  if (text.trim() === '' || nestsDeeperThan(body)) throw invalidJsonBody();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    throw invalidJsonBody();
  }
  // Both can only arrive as \u escapes: strict UTF-8 decoding refused them as raw bytes.
  if (text.includes('\\u') && !isJsonbStorable(parsed)) throw invalidJsonBody();
  return parsed;
}
