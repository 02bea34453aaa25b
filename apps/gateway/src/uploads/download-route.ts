import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, StoredFile, type RouteSpec } from '@wap/contracts';
import type { EdgeHandler } from '@wap/http';
import { callRoute } from '@wap/bus-protocol';
import { unavailableWhenUnanswered, validParams, type ForwardingDeps } from '../routing/forwarding';

/**
 * User files are served so that a browser never runs them, whatever they hold (an SVG with a
 * script included): always a download, never sniffed, and sandboxed if opened anyway.
 */
const INERT_FILE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cache-Control': 'private, no-store',
} as const;

function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/gu, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** A `file` route: the owner authorizes and names the object, the gateway streams it. */
export function downloadHandler(route: RouteSpec, deps: ForwardingDeps): EdgeHandler {
  return async (request, res) => {
    const actor = await deps.authenticator.authenticate(request);
    const reply = await callRoute(
      deps.bus,
      route.subject,
      {
        requestId: request.requestId,
        actor,
        params: validParams(request),
        query: {},
        headers: {},
      },
      { timeoutMs: deps.requestTimeoutMs },
    ).catch(unavailableWhenUnanswered(route));
    if (reply.status !== 200) return reply;
    const file = StoredFile.parse(reply.body);
    // Node sends no body to HEAD: its answer needs the object's size, not its bytes.
    const head = request.method === 'HEAD';
    const object = head
      ? await deps.objects.info(file.bucket, file.objectName)
      : await deps.objects.get(file.bucket, file.objectName);
    if (!object) throw new AppError('NOT_FOUND', 'File not found');
    res.writeHead(200, {
      ...INERT_FILE_HEADERS,
      'Content-Type': file.type,
      'Content-Length': String('content' in object ? object.info.size : object.size),
      'Content-Disposition': contentDisposition(file.fileName),
    });
    if ('content' in object) {
      // A failure past this point can only end the response: the edge destroys it.
      await pipeline(Readable.from(object.content), res);
    } else {
      res.end();
    }
    return undefined;
  };
}
