import { randomBytes } from 'node:crypto';

/**
 * A name no other test run uses: `<prefix>_<12 hex chars>`. Only letters, digits and `_`, so it
 * is valid for databases, schemas, JetStream streams and consumers, KV and object buckets.
 */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}
