/** One Server-Sent Event as a client reads it. */
export interface ServerSentEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** A Server-Sent Events stream being read in the background, as a browser's EventSource would. */
export interface EventStreamReader {
  status: number;
  contentType: string | null;
  /** The events read so far, in order. */
  events: ServerSentEvent[];
  /** Resolves with the first event (read so far or later) that matches. */
  waitFor(match: (event: ServerSentEvent) => boolean, timeoutMs?: number): Promise<ServerSentEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Drops the connection, as a client that goes away does. */
  close(): void;
}

function parseBlock(block: string): ServerSentEvent | null {
  let id = '';
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  return { id, event, data: JSON.parse(data.join('\n')) as Record<string, unknown> };
}

/** Opens a stream; the body of a non-200 answer is in `events` as nothing and in `errorBody`. */
export async function openEventStream(
  url: string,
  options: { cookie: string; lastEventId?: string },
): Promise<EventStreamReader & { errorBody: unknown }> {
  const abort = new AbortController();
  const headers: Record<string, string> = { cookie: options.cookie, accept: 'text/event-stream' };
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const response = await fetch(url, { headers, signal: abort.signal });
  const events: ServerSentEvent[] = [];
  const listeners = new Set<() => void>();
  let errorBody: unknown = undefined;
  let ended: Promise<void> = Promise.resolve();
  if (response.status !== 200) {
    errorBody = JSON.parse(await response.text());
  } else if (response.body) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    ended = (async () => {
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let boundary = buffer.indexOf('\n\n');
          while (boundary !== -1) {
            const parsed = parseBlock(buffer.slice(0, boundary));
            buffer = buffer.slice(boundary + 2);
            if (parsed) events.push(parsed);
            boundary = buffer.indexOf('\n\n');
          }
          for (const listener of listeners) listener();
        }
      } catch (error) {
        if (!abort.signal.aborted) throw error;
      }
    })();
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    events,
    errorBody,
    ended,
    close: () => abort.abort(),
    waitFor: (match, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(match);
          if (!found) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching event within ${timeoutMs} ms: ${JSON.stringify(events)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
  };
}

/** Reads a whole stream to its end and answers its events. */
export async function readAllEvents(
  url: string,
  options: { cookie: string; lastEventId?: string },
): Promise<ServerSentEvent[]> {
  const stream = await openEventStream(url, options);
  if (stream.status !== 200) {
    throw new Error(`event stream answered ${stream.status}: ${JSON.stringify(stream.errorBody)}`);
  }
  await stream.ended;
  return stream.events;
}
