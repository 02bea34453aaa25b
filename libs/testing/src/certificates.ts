import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A test CA and a server certificate it signed for 127.0.0.1 and localhost, as PEM. */
export interface TestCertificates {
  caPem: string;
  keyPem: string;
  certPem: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Makes a CA and a server certificate with openssl in `dir`, valid `days` (one by default).
 * With `reuse`, the ones already in `dir` are kept while they have a day of validity left.
 */
export function makeTestCertificates(
  dir: string,
  caName = 'wap test CA',
  options: { days?: number; reuse?: boolean } = {},
): TestCertificates {
  const days = options.days ?? 1;
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  const server = join(dir, 'server.pem');
  if (
    options.reuse &&
    existsSync(server) &&
    Date.now() - statSync(server).mtimeMs < (days - 1) * DAY_MS
  ) {
    return { caPem: read('ca.pem'), keyPem: read('server.key'), certPem: read('server.pem') };
  }
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem'].concat(
      ['-days', String(days), '-subj', `/CN=${caName}`],
    ),
  );
  run(
    ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr'].concat([
      '-subj',
      '/CN=127.0.0.1',
    ]),
  );
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
    ].concat(['-out', 'server.pem', '-days', String(days), '-extfile', 'san.ext']),
  );
  return { caPem: read('ca.pem'), keyPem: read('server.key'), certPem: read('server.pem') };
}
