import { BUS_APIS } from '@wap/contracts';
import { callApi } from '@wap/bus-protocol';
import {
  eventually,
  startChatCompletionsProvider,
  textReply,
  toolCallReply,
  type ChatCompletionsProvider,
  openEventStream,
  readAllEvents,
  type ServerSentEvent,
} from '@wap/testing';
import { registrySettingsFor, startMcpTestServers, type McpTestServers } from './mcp-test-servers';
import {
  createWorkspace,
  http,
  RUNTIMES,
  signedInPerson,
  startStack,
  uniqueEmail,
  type Person,
  type TestStack,
} from './stack';

const API_KEY = 'sk-provider-secret-4f1c9e';
const MODEL = 'scripted-model';

describe.each(RUNTIMES)('chat turns and the assistant on the %s runtime', (runtime) => {
  let provider: ChatCompletionsProvider;
  let servers: McpTestServers;
  let stack: TestStack;
  let owner: Person;
  let workspaceId: string;

  beforeAll(async () => {
    provider = await startChatCompletionsProvider({ apiKey: API_KEY });
    servers = await startMcpTestServers();
    stack = await startStack(runtime, {
      config: { requestTimeoutMs: 5000 },
      services: {
        chat: { LLM_BASE_URL: provider.baseUrl, LLM_API_KEY: API_KEY, LLM_MODEL: MODEL },
        mcpRegistry: registrySettingsFor(servers),
      },
    });
    owner = await person('owner');
    workspaceId = await newWorkspace(owner);
    await registerEverything();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await servers?.stop();
    await provider?.stop();
  });

  const person = (label: string, email?: string) => signedInPerson(stack, label, email);
  const newWorkspace = (who: Person) => createWorkspace(stack, who, 'chat workspace');

  async function addMember(label: string): Promise<Person> {
    const email = uniqueEmail(label);
    const added = await http(`${stack.url}/workspaces/${workspaceId}/members`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { email, role: 'member' },
    });
    expect(added.status).toBe(201);
    return person(label, email);
  }

  async function registerEverything(): Promise<void> {
    const registered = await http(`${stack.url}/mcp-registry`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId,
        serverType: 'custom',
        name: 'everything',
        description: 'server-everything',
        serverUrl: `${servers.origin}/open/mcp`,
        accessMode: 'everyone',
      },
    });
    expect(registered.status).toBe(201);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const tools = await http(`${stack.url}/mcp-registry/tools?workspaceId=${workspaceId}`, {
        cookie: owner.cookie,
      });
      if ((tools.body as { count?: number }).count) return;
      if (Date.now() > deadline) throw new Error('server-everything was not synced');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function newChat(who: Person = owner, body: Record<string, unknown> = {}): Promise<string> {
    const created = await http(`${stack.url}/ai-chat/conversations`, {
      method: 'POST',
      cookie: who.cookie,
      body: { workspaceId, title: 'Assistant test', ...body },
    });
    expect(created.status).toBe(201);
    return (created.body as { conversation: { id: string } }).conversation.id;
  }

  async function send(chatId: string, content: string, who: Person = owner) {
    return http(`${stack.url}/ai-chat/conversations/${chatId}/messages`, {
      method: 'POST',
      cookie: who.cookie,
      body: { content },
    });
  }

  async function startTurn(chatId: string, content: string, who: Person = owner): Promise<string> {
    const sent = await send(chatId, content, who);
    expect(sent.status).toBe(202);
    return (sent.body as { requestId: string }).requestId;
  }

  function eventsUrl(requestId: string): string {
    return `${stack.url}/brain/turns/${requestId}/events`;
  }

  async function cancel(body: Record<string, unknown>, who: Person = owner) {
    return http(`${stack.url}/brain/cancel`, { method: 'POST', cookie: who.cookie, body });
  }

  function replyText(events: ServerSentEvent[]): string {
    return events
      .filter((event) => event.event === 'delta')
      .map((event) => String(event.data['text']))
      .join('');
  }

  function finalStatus(events: ServerSentEvent[]): unknown {
    return events.at(-1)?.data['status'];
  }

  test('a message starts a turn that streams the reply: 202 {message, requestId}, events in order, the reply stored', async () => {
    const chatId = await newChat();
    provider.enqueue(textReply('Hello from the scripted model, nice to meet you.'));
    const sent = await send(chatId, 'Hi assistant');
    expect(sent.status).toBe(202);
    const { message, requestId } = sent.body as {
      message: Record<string, unknown>;
      requestId: string;
    };
    expect(message).toMatchObject({
      conversation_id: chatId,
      role: 'user',
      user_id: owner.userId,
      content: 'Hi assistant',
      request_id: requestId,
    });

    const events = await readAllEvents(eventsUrl(requestId), { cookie: owner.cookie });
    expect(events[0]).toEqual({ id: '1', event: 'status', data: { status: 'running' } });
    expect(replyText(events)).toBe('Hello from the scripted model, nice to meet you.');
    expect(finalStatus(events)).toBe('completed');
    expect(events.map((event) => Number(event.id))).toEqual(events.map((_, index) => index + 1));

    const request = provider.requests.at(-1);
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.body.model).toBe(MODEL);
    expect(request?.body.messages).toEqual([{ role: 'user', content: 'Hi assistant' }]);
    expect(
      (request?.body.tools ?? []).map(
        (tool) => (tool as { function: { name: string } }).function.name,
      ),
    ).toContain('trigger-long-running-operation');

    const turn = await http(`${stack.url}/brain/turns/${requestId}`, { cookie: owner.cookie });
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({
      requestId,
      conversationId: chatId,
      status: 'completed',
      error: null,
      runningToolCall: null,
      lastEventId: events.at(-1)?.id,
    });
    const listed = await http(`${stack.url}/ai-chat/conversations/${chatId}/messages`, {
      cookie: owner.cookie,
    });
    expect(listed.status).toBe(200);
    expect(
      (listed.body as { messages: Array<Record<string, unknown>> }).messages.map((entry) => [
        entry['role'],
        entry['content'],
        entry['status'],
      ]),
    ).toEqual([
      ['user', 'Hi assistant', null],
      ['assistant', 'Hello from the scripted model, nice to meet you.', 'completed'],
    ]);
    const chat = await http(`${stack.url}/ai-chat/conversations/${chatId}`, {
      cookie: owner.cookie,
    });
    expect((chat.body as { conversation: Record<string, unknown> }).conversation).toMatchObject({
      last_message: {
        role: 'assistant',
        content: 'Hello from the scripted model, nice to meet you.',
      },
    });

    // The next turn sends the history: the first exchange, then the new message.
    provider.enqueue(textReply('Again.'));
    const second = await startTurn(chatId, 'Once more');
    await readAllEvents(eventsUrl(second), { cookie: owner.cookie });
    expect(provider.requests.at(-1)?.body.messages).toEqual([
      { role: 'user', content: 'Hi assistant' },
      { role: 'assistant', content: 'Hello from the scripted model, nice to meet you.' },
      { role: 'user', content: 'Once more' },
    ]);
  });

  test('a tool call the model asks for runs on the MCP server and the model answers with its result', async () => {
    const chatId = await newChat();
    provider.enqueue(
      toolCallReply('echo', { message: 'ping through MCP' }),
      textReply('It said ping.'),
    );
    const requestId = await startTurn(chatId, 'Echo something');
    const events = await readAllEvents(eventsUrl(requestId), { cookie: owner.cookie });
    const call = events.find((event) => event.event === 'tool_call');
    expect(call?.data).toMatchObject({ name: 'echo', arguments: { message: 'ping through MCP' } });
    const result = events.find((event) => event.event === 'tool_result');
    expect(result?.data).toMatchObject({
      toolCallId: call?.data['toolCallId'],
      isError: false,
      cancelled: false,
    });
    expect(JSON.stringify(result?.data['content'])).toContain('ping through MCP');
    expect(replyText(events)).toBe('It said ping.');
    expect(finalStatus(events)).toBe('completed');
    const followUp = provider.requests.at(-1)?.body.messages ?? [];
    expect(followUp.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: call?.data['toolCallId'],
    });
    expect(String((followUp.at(-1) as { content: string }).content)).toContain('ping through MCP');
  });

  test('POST /brain/cancel stops the stream: partial reply kept, provider stream closed, repeats harmless', async () => {
    const chatId = await newChat();
    const words = Array.from({ length: 400 }, (_, index) => `w${index} `);
    provider.enqueue({ text: words, chunkDelayMs: 20 });
    // Counted before the turn starts: it may reach the provider before the 202 is read.
    const requestsBefore = provider.requests.length;
    const requestId = await startTurn(chatId, 'Talk for a long time');
    const requestIndex = (await provider.waitForRequest(requestsBefore + 1)).index;
    const stream = await openEventStream(eventsUrl(requestId), { cookie: owner.cookie });
    await stream.waitFor((event) => event.event === 'delta');

    const stopped = await cancel({ requestId });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toEqual({
      success: true,
      status: 'stopped',
      requestId,
      cancelledRequestIds: [requestId],
    });
    await provider.waitForClientClose(requestIndex);
    await stream.ended;
    expect(finalStatus(stream.events)).toBe('stopped');
    const partial = replyText(stream.events);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(words.join('').length);

    const again = await cancel({ requestId });
    expect(again.body).toEqual({
      success: true,
      status: 'stopped',
      requestId,
      cancelledRequestIds: [],
    });
    const listed = await http(`${stack.url}/ai-chat/conversations/${chatId}/messages`, {
      cookie: owner.cookie,
    });
    const reply = (listed.body as { messages: Array<Record<string, unknown>> }).messages[1];
    expect(reply).toMatchObject({ role: 'assistant', status: 'stopped', content: partial });
  });

  test('cancelToolOnly stops the running MCP tool at the server, answers it as cancelled, and the reply goes on', async () => {
    const chatId = await newChat();
    provider.enqueue(
      toolCallReply('trigger-long-running-operation', { duration: 30, steps: 30 }),
      textReply('The operation was stopped, so here is the rest of my answer.'),
    );
    const requestId = await startTurn(chatId, 'Run the long operation');
    const stream = await openEventStream(eventsUrl(requestId), { cookie: owner.cookie });
    const call = await stream.waitFor((event) => event.event === 'tool_call');
    const toolCallId = String(call.data['toolCallId']);
    const running = await http(`${stack.url}/brain/turns/${requestId}`, { cookie: owner.cookie });
    expect(running.body).toMatchObject({
      status: 'running',
      runningToolCall: { id: toolCallId, name: 'trigger-long-running-operation' },
    });
    // Give the registry a moment to have the call in flight at the MCP server.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const stopped = await cancel({
      requestId,
      cancelToolOnly: true,
      toolName: 'trigger-long-running-operation',
    });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toEqual({
      success: true,
      status: 'running',
      requestId,
      cancelledRequestIds: [toolCallId],
    });
    await stream.ended;
    const result = stream.events.find((event) => event.event === 'tool_result');
    expect(result?.data).toMatchObject({ toolCallId, isError: true, cancelled: true });
    expect(replyText(stream.events)).toBe(
      'The operation was stopped, so here is the rest of my answer.',
    );
    expect(finalStatus(stream.events)).toBe('completed');
    expect(provider.requests.at(-1)?.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: toolCallId,
      content: 'Error: The tool call was cancelled by the user.',
    });
    await eventually(async () =>
      expect(servers.rpcMessages.map((message) => message.method)).toContain(
        'notifications/cancelled',
      ),
    );
  });

  test('a tool-only cancel names a tool that is not running: nothing stops', async () => {
    const chatId = await newChat();
    provider.enqueue({ text: ['Slow ', 'words ', 'only'], chunkDelayMs: 300 });
    const requestId = await startTurn(chatId, 'No tools now');
    const answer = await cancel({ requestId, cancelToolOnly: true });
    expect(answer.body).toEqual({
      success: true,
      status: 'running',
      requestId,
      cancelledRequestIds: [],
    });
    const events = await readAllEvents(eventsUrl(requestId), { cookie: owner.cookie });
    expect(finalStatus(events)).toBe('completed');
  });

  test('only the user who started a turn stops it; others get 403 or 404; bad bodies 400', async () => {
    const member = await addMember('reader');
    const chatId = await newChat(owner, { access_type: 'everyone' });
    provider.enqueue({ text: ['a ', 'b ', 'c'], chunkDelayMs: 200 });
    const requestId = await startTurn(chatId, 'Shared turn');

    const byMember = await cancel({ requestId }, member);
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual({
      error: 'Only the user who started this turn can stop it',
      code: 'FORBIDDEN',
    });
    const outsider = await person('outsider');
    await newWorkspace(outsider);
    const byOutsider = await cancel({ requestId }, outsider);
    expect(byOutsider.status).toBe(404);
    const unknown = await cancel({ requestId: '5b0e3a52-8f1e-4a0b-9c53-2b1b7f9a6c11' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(byOutsider.body);
    const malformed = await cancel({ requestId: 'not-a-uuid' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await cancel({ requestId, cancelToolOnly: 'yes' })).status).toBe(400);
    expect(
      (await http(`${stack.url}/brain/cancel`, { method: 'POST', body: { requestId } })).body,
    ).toEqual({
      error: expect.any(String),
      code: 'UNAUTHORIZED',
    });
    // The outsider sees nothing of the turn anywhere.
    for (const url of [`${stack.url}/brain/turns/${requestId}`, eventsUrl(requestId)]) {
      const seen = await http(url, { cookie: outsider.cookie });
      expect(seen.status).toBe(404);
      expect(seen.body).toEqual(unknown.body);
    }
    await readAllEvents(eventsUrl(requestId), { cookie: member.cookie });
  });

  test('a reader removed from the workspace mid-turn: a new stream is refused at once, the open one ends at its next access check', async () => {
    const member = await addMember('removed-reader');
    const chatId = await newChat(owner, { access_type: 'everyone' });
    provider.enqueue({
      text: Array.from({ length: 400 }, (_, index) => `w${index} `),
      chunkDelayMs: 100,
    });
    const requestId = await startTurn(chatId, 'A long shared turn');
    const stream = await openEventStream(eventsUrl(requestId), { cookie: member.cookie });
    expect(stream.status).toBe(200);
    await stream.waitFor((event) => event.event === 'delta');

    const removed = await http(`${stack.url}/workspaces/${workspaceId}/members/${member.userId}`, {
      method: 'DELETE',
      cookie: owner.cookie,
    });
    expect(removed.status).toBeLessThan(300);
    await eventually(async () => {
      const again = await openEventStream(eventsUrl(requestId), { cookie: member.cookie });
      again.close();
      expect(again.status).toBe(404);
    }, 10_000);
    // Ends long before the 40 s turn does: the stream is authorised again every 10 s.
    await stream.ended;
    expect(stream.events.filter((event) => event.event === 'status').at(-1)?.data['status']).toBe(
      'running',
    );
    expect((await cancel({ requestId })).status).toBe(200);
  }, 60_000);

  test('a read-only member cannot send; an empty message is 400; a message over the limit is 413', async () => {
    const member = await addMember('read-only');
    const chatId = await newChat(owner, { access_type: 'everyone' });
    const refused = await send(chatId, 'let me in', member);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'FORBIDDEN' });
    expect((await send(chatId, '   ')).body).toMatchObject({ code: 'VALIDATION_ERROR' });
    const tooLong = await send(chatId, 'x'.repeat(32_001));
    expect(tooLong.status).toBe(413);
    expect(tooLong.body).toEqual({
      error: 'A message may have at most 32000 characters',
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  test.each([
    ['a 500 answer', { httpError: { status: 500, message: 'upstream exploded' } }, /500/],
    [
      'malformed stream data',
      { text: ['a', 'b', 'c'], interrupt: { afterChunks: 2, how: 'malformed' } },
      /could not be read/,
    ],
    [
      'a dropped connection',
      { text: ['a', 'b', 'c'], interrupt: { afterChunks: 2, how: 'drop' } },
      /failed/,
    ],
  ] as const)(
    'a provider that fails (%s) ends the turn as failed with a readable reason',
    async (_, reply, reason) => {
      const chatId = await newChat();
      provider.enqueue(reply as never);
      const sent = await send(chatId, 'This will fail');
      expect(sent.status).toBe(202);
      const requestId = (sent.body as { requestId: string }).requestId;
      const events = await readAllEvents(eventsUrl(requestId), { cookie: owner.cookie });
      expect(finalStatus(events)).toBe('failed');
      const error = String(events.at(-1)?.data['error']);
      expect(error).toMatch(reason);
      expect(error).not.toContain(API_KEY);
      const turn = await http(`${stack.url}/brain/turns/${requestId}`, { cookie: owner.cookie });
      expect(turn.body).toMatchObject({ status: 'failed', error });
      expect(turn.text).not.toContain(API_KEY);
    },
  );

  test('Last-Event-ID resumes the stream after the last event seen: nothing missed, nothing twice', async () => {
    const chatId = await newChat();
    const pieces = Array.from({ length: 30 }, (_, index) => `p${index} `);
    provider.enqueue({ text: pieces, chunkDelayMs: 30 });
    const requestId = await startTurn(chatId, 'Stream and reconnect');
    const first = await openEventStream(eventsUrl(requestId), { cookie: owner.cookie });
    await first.waitFor((event) => event.event === 'delta' && Number(event.id) >= 3);
    first.close();
    const seen = [...first.events];
    const rest = await readAllEvents(eventsUrl(requestId), {
      cookie: owner.cookie,
      lastEventId: seen.at(-1)?.id,
    });
    const all = [...seen, ...rest];
    expect(all.map((event) => Number(event.id))).toEqual(all.map((_, index) => index + 1));
    expect(replyText(all)).toBe(pieces.join(''));
    // A resume past the end answers the end at once.
    const after = await readAllEvents(eventsUrl(requestId), {
      cookie: owner.cookie,
      lastEventId: all.at(-1)?.id,
    });
    expect(after).toEqual([]);
  });

  test('the workflow step assistant_prompt gets one answer of the model, for members only', async () => {
    provider.enqueue(textReply('A summary of the order.'));
    const answer = await callApi(
      (await stack.as('workflow-runner')).bus,
      BUS_APIS.assistantPrompt,
      { workspaceId, userId: owner.userId, prompt: 'Summarize the order' },
      { timeoutMs: 5000 },
    );
    expect(answer).toEqual({ text: 'A summary of the order.' });
    const request = provider.requests.at(-1)?.body;
    expect(request?.stream).toBeUndefined();
    expect(request?.messages).toEqual([{ role: 'user', content: 'Summarize the order' }]);
    const outsider = await person('prompt-outsider');
    await expect(
      callApi(
        (await stack.as('workflow-runner')).bus,
        BUS_APIS.assistantPrompt,
        { workspaceId, userId: outsider.userId, prompt: 'Summarize the order' },
        { timeoutMs: 5000 },
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  test('a member of another workspace gets 404 on every turn route with ids from this one', async () => {
    const chatId = await newChat();
    provider.enqueue(textReply('private things'));
    const requestId = await startTurn(chatId, 'secret');
    await readAllEvents(eventsUrl(requestId), { cookie: owner.cookie });
    const outsider = await person('other-workspace');
    await newWorkspace(outsider);
    const attempts = [
      http(`${stack.url}/ai-chat/conversations/${chatId}/messages`, { cookie: outsider.cookie }),
      send(chatId, 'hello?', outsider),
      http(`${stack.url}/brain/turns/${requestId}`, { cookie: outsider.cookie }),
      http(eventsUrl(requestId), { cookie: outsider.cookie }),
      cancel({ requestId }, outsider),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect(answer.status).toBe(404);
      expect(answer.text).not.toContain('private things');
    }
  });
});

describe.each(RUNTIMES)('the assistant without a model on the %s runtime', (runtime) => {
  let stack: TestStack;
  let servers: McpTestServers;

  beforeAll(async () => {
    servers = await startMcpTestServers();
    stack = await startStack(runtime, {
      services: {
        mcpRegistry: registrySettingsFor(servers),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await servers?.stop();
  });

  test('a turn says no model is configured and how to set one; /tool calls an MCP tool directly', async () => {
    const cookie = await stack.cookieFor(uniqueEmail('no-model'));
    const workspace = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'no model' },
    });
    const workspaceId = (workspace.body as { workspace: { id: string } }).workspace.id;
    const registered = await http(`${stack.url}/mcp-registry`, {
      method: 'POST',
      cookie,
      body: {
        workspaceId,
        serverType: 'custom',
        name: 'everything',
        description: 'server-everything',
        serverUrl: `${servers.origin}/open/mcp`,
        accessMode: 'everyone',
      },
    });
    expect(registered.status).toBe(201);
    await eventually(async () => {
      const tools = await http(`${stack.url}/mcp-registry/tools?workspaceId=${workspaceId}`, {
        cookie,
      });
      expect((tools.body as { count: number }).count).toBeGreaterThan(0);
    });
    const chat = await http(`${stack.url}/ai-chat/conversations`, {
      method: 'POST',
      cookie,
      body: { workspaceId },
    });
    const chatId = (chat.body as { conversation: { id: string } }).conversation.id;
    const ask = async (content: string) => {
      const sent = await http(`${stack.url}/ai-chat/conversations/${chatId}/messages`, {
        method: 'POST',
        cookie,
        body: { content },
      });
      expect(sent.status).toBe(202);
      const { requestId } = sent.body as { requestId: string };
      return readAllEvents(`${stack.url}/brain/turns/${requestId}/events`, { cookie });
    };

    const plain = await ask('Hello?');
    const text = plain
      .filter((event) => event.event === 'delta')
      .map((event) => event.data['text'])
      .join('');
    expect(text).toMatch(/^No language model is configured\. Set LLM_BASE_URL and LLM_MODEL/);
    expect(text).toContain('/tool <name> <json arguments>');
    expect(text).toContain('echo');
    expect(plain.at(-1)?.data).toEqual({ status: 'completed' });

    const direct = await ask('/tool echo {"message":"straight to the tool"}');
    expect(direct.find((event) => event.event === 'tool_call')?.data).toMatchObject({
      name: 'echo',
      arguments: { message: 'straight to the tool' },
    });
    expect(
      direct
        .filter((event) => event.event === 'delta')
        .map((event) => event.data['text'])
        .join(''),
    ).toContain('straight to the tool');
    expect(direct.at(-1)?.data).toEqual({ status: 'completed' });
  });
});
