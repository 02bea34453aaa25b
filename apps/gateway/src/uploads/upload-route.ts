import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import Busboy from 'busboy';
import {
  AppError,
  type UploadTarget,
  type AttachmentType,
  type RouteSpec,
  type StoredUpload,
  type UploadRoute,
} from '@wap/contracts';
import type { EdgeHandler } from '@wap/http';
import { type ObjectStore } from '@wap/platform';
import { callApi, callRoute } from '@wap/bus-protocol';
import { unavailableWhenUnanswered, validParams, type ForwardingDeps } from '../routing/forwarding';
import {
  CompoundKindScanner,
  hasNul,
  isControlCharacter,
  SNIFF_BYTES,
  sniffKind,
} from './file-kind';

/** What came with the file: its description as stored, and the form's other fields. */
interface ReceivedUpload {
  fileName: string;
  type: AttachmentType;
  size: number;
  fields: Record<string, string>;
}

/** Form fields besides the file: a few short values (a workspace id), never a second file. */
const FIELD_LIMITS = { fields: 10, fieldSize: 1024, parts: 20 } as const;

function tooLarge(upload: UploadRoute): AppError {
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `The file is larger than the limit of ${upload.maxBytes / (1024 * 1024)} MB`,
  );
}

function notAllowed(): AppError {
  return new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    'The file is not of an allowed kind: JPEG, PNG, GIF, WebP, SVG, PDF, Word, Excel, plain text or CSV',
  );
}

/** A file name to show: its last path segment, without control characters, at most 255 long. */
function displayName(fileName: string | undefined): string {
  const base = (fileName ?? '').split(/[\\/]/u).pop() ?? '';
  const clean = [...base]
    .filter((character) => character !== '"' && !isControlCharacter(character))
    .join('')
    .trim();
  return (clean || 'file').slice(0, 255);
}

/**
 * Streams one file part into the object store while it decides the file's kind from its bytes;
 * the store never holds a file whose kind or size is refused once this rejects (the caller
 * deletes what was written).
 */
async function storeFile(
  file: Readable & { truncated?: boolean },
  upload: UploadRoute,
  target: UploadTarget,
  objects: ObjectStore,
): Promise<{ type: AttachmentType; size: number }> {
  let size = 0;
  const head: Buffer[] = [];
  let headBytes = 0;
  let kind: AttachmentType | 'compound' | null | undefined;
  const compound = new CompoundKindScanner();

  async function decide(complete: boolean): Promise<void> {
    kind = await sniffKind(Buffer.concat(head), complete);
    if (kind === null) throw notAllowed();
    if (kind === 'compound') for (const chunk of head) compound.push(chunk);
  }

  async function* checkedChunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of file as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (kind === undefined) {
        head.push(chunk);
        headBytes += chunk.length;
        if (headBytes >= SNIFF_BYTES) await decide(false);
      } else if (kind === 'compound') {
        compound.push(chunk);
      } else if ((kind === 'text/plain' || kind === 'text/csv') && hasNul(chunk)) {
        throw notAllowed();
      }
      yield chunk;
    }
    // The parser stops one byte past the limit: a file of exactly the limit is not cut.
    if (file.truncated || size > upload.maxBytes) throw tooLarge(upload);
    if (kind === undefined) await decide(true);
  }

  await objects.put(target.bucket, target.objectName, checkedChunks());
  const type = kind === 'compound' ? compound.kind() : kind;
  if (!type) throw notAllowed();
  return { type, size };
}

