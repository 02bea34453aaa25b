import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from './ports';

/** A real SMTP server on 127.0.0.1 that keeps every message it accepts, parsed. */
export interface SmtpReceiver {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  received: ParsedMail[];
  /** The messages sent to this address. */
  mailTo(address: string): ParsedMail[];
  /** Stops listening (a mail server that is down); `start` listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const port = await freePort();
  const received: ParsedMail[] = [];
  let server: SMTPServer | undefined;

  const start = async () => {
    const listening = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, _session, callback) {
        simpleParser(stream).then(
          (mail) => {
            received.push(mail);
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
    await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', () => resolve()));
    server = listening;
  };
  const stop = async () => {
    const closing = server;
    server = undefined;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  await start();
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    mailTo: (address) =>
      received.filter((mail) => mail.to && JSON.stringify(mail.to).includes(address)),
    stop,
    start,
  };
}
