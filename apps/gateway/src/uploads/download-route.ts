import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RequestHandler } from 'express';
import { AppError, StoredFile, type RouteSpec } from '@wap/contracts';
import { validate } from '@wap/http';
import { callRoute } from '@wap/platform';
import { unavailableWhenUnanswered, writeReply, type ForwardingDeps } from '../routing/forward';

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
export function downloadHandler(route: RouteSpec, deps: ForwardingDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      const actor = await deps.authenticator.authenticate(req);
      const params = route.request?.params
        ? validate(route.request.params, req.params, 'params')
        : { ...req.params };
      const reply = await callRoute(
        deps.bus,
        route.subject,
        {
          requestId: String(res.locals['requestId']),
          actor,
          params: params as Record<string, string>,
          query: {},
          headers: {},
        },
        { timeoutMs: deps.requestTimeoutMs },
      ).catch(unavailableWhenUnanswered(route));
      if (reply.status !== 200) {
        writeReply(res, reply);
        return;
      }
      const file = StoredFile.parse(reply.body);
      const object = await deps.objects.get(file.bucket, file.objectName);
      if (!object) throw new AppError('NOT_FOUND', 'File not found');
      res.status(200);
      res.set({
        ...INERT_FILE_HEADERS,
        'Content-Type': file.type,
        'Content-Length': String(object.info.size),
        'Content-Disposition': contentDisposition(file.fileName),
      });
      await pipeline(Readable.from(object.content), res);
    } catch (error) {
      if (res.headersSent) {
        res.destroy(error instanceof Error ? error : undefined);
        return;
      }
      next(error);
    }
  };
}
