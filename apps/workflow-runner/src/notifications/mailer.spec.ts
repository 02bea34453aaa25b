import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { testLogger } from '@wap/testing';
import { createMailer } from './mailer';

describe('the mailer without SMTP_URL', () => {
  test('writes each message as an .eml file that a mail client reads back', async () => {
    const dropDir = await mkdtemp(join(tmpdir(), 'mail-drop-'));
    try {
      const mailer = createMailer({
        smtpUrl: undefined,
        from: 'Approvals <approvals@example.com>',
        dropDir,
        logger: testLogger(),
      });
      await mailer.send({
        id: 'email-1',
        to: 'reviewer@example.com',
        subject: 'Approval needed: Payroll — sign_off',
        text: 'Approve: http://localhost:3000/approvals/1?decision=approve\n',
      });
      mailer.close();
      const mail = await simpleParser(await readFile(join(dropDir, 'email-1.eml')));
      expect(mail.subject).toBe('Approval needed: Payroll — sign_off');
      expect(mail.to && 'value' in mail.to ? mail.to.value : []).toEqual([
        { address: 'reviewer@example.com', name: '' },
      ]);
      expect(mail.text).toBe('Approve: http://localhost:3000/approvals/1?decision=approve\n');
    } finally {
      await rm(dropDir, { recursive: true, force: true });
    }
  });
});
