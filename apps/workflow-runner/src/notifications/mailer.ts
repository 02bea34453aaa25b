import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface OutgoingMail {
  /** Names the .eml file when no SMTP server is configured. */
  id: string;
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * Sends over SMTP when `smtpUrl` is set; otherwise writes each message, as the SMTP server would
 * have received it, to `<dropDir>/<id>.eml` and says so in the log once.
 */
export function createMailer(options: {
  smtpUrl: string | undefined;
  from: string;
  dropDir: string;
  logger: Logger;
}): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({
          from: options.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
        });
      },
      close: () => transport.close(),
    };
  }
  const dropDir = resolve(options.dropDir);
  options.logger.info({ dropDir }, 'no SMTP_URL: approval emails are written as .eml files');
  const transport = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'unix',
  });
  return {
    async send(mail) {
      const info = await transport.sendMail({
        from: options.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
      });
      await mkdir(dropDir, { recursive: true });
      const file = join(dropDir, `${mail.id}.eml`);
      await writeFile(file, info.message as Buffer);
      options.logger.info({ file, to: mail.to }, 'approval email written');
    },
    close: () => transport.close(),
  };
}
