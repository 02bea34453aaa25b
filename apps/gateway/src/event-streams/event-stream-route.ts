import type { ServerResponse } from 'node:http';
import { TurnEventsBatch, type RouteSpec } from '@wap/contracts';
import type { EdgeHandler } from '@wap/http';
import { callRoute } from '@wap/bus-protocol';
import { unavailableWhenUnanswered, validParams, type ForwardingDeps } from '../routing/forwarding';

function writeEvent(res: ServerResponse, event: TurnEventsBatch['events'][number]): void {
  res.write(`id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
}

/**
 * An `event_stream` route as Server-Sent Events: the owner answers long polls with batches of
 * stored events after the last id; this writes them and asks again until a batch says `done`.
 * Any replica of the owner may answer any poll, so a stream survives the loss of one, and a
 * client that reconnects with `Last-Event-ID` goes on after the last event it saw.
 */
export function eventStreamHandler(route: RouteSpec, deps: ForwardingDeps): EdgeHandler {
  return async (request, res) => {
    const gone = new AbortController();
    const onClose = () => gone.abort();
    res.on('close', onClose);
    deps.closing.addEventListener('abort', onClose, { once: true });
    try {
      const actor = await deps.authenticator.authenticate(request);
      const params = validParams(request);
      let lastEventId = request.header('last-event-id');
      while (!gone.signal.aborted) {
        const reply = await callRoute(
          deps.bus,
          route.subject,
          {
            requestId: request.requestId,
            actor,
            params,
            query: {},
            headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId },
          },
          { timeoutMs: route.timeoutMs ?? deps.requestTimeoutMs },
        ).catch(unavailableWhenUnanswered(route));
        if (reply.status !== 200) {
          if (!res.headersSent) return reply;
          break;
        }
        const batch = TurnEventsBatch.parse(reply.body);
        if (!res.headersSent) {
          res.writeHead(200, {
            'Content-Type': 'text/event-stream; charset=utf-8',
            'Cache-Control': 'no-cache, no-transform',
            'X-Accel-Buffering': 'no',
          });
          res.flushHeaders();
        }
        for (const event of batch.events) {
          writeEvent(res, event);
          lastEventId = event.id;
        }
        // A comment keeps proxies from closing a stream that is quiet for a while.
        if (batch.events.length === 0) res.write(': waiting\n\n');
        if (batch.done) break;
      }
      res.end();
      return undefined;
    } catch (error) {
      if (!res.headersSent) throw error;
      // Mid-stream the status is sent: the stream ends and the client resumes with Last-Event-ID.
      request.logger.warn({ err: error, route: route.operationId }, 'event stream ended early');
      res.end();
      return undefined;
    } finally {
      res.off('close', onClose);
      deps.closing.removeEventListener('abort', onClose);
    }
  };
}
