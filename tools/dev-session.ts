// Prints a development session cookie for curl, where the gateway runs with DEV_SIGN_IN=on:
// `DEV_SIGN_IN=on npm run dev:session -- you@example.com "Your Name"`;
// `--admin` makes it a platform admin's (who may grant credits, e.g. to try workflows locally).
// Uses SESSION_JWT_SECRET, else the secret the embedded runtime generated in DATA_DIR, and
// checks the cookie against the server at BASE_URL (default http://127.0.0.1:$PORT, PORT 3000):
// a cookie the server would refuse (another DATA_DIR, another secret) fails here, loudly.
// `npm run admin -- session` mints the same cookie without asking a server.
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
  const cookie = await mintDevelopmentSession({ email, name, platformAdmin, secret });
  await requireAcceptedBy(serverUrl(), cookie);
  process.stdout.write(`${cookie}\n`);
}

function serverUrl(): string {
  const base = process.env['BASE_URL'] ?? `http://127.0.0.1:${process.env['PORT'] ?? '3000'}`;
  return base.replace(/\/$/, '');
}

/** Asks the running server who this cookie is: anything but 200 stops with the reason. */
async function requireAcceptedBy(base: string, cookie: string): Promise<void> {
  const response = await fetch(`${base}/me`, { headers: { cookie } }).catch(() => {
    throw new Error(
      `no server answers at ${base}: start it (npm start), and give PORT or BASE_URL as it has them`,
    );
  });
  if (response.status === 401) {
    throw new Error(
      `the server at ${base} refuses this session: DATA_DIR (${process.env['DATA_DIR'] ?? './data'}) ` +
        'is not the data folder it runs with, or SESSION_JWT_SECRET differs from its own',
    );
  }
  if (response.status !== 200) {
    throw new Error(`the server at ${base} answered GET /me with ${response.status}`);
  }
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
