import type { AccessDeniedBody } from '@wap/contracts';
import type { RouteHandler } from '@wap/bus-protocol';

/**
 * Spec endpoint 1's 403: a chat of the caller's workspace that is not shared with them. It is
 * not an Error body (no `code`), so it travels as a reply, not as an AppError.
 */
export class ChatAccessDenied extends Error {
  constructor(readonly body: AccessDeniedBody) {
    super('access_denied');
    this.name = 'ChatAccessDenied';
  }
}

/**
 * The same handler map, each handler answering a thrown ChatAccessDenied with 403 and the
 * Access-denied body; every other failure goes on to the transport's error reply.
 */
export function answerAccessDenied<Handlers extends Record<string, RouteHandler>>(
  handlers: Handlers,
): Handlers {
  const answered: Record<string, RouteHandler> = {};
  for (const [operation, handler] of Object.entries(handlers)) {
    answered[operation] = async (request) => {
      try {
        return await handler(request);
      } catch (error) {
        if (error instanceof ChatAccessDenied) return { status: 403, body: error.body };
        throw error;
      }
    };
  }
  return answered as Handlers;
}
