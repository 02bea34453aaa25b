import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A secret kept in DATA_DIR: read when present, else generated once (mode 0600), so a
 * single-machine install works without configuration and keeps its sessions across restarts.
 */
export function dataDirSecret(dataDir: string, fileName: string): string {
  const path = join(dataDir, fileName);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}
