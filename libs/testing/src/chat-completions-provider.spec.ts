import { performance } from 'node:perf_hooks';
import OpenAI, { type ClientOptions } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import {
  startChatCompletionsProvider,
  textReply,
  toolCallReply,
  type ChatCompletionsProvider,
} from './chat-completions-provider';

const model = 'test-model';
const messages: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'What is the weather in Lyon?' },
];
const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

let provider: ChatCompletionsProvider;

beforeEach(async () => {
  provider = await startChatCompletionsProvider();
});

afterEach(async () => {
  await provider.stop();
});

// No retries unless a test asks for them: a retried request would take the next scripted reply.
function clientOf(target: ChatCompletionsProvider, options: ClientOptions = {}): OpenAI {
  return new OpenAI({
    baseURL: target.baseUrl,
    apiKey: 'test-key',
    maxRetries: 0,
    logLevel: 'off',
    ...options,
  });
}

function streamTurn(client: OpenAI, signal?: AbortSignal) {
  return client.chat.completions.create({ model, messages, tools, stream: true }, { signal });
}

async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const collected: ChatCompletionChunk[] = [];
  for await (const chunk of chunks) collected.push(chunk);
  return collected;
}

function contentOf(chunks: ChatCompletionChunk[]): string {
  return chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
}

