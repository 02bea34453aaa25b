import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A test CA and a server certificate it signed for 127.0.0.1 and localhost, as PEM. */
export interface TestCertificates {
  caPem: string;
  keyPem: string;
  certPem: string;
}

/** Makes a CA and a server certificate with openssl in `dir`, valid one day. */
export function makeTestCertificates(dir: string, caName = 'wap test CA'): TestCertificates {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem'].concat(
      ['-days', '1', '-subj', `/CN=${caName}`],
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
    ].concat(['-out', 'server.pem', '-days', '1', '-extfile', 'san.ext']),
  );
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return { caPem: read('ca.pem'), keyPem: read('server.key'), certPem: read('server.pem') };
}
