// Prints a development session cookie for curl: `npm run dev:session -- you@example.com "Your Name"`;
// `--admin` makes it a platform admin's (who may grant credits, e.g. to try workflows locally).
// Uses SESSION_JWT_SECRET, else the secret the embedded runtime generated in DATA_DIR.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { developmentSubject, mintSessionToken } from '@wap/auth';

async function main(): Promise<void> {
  if (process.env['NODE_ENV'] === 'production') {
    console.error('dev sessions are refused when NODE_ENV=production');
    process.exit(1);
  }
  const args = process.argv.slice(2);
  const platformAdmin = args.includes('--admin');
  const [email, name] = args.filter((arg) => arg !== '--admin');
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email)) {
    console.error('usage: npm run dev:session -- <email> [name] [--admin]');
    process.exit(2);
  }
  const secret =
    process.env['SESSION_JWT_SECRET'] ??
    readFileSync(
      join(resolve(process.env['DATA_DIR'] ?? './data'), 'session-secret'),
      'utf8',
    ).trim();
  const normalized = email.toLowerCase();
  const token = await mintSessionToken({
    secret,
    sub: developmentSubject(normalized),
    email: normalized,
    name: name ?? normalized.split('@')[0] ?? normalized,
    platformAdmin,
    expiresInSec: 7 * 24 * 3600,
  });
  process.stdout.write(`session=${token}\n`);
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
