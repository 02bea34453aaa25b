import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How to close `server` without waiting on its clients: stops listening, closes at once every
 * connection that is serving no request, and each other one as soon as its response is sent.
 *
 * `server.close()` alone waits for every connection to end, and Node's `closeIdleConnections()`
 * spares a connection that was opened but has not sent a request yet (a client's spare
 * connection, a load balancer's pre-opened one, or a client that never writes): that holds the
 * close open until the headers timeout, past a drain's grace. Call this right after creating the
 * server, so it sees every connection.
 */
export function closeWhenIdle(server: Server): () => Promise<void> {
  const requestsInProgress = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    requestsInProgress.set(socket, 0);
    socket.once('close', () => requestsInProgress.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    requestsInProgress.set(socket, (requestsInProgress.get(socket) ?? 0) + 1);
    if (closing) res.shouldKeepAlive = false;
    res.once('close', () => {
      const requests = requestsInProgress.get(socket);
      if (requests === undefined) return;
      requestsInProgress.set(socket, requests - 1);
      // destroySoon ends the connection once what is written has been flushed.
      if (closing && requests === 1) socket.destroySoon();
    });
  });
  return () =>
    new Promise<void>((resolve) => {
      closing = true;
      server.close(() => resolve());
      for (const [socket, requests] of requestsInProgress) {
        if (requests === 0) socket.destroy();
      }
    });
}
