import { AppError } from '@wap/contracts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The spec's 400 for anything that is not JSON: form-encoded, XML, empty, broken UTF-8. */
export function invalidJsonBody(): AppError {
  return new AppError('INVALID_JSON', 'Invalid JSON body', { exposeCode: false });
}

/** Parses the raw body as JSON whatever the Content-Type says, or throws the spec's 400. */
export function parseJsonBody(body: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw invalidJsonBody();
  }
  if (text.trim() === '') throw invalidJsonBody();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidJsonBody();
  }
}
