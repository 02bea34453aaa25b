import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { closeWhenIdle } from './server-close';

// Node's own timers would end a silent or idle connection after these; a close that depended on
// them would outlast the test's timeout.
const NODE_TIMEOUTS_MS = 10 * 60_000;

// So that a close that hangs fails its test instead of keeping jest from exiting.
const serversToForceClose: Server[] = [];
const socketsToDestroy: Socket[] = [];
afterEach(() => {
  for (const socket of socketsToDestroy.splice(0)) socket.destroy();
  for (const server of serversToForceClose.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function listening(
  handler: Parameters<typeof createServer>[1],
): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer(handler);
  server.headersTimeout = NODE_TIMEOUTS_MS;
  server.requestTimeout = NODE_TIMEOUTS_MS;
  server.keepAliveTimeout = NODE_TIMEOUTS_MS;
  const close = closeWhenIdle(server);
  serversToForceClose.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close };
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socketsToDestroy.push(socket);
    socket.once('error', reject);
  });
}

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once('close', () => resolve());
  });
}

function everythingReceived(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.once('close', () => resolve(received));
  });
}

const KEEP_ALIVE_GET = 'GET / HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n';

test('a connection that never sent a request does not hold the close open', async () => {
  const { port, close } = await listening((_req, res) => res.end('ok'));
  const silent = await openSocket(port);
  silent.on('error', () => undefined);
  await close();
  await closed(silent);
  expect(silent.destroyed).toBe(true);
});

test('an idle keep-alive connection is closed with the server', async () => {
  const { port, close } = await listening((_req, res) => res.end('ok'));
  const client = await openSocket(port);
  client.write(KEEP_ALIVE_GET);
  await new Promise((resolve) => client.once('data', resolve));
  await close();
  await closed(client);
});

test('a request in progress gets its whole response, then its connection closes', async () => {
  let respond: () => void = () => undefined;
  let requestArrived: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (requestArrived = resolve));
  const { port, close } = await listening((_req, res) => {
    respond = () => res.end('finished');
    requestArrived();
  });
  const client = await openSocket(port);
  const received = everythingReceived(client);
  client.write(KEEP_ALIVE_GET);
  await arrived;
  let closeResolved = false;
  const closing = close().then(() => (closeResolved = true));
  await new Promise<void>((resolve) => setTimeout(resolve, 50));
  expect(closeResolved).toBe(false);
  respond();
  const response = await received;
  expect(response).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  expect(response).toMatch(/\r\n\r\nfinished$/);
  await closing;
});

test('after close, new connections are refused', async () => {
  const { port, close } = await listening((_req, res) => res.end('ok'));
  await close();
  await expect(openSocket(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
});
