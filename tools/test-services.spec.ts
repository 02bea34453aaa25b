import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  chooseTestServices,
  DEFAULT_DATABASE_URL,
  DEFAULT_NATS_URL,
  machineProbes,
  NATS_IMAGE,
  natsAnswers,
  POSTGRES_IMAGE,
  postgresAnswers,
  startTestServices,
  type Probes,
} from './test-services';

interface Machine {
  natsAt?: string;
  postgresAt?: string;
  natsBinary?: string;
  postgresBinaries?: string;
  containers?: boolean;
}

/** A machine described by what it offers, recording which probes the choice asked. */
function probesOf(machine: Machine): Probes & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async natsAnswers(url) {
      asked.push(`nats ${url}`);
      return url === machine.natsAt;
    },
    async postgresAnswers(url) {
      asked.push(`postgres ${url}`);
      return url === machine.postgresAt;
    },
    natsServerBinary() {
      asked.push('nats-server');
      return machine.natsBinary;
    },
    postgresBinaries() {
      asked.push('initdb');
      return machine.postgresBinaries;
    },
    async containerRuntime() {
      asked.push('container runtime');
      return machine.containers ?? false;
    },
  };
}

const NATS_URL = 'nats://nats.internal:4222';
const DATABASE_URL = 'postgres://postgres:secret@db.internal:5432/postgres';

describe('chooseTestServices', () => {
  test.each([
    {
      offers: 'both servers running at the URLs of the environment',
      machine: { natsAt: NATS_URL, postgresAt: DATABASE_URL, containers: true, natsBinary: 'x' },
      nats: { kind: 'running', url: NATS_URL },
      postgres: { kind: 'running', url: DATABASE_URL },
    },
    {
      offers: 'no server running, both binaries installed, a container engine',
      machine: {
        natsBinary: '/usr/sbin/nats-server',
        postgresBinaries: '/usr/lib/postgresql/15/bin',
        containers: true,
      },
      nats: { kind: 'binaries', path: '/usr/sbin/nats-server' },
      postgres: { kind: 'binaries', path: '/usr/lib/postgresql/15/bin' },
    },
    {
      offers: 'a container engine only',
      machine: { containers: true },
      nats: { kind: 'container', image: NATS_IMAGE },
      postgres: { kind: 'container', image: POSTGRES_IMAGE },
    },
    {
      offers: 'NATS running, PostgreSQL binaries',
      machine: { natsAt: NATS_URL, postgresBinaries: '/opt/pg/bin' },
      nats: { kind: 'running', url: NATS_URL },
      postgres: { kind: 'binaries', path: '/opt/pg/bin' },
    },
    {
      offers: 'PostgreSQL running, nats-server in no form but a container engine',
      machine: { postgresAt: DATABASE_URL, containers: true },
      nats: { kind: 'container', image: NATS_IMAGE },
      postgres: { kind: 'running', url: DATABASE_URL },
    },
  ])('$offers', async ({ machine, nats, postgres }) => {
    const probes = probesOf(machine);
    await expect(chooseTestServices({ NATS_URL, DATABASE_URL }, probes)).resolves.toEqual({
      nats,
      postgres,
    });
  });

  test('a running server is used without looking for binaries or containers', async () => {
    const probes = probesOf({ natsAt: NATS_URL, postgresAt: DATABASE_URL });
    await chooseTestServices({ NATS_URL, DATABASE_URL }, probes);
    expect(probes.asked.sort()).toEqual([`nats ${NATS_URL}`, `postgres ${DATABASE_URL}`]);
  });

  test('the container engine is probed once for both servers', async () => {
    const probes = probesOf({ containers: true });
    await chooseTestServices({}, probes);
    expect(probes.asked.filter((probe) => probe === 'container runtime')).toHaveLength(1);
  });

  test('without NATS_URL and DATABASE_URL the local default addresses are probed', async () => {
    const probes = probesOf({ natsAt: DEFAULT_NATS_URL, postgresAt: DEFAULT_DATABASE_URL });
    await expect(chooseTestServices({ NATS_URL: '', DATABASE_URL: '' }, probes)).resolves.toEqual({
      nats: { kind: 'running', url: DEFAULT_NATS_URL },
      postgres: { kind: 'running', url: DEFAULT_DATABASE_URL },
    });
  });

  test('a server with no source at all is refused with what to install', async () => {
    await expect(
      chooseTestServices({ NATS_URL, DATABASE_URL }, probesOf({ natsAt: NATS_URL })),
    ).rejects.toThrow(
      `no PostgreSQL for the tests: nothing answers at ${DATABASE_URL}, PostgreSQL's initdb and ` +
        'pg_ctl is not installed, and no container engine is reachable',
    );
    await expect(
      chooseTestServices({ NATS_URL, DATABASE_URL }, probesOf({ postgresAt: DATABASE_URL })),
    ).rejects.toThrow(`no NATS with JetStream for the tests: nothing answers at ${NATS_URL}`);
  });
});

describe('the probes of this machine', () => {
  test('a NATS server with JetStream answers at the test URL; a closed port does not', async () => {
    await expect(natsAnswers(process.env['NATS_URL'] || DEFAULT_NATS_URL)).resolves.toBe(true);
    await expect(natsAnswers('nats://127.0.0.1:1')).resolves.toBe(false);
  });

  test('PostgreSQL answers at the test URL; a closed port does not', async () => {
    await expect(
      postgresAnswers(process.env['DATABASE_URL'] || DEFAULT_DATABASE_URL),
    ).resolves.toBe(true);
    await expect(postgresAnswers('postgres://postgres@127.0.0.1:1/postgres')).resolves.toBe(false);
  });
});

describe('startTestServices', () => {
  test("uses this machine's running servers, says so, and leaves them running", async () => {
    const probes = machineProbes();
    const plan = await chooseTestServices(process.env, probes);
    expect(plan.nats.kind).toBe('running');
    expect(plan.postgres.kind).toBe('running');

    const services = await startTestServices(plan, probes);
    const natsUrl = process.env['NATS_URL'] || DEFAULT_NATS_URL;
    const databaseUrl = process.env['DATABASE_URL'] || DEFAULT_DATABASE_URL;
    expect(services.env).toEqual({ NATS_URL: natsUrl, DATABASE_URL: databaseUrl });
    expect(services.description).toEqual([
      `NATS: the server already running at ${natsUrl}`,
      `PostgreSQL: the server already running at ${databaseUrl.replace(/:[^:@/]+@/, ':***@')}`,
    ]);
    await services.stop();
    await expect(natsAnswers(natsUrl)).resolves.toBe(true);
    await expect(postgresAnswers(databaseUrl)).resolves.toBe(true);
  });

  test('a server that exits at once fails the start, and its temp dir is removed', async () => {
    // /bin/false stands for a nats-server that cannot start: this runs on every machine, also
    // where NATS comes from a container and no nats-server is installed.
    const before = new Set(
      readdirSync(tmpdir()).filter((name) => name.startsWith('wap-test-nats-')),
    );
    await expect(
      startTestServices(
        {
          nats: { kind: 'binaries', path: '/bin/false' },
          postgres: { kind: 'running', url: DEFAULT_DATABASE_URL },
        },
        machineProbes(),
      ),
    ).rejects.toThrow(/^nats-server \(log: .+\/nats\.log\) exited \(1\)$/);
    const left = readdirSync(tmpdir()).filter(
      (name) => name.startsWith('wap-test-nats-') && !before.has(name),
    );
    expect(left).toEqual([]);
  });
});
