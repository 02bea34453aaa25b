import { z } from 'zod';
import { AppError } from '@wap/contracts';
import { envBoolean, parseConfig, redactConfig } from './env';
import { toAppError } from './error-handler';
import { validate } from './validation';

describe('envBoolean', () => {
  const schema = z.object({ FLAG: envBoolean(true) });
  test.each([
    ['true', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['no', false],
    [undefined, true],
  ])('%s → %s', (value, expected) => {
    expect(schema.parse({ FLAG: value }).FLAG).toBe(expected);
  });

  test('anything else is a configuration error, not a silent true', () => {
    expect(() => parseConfig(schema, { FLAG: 'flase' })).toThrow(
      /Invalid configuration:\n {2}FLAG:/,
    );
  });
});

test('redactConfig hides the named secrets and keeps the rest', () => {
  expect(
    redactConfig({ PORT: 3000, SESSION_JWT_SECRET: 's3cret' }, ['SESSION_JWT_SECRET']),
  ).toEqual({
    PORT: 3000,
    SESSION_JWT_SECRET: '[redacted]',
  });
});

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

test.each([
  ['entity.too.large', 'PAYLOAD_TOO_LARGE', 413],
  ['entity.parse.failed', 'INVALID_JSON', 400],
  ['charset.unsupported', 'UNSUPPORTED_MEDIA_TYPE', 415],
])('body-parser %s becomes %s', (type, code, status) => {
  const parserError = Object.assign(new Error('parser'), { type });
  expect(toAppError(parserError)).toMatchObject({ code, status });
});

test('an unknown error is not mapped (it becomes a 500 without details)', () => {
  expect(toAppError(new Error('boom'))).toBeUndefined();
});