describe('chat completions provider, streaming', () => {
  test('streams text in the pieces given, which the client joins into the full text', async () => {
    provider.enqueue(textReply('Sunny and 24 °C in Lyon.'));

    const chunks = await collect(await streamTurn(clientOf(provider)));

    expect(contentOf(chunks)).toBe('Sunny and 24 °C in Lyon.');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content)).toEqual([
      '',
      'Sunny',
      ' and',
      ' 24',
      ' °C',
      ' in',
      ' Lyon.',
      undefined,
    ]);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason)).toEqual([
      ...Array<null>(7).fill(null),
      'stop',
    ]);
    expect(new Set(chunks.map((chunk) => chunk.object))).toEqual(
      new Set(['chat.completion.chunk']),
    );
    expect(new Set(chunks.map((chunk) => chunk.model))).toEqual(new Set([model]));
  });

  test('answers with server-sent events: data lines of chunks, then [DONE]', async () => {
    provider.enqueue({ text: ['Hel', 'lo'] });

    const response = await fetch(`${provider.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages, stream: true }),
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).split('\n\n');
    expect(events.at(-1)).toBe('');
    expect(events.at(-2)).toBe('data: [DONE]');
    const chunks = events
      .slice(0, -2)
      .map((event) => JSON.parse(event.replace(/^data: /, '')) as ChatCompletionChunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hel' },
      { content: 'lo' },
      {},
    ]);
  });

  test('streams two tool calls whose arguments, joined by index, are the exact calls', async () => {
    const lookup = { city: 'Lyon', units: 'metric', days: [1, 2, 3] };
    provider.enqueue({
      text: ['Let me check.'],
      toolCalls: [
        { id: 'call_weather', name: 'get_weather', arguments: lookup },
        { id: 'call_time', name: 'get_time', arguments: '{"zone":"Europe/Paris"}' },
      ],
    });

    const chunks = await collect(await streamTurn(clientOf(provider)));

    const calls = new Map<number, { id?: string; name?: string; arguments: string }>();
    const argumentPieces = new Map<number, number>();
    for (const call of chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])) {
      const accumulated = calls.get(call.index) ?? { arguments: '' };
      if (call.id) accumulated.id = call.id;
      if (call.function?.name) accumulated.name = call.function.name;
      if (call.function?.arguments) {
        accumulated.arguments += call.function.arguments;
        argumentPieces.set(call.index, (argumentPieces.get(call.index) ?? 0) + 1);
      }
      calls.set(call.index, accumulated);
    }
    expect([...calls.entries()]).toEqual([
      [0, { id: 'call_weather', name: 'get_weather', arguments: JSON.stringify(lookup) }],
      [1, { id: 'call_time', name: 'get_time', arguments: '{"zone":"Europe/Paris"}' }],
    ]);
    expect(JSON.parse(calls.get(0)?.arguments ?? '')).toEqual(lookup);
    expect([...argumentPieces.entries()]).toEqual([
      [0, 3],
      [1, 3],
    ]);
    expect(contentOf(chunks)).toBe('Let me check.');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  test('records the messages, tools, model and headers the client sent', async () => {
    provider.enqueue(textReply('Hi'));

    await collect(await streamTurn(clientOf(provider)));

    const request = await provider.waitForRequest(1);
    expect(request.index).toBe(1);
    expect(request.body).toEqual({ model, messages, tools, stream: true });
    expect(request.headers.authorization).toBe('Bearer test-key');
    expect(provider.requests).toEqual([request]);
  });

  test('sees the client abort a long stream midway as an early close', async () => {
    const pieces = Array.from({ length: 2000 }, (_, index) => `${index} `);
    provider.enqueue({ text: pieces, chunkDelayMs: 10 });
    const aborter = new AbortController();

    const received: ChatCompletionChunk[] = [];
    let abortedAt = 0;
    for await (const chunk of await streamTurn(clientOf(provider), aborter.signal)) {
      received.push(chunk);
      if (received.length === 5) {
        abortedAt = performance.now();
        aborter.abort();
      }
    }

    const closedAt = await provider.waitForClientClose(1);
    expect(received).toHaveLength(5);
    expect(closedAt).toBeGreaterThanOrEqual(abortedAt);
    expect(closedAt - abortedAt).toBeLessThan(1000);
    expect(provider.closedEarly).toEqual([{ requestIndex: 1, at: closedAt }]);
  }, 10_000);

  test('does not count a stream that ran to its end as closed early', async () => {
    provider.enqueue(textReply('Done quickly'), textReply('Second turn'));
    const client = clientOf(provider);

    await collect(await streamTurn(client));
    await collect(await streamTurn(client));

    expect(provider.requests).toHaveLength(2);
    expect(provider.closedEarly).toEqual([]);
  });

  test('a hanging stream sends its first chunks, then nothing until the client closes it', async () => {
    provider.enqueue({
      text: ['One', ' two', ' three'],
      interrupt: { afterChunks: 2, how: 'hang' },
    });
    const aborter = new AbortController();
    const chunks = (await streamTurn(clientOf(provider), aborter.signal))[Symbol.asyncIterator]();

    const first = await chunks.next();
    const second = await chunks.next();
    const third = chunks.next();
    const waited = await Promise.race([
      third.then(() => 'chunk'),
      new Promise((resolve) => setTimeout(() => resolve('nothing'), 300)),
    ]);
    aborter.abort();

    expect(first.value?.choices[0]?.delta.role).toBe('assistant');
    expect(second.value?.choices[0]?.delta.content).toBe('One');
    expect(waited).toBe('nothing');
    expect(await third).toEqual({ done: true, value: undefined });
    expect(await provider.waitForClientClose(1)).toBeGreaterThan(0);
  }, 10_000);

  test('stop() ends a hanging stream and resolves; that close is not the client’s', async () => {
    provider.enqueue({ text: ['Never finished'], interrupt: { afterChunks: 1, how: 'hang' } });
    const chunks = (await streamTurn(clientOf(provider)))[Symbol.asyncIterator]();
    await chunks.next();

    await provider.stop();

    await expect(chunks.next()).rejects.toThrow();
    expect(provider.closedEarly).toEqual([]);
  }, 5_000);

  test('malformed data after two good chunks makes the client’s iteration throw', async () => {
    provider.enqueue({
      text: ['Fine', ' so far'],
      interrupt: { afterChunks: 2, how: 'malformed' },
    });

    const received: ChatCompletionChunk[] = [];
    const iterate = async () => {
      for await (const chunk of await streamTurn(clientOf(provider))) received.push(chunk);
    };

    await expect(iterate()).rejects.toThrow(SyntaxError);
    expect(contentOf(received)).toBe('Fine');
  });

  test('a dropped connection after three chunks makes the client’s iteration throw', async () => {
    provider.enqueue({ text: ['a', 'b', 'c', 'd'], interrupt: { afterChunks: 3, how: 'drop' } });

    const received: ChatCompletionChunk[] = [];
    const iterate = async () => {
      for await (const chunk of await streamTurn(clientOf(provider))) received.push(chunk);
    };

    await expect(iterate()).rejects.toThrow('terminated');
    expect(contentOf(received)).toBe('ab');
    expect(provider.closedEarly).toEqual([]);
  });
});

describe('chat completions provider, failures and authentication', () => {
  test.each([
    [500, undefined, 'server_error', null],
    [429, 'Rate limit reached for requests', 'requests', 'rate_limit_exceeded'],
  ])(
    'a scripted %i makes the client throw an APIError with that status and body',
    async (status, message, type, code) => {
      provider.enqueue({
        httpError: { status, ...(message && { message }), type, code },
      });

      const error: unknown = await streamTurn(clientOf(provider)).catch(
        (caught: unknown) => caught,
      );

      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error).toMatchObject({
        status,
        type,
        code,
        error: { message: message ?? `Scripted error ${status}`, type, code },
      });
    },
  );

  test('the client retries a 500 and takes the next reply', async () => {
    provider.enqueue({ httpError: { status: 500 } }, textReply('Recovered'));

    const chunks = await collect(await streamTurn(clientOf(provider, { maxRetries: 1 })));

    expect(contentOf(chunks)).toBe('Recovered');
    expect(provider.requests).toHaveLength(2);
  });

  describe('with an API key', () => {
    let guarded: ChatCompletionsProvider;

    beforeEach(async () => {
      guarded = await startChatCompletionsProvider({ apiKey: 'right-key' });
    });

    afterEach(async () => {
      await guarded.stop();
    });

    test.each([
      ['a wrong key', { authorization: 'Bearer wrong-key' }],
      ['no key', {}],
    ])('answers %s with 401 and the OpenAI error body', async (_label, headers) => {
      const response = await fetch(`${guarded.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model, messages, stream: true }),
      });

      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
      expect(guarded.requests).toEqual([]);
    });

    test('the client gets an AuthenticationError for a wrong key, and an answer for the right one', async () => {
      guarded.enqueue(textReply('Welcome'));

      const refused = streamTurn(clientOf(guarded, { apiKey: 'wrong-key' }));
      await expect(refused).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
      await expect(refused).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
      const chunks = await collect(await streamTurn(clientOf(guarded, { apiKey: 'right-key' })));

      expect(contentOf(chunks)).toBe('Welcome');
    });
  });
});

