import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { z } from 'zod';
import { AppError } from '@wap/contracts';
import { answerUnparsedRequest, toAppError } from './error-handler';
import { validate } from './validation';

test('validate throws VALIDATION_ERROR with one detail per issue, paths prefixed by where', () => {
  const schema = z.object({ name: z.string(), size: z.number() });
  try {
    validate(schema, { name: 1 }, 'body');
    throw new Error('validate accepted a bad body');
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.status).toBe(400);
    expect(appError.toBody()).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [
        expect.objectContaining({ path: 'body.name' }),
        expect.objectContaining({ path: 'body.size' }),
      ],
    });
  }
});

test('a path escape Express cannot decode is a 400, not a 500', () => {
  const routerError = Object.assign(new URIError("Failed to decode param '%zz'"), { status: 400 });
  expect(toAppError(routerError)).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
});

test('another client error Express raises with a status keeps it', () => {
  const clientError = Object.assign(new Error('Bad Request'), { status: 400, expose: true });
  expect(toAppError(clientError)).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
});

test('an unknown error is not mapped (it becomes a 500 without details)', () => {
  expect(toAppError(new Error('boom'))).toBeUndefined();
});

describe('answerUnparsedRequest', () => {
  /** What a server answers, byte for byte, to a request written straight onto a socket. */
  async function rawAnswer(request: string): Promise<string> {
    const server = createServer((_req, res) => res.end('served'));
    server.on('clientError', answerUnparsedRequest);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      socket.end(request);
      let answer = '';
      for await (const chunk of socket) answer += String(chunk);
      return answer;
    } finally {
      server.close();
    }
  }

  test('headers past the limit are a 431 with an Error body, not a bare status line', async () => {
    const answer = await rawAnswer(
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'o'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(answer.split('\r\n\r\n')[1]).toBe(
      JSON.stringify({ error: 'Request headers are too large', code: 'HEADERS_TOO_LARGE' }),
    );
  });

  test('a request that is not HTTP is a 400 with an Error body', async () => {
    const answer = await rawAnswer('NOT HTTP AT ALL\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.split('\r\n\r\n')[1]).toBe(
      JSON.stringify({ error: 'The request is not valid HTTP', code: 'BAD_REQUEST' }),
    );
  });
});
