// Prints a development session cookie for curl, where the gateway runs with DEV_SIGN_IN=on:
// `DEV_SIGN_IN=on npm run dev:session -- you@example.com "Your Name"`;
// `--admin` makes it a platform admin's (who may grant credits, e.g. to try workflows locally).
// Uses SESSION_JWT_SECRET, else the secret the embedded runtime generated in DATA_DIR.
// `npm run admin -- session` mints the same cookie.
import { developmentSessionSecret, mintDevelopmentSession } from '@wap/auth';

async function main(): Promise<void> {
  if (process.env['NODE_ENV'] === 'production') {
    console.error('dev sessions are refused when NODE_ENV=production');
    process.exit(1);
  }
  if (process.env['DEV_SIGN_IN'] !== 'on') {
    console.error('dev sessions need DEV_SIGN_IN=on, as the gateway has it (see the README)');
    process.exit(1);
  }
  const args = process.argv.slice(2);
  const platformAdmin = args.includes('--admin');
  const [email, name] = args.filter((arg) => arg !== '--admin');
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email)) {
    console.error('usage: npm run dev:session -- <email> [name] [--admin]');
    process.exit(2);
  }
  const secret = developmentSessionSecret({
    sessionJwtSecret: process.env['SESSION_JWT_SECRET'],
    dataDir: process.env['DATA_DIR'] ?? './data',
  });
  process.stdout.write(`${await mintDevelopmentSession({ email, name, platformAdmin, secret })}\n`);
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