describe('chat completions provider, choosing replies', () => {
  test('a request with nothing queued takes the fallback', async () => {
    const withFallback = await startChatCompletionsProvider({ fallback: textReply('Default') });
    try {
      withFallback.enqueue(textReply('Queued'));
      const client = clientOf(withFallback);

      const first = contentOf(await collect(await streamTurn(client)));
      const second = contentOf(await collect(await streamTurn(client)));

      expect([first, second]).toEqual(['Queued', 'Default']);
    } finally {
      await withFallback.stop();
    }
  });

  test('a request with no reply scripted fails once, even for a client that retries', async () => {
    const error: unknown = await streamTurn(clientOf(provider, { maxRetries: 2 })).catch(
      (caught: unknown) => caught,
    );

    expect(error).toMatchObject({
      status: 500,
      error: {
        message:
          'No reply scripted for request 1: enqueue one, call respondWith or start the provider with a fallback.',
      },
    });
    expect(provider.requests).toHaveLength(1);
  });

  test('respondWith chooses each reply from its request, over the queue, for concurrent turns', async () => {
    provider.enqueue(textReply('From the queue'));
    provider.respondWith((request) => {
      const last = request.body.messages.at(-1);
      return { ...textReply(`Echo: ${String(last?.content)}`), chunkDelayMs: 5 };
    });
    const client = clientOf(provider);

    const answers = await Promise.all(
      ['one', 'two', 'three'].map(async (content) => {
        const chunks = await collect(
          await client.chat.completions.create({
            model,
            messages: [{ role: 'user', content }],
            stream: true,
          }),
        );
        return contentOf(chunks);
      }),
    );

    expect(answers).toEqual(['Echo: one', 'Echo: two', 'Echo: three']);
    expect(provider.requests).toHaveLength(3);
  });
});

describe('chat completions provider, without streaming', () => {
  test('answers a chat.completion that the client parses, tool calls included', async () => {
    provider.enqueue({
      text: ['Checking', ' now.'],
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Lyon' } }],
    });

    const completion = await clientOf(provider).chat.completions.create({
      model,
      messages,
      tools,
      stream: false,
    });

    expect(completion).toMatchObject({ object: 'chat.completion', model });
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Checking now.',
          refusal: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Lyon"}' },
            },
          ],
        },
        finish_reason: 'tool_calls',
        logprobs: null,
      },
    ]);
    expect((await provider.waitForRequest(1)).body).toEqual({
      model,
      messages,
      tools,
      stream: false,
    });
  });

  test('a reply of text only finishes with stop and has no tool calls', async () => {
    provider.enqueue(toolCallReply('get_weather', { city: 'Lyon' }), textReply('It is sunny.'));
    const client = clientOf(provider);

    const first = await client.chat.completions.create({ model, messages, tools });
    const second = await client.chat.completions.create({ model, messages, tools });

    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(first.choices[0]?.message.content).toBeNull();
    expect(first.choices[0]?.message.tool_calls?.[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.message).toEqual({
      role: 'assistant',
      content: 'It is sunny.',
      refusal: null,
    });
  });
});
