import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type Express, type Response } from 'express';

/**
 * The HTML's policy: scripts, styles, images and API calls only from this origin, nothing
 * inline (the build emits none), no plugins, no framing, forms only back to this origin.
 */
export const WEB_APP_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Vite names every asset by its content hash, so a browser may keep one for a year. */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

/**
 * Serves the built web app of `distDir`: `/assets/*` as immutable files, and `index.html` for
 * `/` and every `/app/*` path (the client's routes), revalidated on each load so a new build
 * is picked up at once. The HTML is read per request for the same reason.
 */
export function mountWebApp(app: Express, distDir: string): void {
  const root = resolve(distDir);
  const indexHtml = join(root, 'index.html');
  if (!existsSync(indexHtml)) {
    throw new Error(`WEB_DIST_DIR ${root} has no index.html: build the web app (nx run web:build)`);
  }
  app.use(
    '/assets',
    express.static(join(root, 'assets'), {
      index: false,
      redirect: false,
      immutable: true,
      maxAge: ASSET_MAX_AGE_MS,
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );
  const sendIndex = (_req: unknown, res: Response, next: (error?: unknown) => void) => {
    res.setHeader('Content-Security-Policy', WEB_APP_CONTENT_SECURITY_POLICY);
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.sendFile(indexHtml, { etag: false, lastModified: false, cacheControl: false }, (error) => {
      if (error) next(error);
    });
  };
  app.get(['/', '/app', '/app/*path'], sendIndex);
}
