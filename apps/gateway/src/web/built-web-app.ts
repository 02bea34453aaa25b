import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where `nx run web:build` writes the web app, relative to the repository root. */
const WEB_BUILD_PATH = join('dist', 'apps', 'web');

/**
 * The repository's built web app (`dist/apps/web`), found by walking up from this module: from
 * the sources (`apps/gateway/src/web`) and from a bundle (`dist/apps/<app>/src`) alike, so
 * `npm start`, the distributed gateway and the image all find it without configuration.
 * Undefined when it has not been built.
 */
export function findBuiltWebApp(startDir: string = __dirname): string | undefined {
  let dir = startDir;
  for (;;) {
    const candidate = join(dir, WEB_BUILD_PATH);
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
