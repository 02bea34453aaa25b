import pino, { type Logger } from 'pino';

const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** NATS server for tests: env NATS_URL, else the local server. */
export function testNatsUrl(): string {
  return process.env['NATS_URL'] || DEFAULT_NATS_URL;
}

/** PostgreSQL server (any database on it) where tests create their databases: env DATABASE_URL. */
export function testServerDatabaseUrl(): string {
  return process.env['DATABASE_URL'] || DEFAULT_DATABASE_URL;
}

/** A pino logger at env LOG_LEVEL, silent by default so test output stays readable. */
export function testLogger(): Logger {
  return pino({ level: process.env['LOG_LEVEL'] || 'silent' });
}
