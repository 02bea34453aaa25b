// `npm run bench:data`: the two data paths that move the most bytes, in one run.
// 1. split-name (spec endpoint 5) of a 100,000-row table through the gateway: rows per second,
//    and storage's peak RSS above where it started.
// 2. 20 concurrent 10 MB task comment attachments (spec endpoint 8) through the gateway, against
//    20 direct puts of the same bytes into the NATS object store: MB/s of each, and the peak RSS
//    growth of the gateway and of storage while the uploads stream.
// Targets (decisions 63 and 64): a split of 100,000 rows within the route's 300 s and at least
// 10,000 rows/s; uploads stream, so neither process grows by more than the 20 files' 200 MB.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { mintSessionToken } from '@wap/auth';
import { ATTACHMENT_MAX_BYTES } from '@wap/contracts';
import { createDistributedPlatform, withNamespace } from '@wap/platform';
import { testLogger } from '@wap/testing';
import { buildBundles, runBench, sql, type OnCleanup } from '../shared/harness';
import { startBenchPlatform } from '../shared/platform';

const BenchEnv = z.object({
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Rows of the table split. */
  BENCH_ROWS: z.coerce.number().int().positive().default(100_000),
  /** Attachments uploaded at once. */
  BENCH_UPLOADS: z.coerce.number().int().positive().default(20),
  /** When set, the gateway and storage write V8 CPU profiles (.cpuprofile) into this folder. */
  BENCH_CPU_PROF_DIR: z.string().optional(),
});

const SESSION_SECRET = 'bench-data-session-secret-long-enough-0123456789';
const MIN_ROWS_PER_S = 10_000;
const SPLIT_ROUTE_TIMEOUT_MS = 300_000;
/** Each attachment: as large as endpoint 8 allows, a PDF by its first bytes. */
const FILE_BYTES = ATTACHMENT_MAX_BYTES;
const MB = 1024 * 1024;

/** Resident set size of a process, in bytes, from /proc (Linux). */
function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : Number.NaN;
}

/** Samples the RSS of `pids` every 20 ms while `work` runs: each one's peak growth over its start. */
async function peakGrowth<T>(
  pids: Record<string, number>,
  work: () => Promise<T>,
): Promise<{ result: T; growth: Record<string, number> }> {
  const start = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, rssBytes(pid)]));
  const peak = { ...start };
  const timer = setInterval(() => {
    for (const [name, pid] of Object.entries(pids)) {
      peak[name] = Math.max(peak[name] ?? 0, rssBytes(pid));
    }
  }, 20);
  try {
    const result = await work();
    return {
      result,
      growth: Object.fromEntries(
        Object.keys(pids).map((name) => [name, (peak[name] ?? 0) - (start[name] ?? 0)]),
      ),
    };
  } finally {
    clearInterval(timer);
  }
}

/** The bytes as the gateway hands an upload on: 64 KB chunks, as they come off the socket. */
async function* inChunks(bytes: Buffer): AsyncIterable<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += 64 * 1024) {
    yield bytes.subarray(offset, offset + 64 * 1024);
  }
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

