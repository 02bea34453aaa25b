import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, ERROR_CODES } from './errors';

describe('error registry', () => {
  const documented = readFileSync(join(__dirname, '../../../docs/errors.md'), 'utf8');

  const rows = new Map(
    [...documented.matchAll(/^\| ([A-Z_]+) +\| (\d{3}) +\| (.+?) +\|/gm)].map(
      ([, code, status, meaning]) => [code, { status: Number(status), summary: meaning }],
    ),
  );

  test.each(Object.entries(ERROR_CODES))(
    '%s is listed in docs/errors.md with its status and meaning',
    (code, { status, summary }) => {
      expect(rows.get(code)).toEqual({ status, summary });
    },
  );

  test('docs/errors.md lists no code the registry lacks', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  test('an AppError carries the status of its code and hides the code when asked', () => {
    expect(new AppError('FORBIDDEN', 'no').toBody()).toEqual({ error: 'no', code: 'FORBIDDEN' });
    const hidden = new AppError('NOT_FOUND', 'Webhook not found', { exposeCode: false });
    expect(hidden.status).toBe(404);
    expect(hidden.toBody()).toEqual({ error: 'Webhook not found' });
  });
});