/** Reads the multipart body: the one file into the store, the other fields into memory. */
function receive(
  req: IncomingMessage,
  upload: UploadRoute,
  target: UploadTarget,
  objects: ObjectStore,
): Promise<ReceivedUpload> {
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      busboy = Busboy({
        headers: req.headers,
        limits: { ...FIELD_LIMITS, files: 1, fileSize: upload.maxBytes + 1 },
      });
    } catch {
      reject(new AppError('BAD_REQUEST', 'The multipart body has no boundary'));
      return;
    }
    const fields: Record<string, string> = {};
    let stored: Promise<{ type: AttachmentType; size: number }> | undefined;
    let file: Readable | undefined;
    let fileName = '';
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(busboy);
      // The rest of the body is read and dropped, so the answer can still be sent.
      req.resume();
      // The store's write ends (with an error) before the caller deletes what it wrote. The
      // failure is reported once, by reject: a file the store has read to its end has no
      // listener left, and its error event would otherwise be an uncaught exception.
      file?.on('error', () => undefined);
      file?.destroy(error instanceof Error ? error : undefined);
      void Promise.resolve(stored)
        .catch(() => undefined)
        .finally(() => reject(error));
    };

    busboy.on('field', (name, value, info) => {
      if (info.valueTruncated)
        fail(new AppError('VALIDATION_ERROR', `The field ${name} is too long`));
      fields[name] = value;
    });
    busboy.on('file', (name, stream, info) => {
      // A form that ends early destroys the file stream with its error before busboy reports
      // it: once the store stopped reading, nothing else listens, and the error would be
      // uncaught (it took the gateway down). Busboy's own error event reports the failure.
      stream.on('error', () => undefined);
      if (name !== upload.fileField) {
        stream.resume();
        fail(
          new AppError(
            'VALIDATION_ERROR',
            `Unexpected file field ${name}; send the file as ${upload.fileField}`,
          ),
        );
        return;
      }
      fileName = displayName(info.filename);
      file = stream;
      stored = storeFile(stream, upload, target, objects);
      stored.catch((error: unknown) => {
        stream.resume();
        fail(error);
      });
    });
    busboy.on('filesLimit', () => fail(new AppError('VALIDATION_ERROR', 'Send one file')));
    busboy.on('fieldsLimit', () => fail(new AppError('VALIDATION_ERROR', 'Too many fields')));
    busboy.on('partsLimit', () => fail(new AppError('VALIDATION_ERROR', 'Too many parts')));
    busboy.on('error', (error: unknown) =>
      fail(
        new AppError('BAD_REQUEST', 'The multipart body is malformed or ended early', {
          details: error instanceof Error ? error.message : undefined,
        }),
      ),
    );
    busboy.on('close', () => {
      if (failed) return;
      if (!stored) {
        fail(new AppError('VALIDATION_ERROR', `The form has no ${upload.fileField} file`));
        return;
      }
      stored.then(({ type, size }) => resolve({ fileName, type, size, fields }), fail);
    });
    req.pipe(busboy);
  });
}

/**
 * A multipart route: asks the route's owner where the file may go (refusing the caller before a
 * byte is stored), streams the file there, then sends the owner the stored file's description.
 * Whatever fails after the first byte, the stored object is deleted.
 */
export function uploadHandler(
  route: RouteSpec,
  upload: UploadRoute,
  deps: ForwardingDeps,
): EdgeHandler {
  return async (request) => {
    let target: UploadTarget | undefined;
    let answered = false;
    try {
      const actor = await deps.authenticator.authenticate(request);
      const params = validParams(request);
      const mediaType = (request.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
      if (mediaType !== 'multipart/form-data') {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be multipart/form-data');
      }
      target = await callApi(
        deps.bus,
        upload.prepare,
        { params },
        {
          timeoutMs: deps.requestTimeoutMs,
          onBehalfOf: actor,
          requestId: request.requestId,
        },
      ).catch(unavailableWhenUnanswered(route));
      const received = await receive(request.incoming, upload, target, deps.objects);
      const body: StoredUpload = {
        bucket: target.bucket,
        objectName: target.objectName,
        ...received,
      };
      const reply = await callRoute(
        deps.bus,
        route.subject,
        { requestId: request.requestId, actor, params, query: {}, headers: {}, body },
        { timeoutMs: deps.requestTimeoutMs },
      ).catch(unavailableWhenUnanswered(route));
      if (reply.status >= 300) await deps.objects.delete(target.bucket, target.objectName);
      answered = true;
      return reply;
    } catch (error) {
      if (target && !answered) {
        await deps.objects.delete(target.bucket, target.objectName).catch(() => undefined);
      }
      throw error;
    }
  };
}
