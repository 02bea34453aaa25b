import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { natsServerConfig, type NatsUser } from '@wap/platform';
import { freePort } from './ports';

/** One nats-server process of a test's own, restartable on its ports with its store kept. */
export interface NatsNode {
  name: string;
  url: string;
  pid(): number | undefined;
  start(): Promise<void>;
  /** SIGKILL: a lost node, nothing flushed. */
  kill9(): Promise<void>;
  /** SIGTERM: the server flushes its stores and closes client connections. */
  stop(): Promise<void>;
}

/** A test's own NATS: one server or a JetStream cluster, admitting only the given users. */
export interface OwnNats {
  /** Every node's URL, comma-separated, as NATS_URL takes them. */
  url: string;
  nodes: NatsNode[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Waits until the node's monitoring endpoint says it (and its JetStream) is healthy. */
async function waitHealthy(monitorPort: number, name: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${monitorPort}/healthz`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`nats-server ${name} was not healthy within ${timeoutMs} ms`);
}

/**
 * Starts `nodes` nats-server processes (from PATH) in `dir`, with authentication on: each admits
 * only `users`, with the permissions the subject registry derives (decision 113). Three nodes
 * form a JetStream cluster over routes on loopback ports.
 */
export async function startOwnNats(options: {
  dir: string;
  users: readonly NatsUser[];
  nodes: number;
  namespace?: string;
}): Promise<OwnNats> {
  mkdirSync(options.dir, { recursive: true });
  const ports = await Promise.all(
    Array.from({ length: options.nodes }, async () => ({
      client: await freePort(),
      route: await freePort(),
      monitor: await freePort(),
    })),
  );
  const routes = ports.map((port) => `nats-route://127.0.0.1:${port.route}`);
  const nodes = ports.map((port, index): NatsNode => {
    const name = `n${index + 1}`;
    const configFile = join(options.dir, `${name}.conf`);
    writeFileSync(
      configFile,
      natsServerConfig({
        users: options.users,
        port: port.client,
        monitorPort: port.monitor,
        storeDir: join(options.dir, name),
        namespace: options.namespace,
        cluster:
          options.nodes > 1
            ? {
                name: 'wap-test',
                serverName: name,
                listen: `127.0.0.1:${port.route}`,
                routes: routes.filter((_route, other) => other !== index),
              }
            : undefined,
      }),
    );
    let child: ChildProcess | undefined;
    const exitOf = async (signal: NodeJS.Signals) => {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill(signal);
      await exited;
    };
    return {
      name,
      url: `nats://127.0.0.1:${port.client}`,
      pid: () => child?.pid,
      async start() {
        child = spawn('nats-server', ['-c', configFile, '-l', join(options.dir, `${name}.log`)], {
          stdio: 'ignore',
        });
        await waitHealthy(port.monitor, name);
      },
      kill9: () => exitOf('SIGKILL'),
      stop: () => exitOf('SIGTERM'),
    };
  });
  return {
    url: nodes.map((node) => node.url).join(','),
    nodes,
    // A cluster's nodes wait for each other to elect a leader: start them together.
    start: async () => {
      await Promise.all(nodes.map((node) => node.start()));
    },
    stop: async () => {
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
}
