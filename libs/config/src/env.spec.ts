import { z } from 'zod';
import { envBoolean, parseConfig, redactConfig } from './env';

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
