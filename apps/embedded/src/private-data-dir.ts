import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Nothing this process creates is readable or writable by other users: 0700 folders, 0600 files. */
const PRIVATE_UMASK = 0o077;

/**
 * Makes the data folder the user's alone: it holds chat text (PGlite's WAL), sealed credentials
 * and the development secrets. Files made from now on follow the umask; those left by an
 * earlier start with looser modes are narrowed. Links are not followed.
 */
export function keepDataDirPrivate(dataDir: string): void {
  process.umask(PRIVATE_UMASK);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  narrowDataDir(dataDir);
}

/** Takes group and other bits off everything under `path`, `path` included. */
export function narrowDataDir(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    if ((stat.mode & 0o777) !== 0o700) chmodSync(path, 0o700);
    for (const entry of readdirSync(path)) narrowDataDir(join(path, entry));
  } else if ((stat.mode & PRIVATE_UMASK) !== 0) {
    chmodSync(path, stat.mode & 0o700);
  }
}