async function main(onCleanup: OnCleanup): Promise<void> {
  const env = BenchEnv.parse(process.env);
  buildBundles(['gateway', 'storage']);
  const { databaseUrl, namespace, launch } = await startBenchPlatform(onCleanup, {
    natsUrl: env.NATS_URL,
    adminDatabaseUrl: env.DATABASE_URL,
    cpuProfileDir: env.BENCH_CPU_PROF_DIR,
  });
  const storage = await launch.service('storage', 'storage', { DATABASE_URL: databaseUrl });
  const gateway = await launch.gateway(SESSION_SECRET);

  const cookie = `session=${await mintSessionToken({
    secret: SESSION_SECRET,
    sub: 'bench|data',
    email: 'bench-data@example.com',
    name: 'Bench',
  })}`;
  const call = async <T>(path: string, body: unknown, timeoutMs = 30_000): Promise<T> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    }
    return (await response.json()) as T;
  };
  const { workspace } = await call<{ workspace: { id: string } }>('/workspaces', {
    name: 'bench',
  });

  // 1. split-name. The rows are written straight into storage's table (100,000 requests would
  // measure the row route, not the split).
  const { table } = await call<{ table: { id: string } }>('/tables', {
    workspaceId: workspace.id,
    name: 'People',
  });
  const property = (name: string) =>
    call<{ property: { id: string } }>(`/tables/${table.id}/properties`, { name, type: 'text' });
  const source = (await property('Full name')).property.id;
  const target = (await property('Last name')).property.id;
  await sql(
    databaseUrl,
    `insert into storage.table_rows (id, table_id, cells, created_at, updated_at)
     select gen_random_uuid(), $1, jsonb_build_object($2::text, 'Ada' || i || ' Lovelace' || i), now(), now()
     from generate_series(1, $3) as i`,
    [table.id, source, env.BENCH_ROWS],
  );
  const splitStarted = performance.now();
  const split = await peakGrowth({ storage: storage.pid }, () =>
    call<{ cellsProcessed: number; cellsWritten: number }>(
      `/tables/${table.id}/split-name`,
      { sourcePropertyId: source, targetPropertyId: target },
      SPLIT_ROUTE_TIMEOUT_MS,
    ),
  );
  const splitMs = performance.now() - splitStarted;
  const rowsPerS = (split.result.cellsProcessed / splitMs) * 1000;
  console.log(
    `split-name: ${split.result.cellsProcessed} rows processed, ${split.result.cellsWritten} written in ${(splitMs / 1000).toFixed(2)} s (${Math.round(rowsPerS)} rows/s); storage peak RSS +${mb(split.growth['storage'] ?? Number.NaN)}`,
  );

  // 2. Attachments through the gateway, then the same bytes straight into the object store.
  const { task } = await call<{ task: { id: string } }>('/tasks', {
    workspaceId: workspace.id,
    title: 'Bench uploads',
  });
  const files = Array.from({ length: env.BENCH_UPLOADS }, () => {
    const bytes = randomBytes(FILE_BYTES);
    bytes.write('%PDF-1.7\n', 0, 'latin1');
    return bytes;
  });
  const uploadStarted = performance.now();
  const uploads = await peakGrowth({ gateway: gateway.process.pid, storage: storage.pid }, () =>
    Promise.all(
      files.map(async (bytes, index) => {
        const form = new FormData();
        form.set('workspaceId', workspace.id);
        form.set('file', new Blob([bytes], { type: 'application/pdf' }), `file-${index}.pdf`);
        const response = await fetch(`${gateway.url}/tasks/${task.id}/comments/attachments`, {
          method: 'POST',
          headers: { cookie },
          body: form,
        });
        if (response.status !== 200) {
          throw new Error(`upload ${index} answered ${response.status}: ${await response.text()}`);
        }
        await response.arrayBuffer();
      }),
    ),
  );
  const uploadMs = performance.now() - uploadStarted;
  const totalBytes = FILE_BYTES * env.BENCH_UPLOADS;

  const connected = await createDistributedPlatform({
    natsUrl: env.NATS_URL,
    databaseUrl,
    serviceName: 'bench-data',
    logger: testLogger(),
  });
  onCleanup(() => connected.close());
  const direct = withNamespace(connected, namespace);
  const bucket = `bench-direct-${randomUUID().slice(0, 8)}`;
  await direct.objects.ensureBucket(bucket);
  const directStarted = performance.now();
  await Promise.all(files.map((bytes, index) => direct.objects.put(bucket, `file-${index}`, inChunks(bytes))));
  const directMs = performance.now() - directStarted;

  const rate = (ms: number) => (totalBytes / MB / ms) * 1000;
  console.log(
    `uploads: ${env.BENCH_UPLOADS} × ${mb(FILE_BYTES)} through the gateway in ${(uploadMs / 1000).toFixed(2)} s (${rate(uploadMs).toFixed(0)} MB/s); straight into the object store ${(directMs / 1000).toFixed(2)} s (${rate(directMs).toFixed(0)} MB/s); gateway peak RSS +${mb(uploads.growth['gateway'] ?? Number.NaN)}, storage +${mb(uploads.growth['storage'] ?? Number.NaN)}`,
  );

  const targets = [
    [
      `split-name of ${env.BENCH_ROWS} rows at ≥ ${MIN_ROWS_PER_S} rows/s`,
      rowsPerS >= MIN_ROWS_PER_S,
    ],
    [
      `uploads stream: gateway and storage each grow by less than the files (${mb(totalBytes)})`,
      Math.max(uploads.growth['gateway'] ?? Infinity, uploads.growth['storage'] ?? Infinity) <
        totalBytes,
    ],
  ] as const;
  for (const [target, holds] of targets) console.log(`${holds ? 'holds' : 'MISSED'}: ${target}`);
}

runBench(main);
