import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { AppError } from '@wap/contracts';
import { jsonTooDeepError } from '../error-handler';
import { nestsDeeperThan, valueNestsDeeperThan } from '../json-nesting';
import { payloadTooLarge, requestHeader } from '../raw-request';

/** The decoder of a Content-Encoding the edge inflates; anything else is refused. */
function decoderOf(encoding: string): Transform {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding');
  }
}

/**
 * The whole body, inflated when it comes compressed, refused (413) as soon as it is known to
 * exceed `limitBytes` inflated: a small compressed body cannot unpack past the limit in memory.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const encoding = (requestHeader(req, 'content-encoding') ?? 'identity').trim().toLowerCase();
  const identity = encoding === 'identity';
  if (identity && Number(req.headers['content-length']) > limitBytes) {
    return Promise.reject(payloadTooLarge());
  }
  let decoder: Transform | undefined;
  try {
    decoder = identity ? undefined : decoderOf(encoding);
  } catch (error) {
    return Promise.reject(error);
  }
  const source = decoder ? req.pipe(decoder) : req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    source.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        source.removeAllListeners('data');
        req.unpipe();
        req.pause();
        reject(payloadTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    source.on('end', () =>
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)),
    );
    req.on('error', () =>
      reject(new AppError('BAD_REQUEST', 'Request body was not received completely')),
    );
    decoder?.on('error', () =>
      reject(new AppError('BAD_REQUEST', 'The request body could not be read')),
    );
  });
}

/** A JSON body as read: its value, and whether its text has `\u` escapes (NUL, lone surrogates). */
export interface JsonBody {
  value: unknown;
  hasUnicodeEscapes: boolean;
}

/** The charsets a JSON body may declare; UTF-8 when it declares none. */
const JSON_CHARSETS = new Map([
  ['utf-8', 'utf-8'],
  ['utf8', 'utf-8'],
  ['utf-16', 'utf-16le'],
  ['utf-16le', 'utf-16le'],
  ['utf-16be', 'utf-16be'],
]);

function charsetOf(contentType: string | undefined): string {
  const declared = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1];
  if (declared === undefined) return 'utf-8';
  const charset = JSON_CHARSETS.get(declared.toLowerCase());
  if (!charset) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported charset');
  return charset;
}

/**
 * Parses a JSON body of any JSON value; undefined when the body is empty. Nesting deeper than
 * the limit is refused before the parse when the text is UTF-8 (decision 119), after it in
 * UTF-16, whose bytes do not read as ASCII.
 */
export function jsonBodyOf(bytes: Buffer, contentType: string | undefined): JsonBody | undefined {
  const charset = charsetOf(contentType);
  if (bytes.length === 0) return undefined;
  const utf8 = charset === 'utf-8';
  if (utf8 && nestsDeeperThan(bytes)) throw jsonTooDeepError();
  let text: string;
  try {
    text = new TextDecoder(charset, { fatal: !utf8 }).decode(bytes);
  } catch {
    throw new AppError('INVALID_JSON', 'Invalid JSON body');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('INVALID_JSON', 'Invalid JSON body');
  }
  if (!utf8 && valueNestsDeeperThan(value)) throw jsonTooDeepError();
  return { value, hasUnicodeEscapes: text.includes('\\u') };
}
