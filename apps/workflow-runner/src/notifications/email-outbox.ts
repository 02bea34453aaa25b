import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock, SqlDatabase } from '@wap/platform';
import type { approvalEmails, failureAlertEmails } from '../db/schema';
import type { Mailer } from './mailer';

/** Emails sent per pass. */
const BATCH = 50;
/** How long a sender holds an email it is sending before another may try it, in ms. */
const SEND_LEASE_MS = 60_000;
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

/** A table of emails to send: the columns the sender reads and writes are the same in each. */
type EmailOutbox = typeof approvalEmails | typeof failureAlertEmails;

export interface EmailSendDeps {
  db: SqlDatabase;
  clock: Clock;
  mailer: Mailer;
  logger: Logger;
  retryBaseMs: number;
  maxAttempts: number;
}

/**
 * Sends what is due in `outbox`, retrying with a doubling delay and recording a failure after
 * `maxAttempts`. A mail server that is down touches nothing but the outbox.
 */
export async function sendDueEmails(
  deps: EmailSendDeps,
  outbox: EmailOutbox,
  kind: string,
): Promise<void> {
  const { db, clock } = deps;
  const now = clock.now();
  // Taking a batch moves its next attempt on by the lease: a replica that dies mid-send
  // leaves it to be tried again after that, and two replicas never send one email at once.
  const taken = await db
    .update(outbox)
    .set({ nextAttemptAt: new Date(now.getTime() + SEND_LEASE_MS) })
    .where(
      inArray(
        outbox.id,
        db
          .select({ id: outbox.id })
          .from(outbox)
          .where(
            and(
              eq(outbox.status, 'pending'),
              sql`${outbox.nextAttemptAt} <= ${now.toISOString()}::timestamptz`,
            ),
          )
          .orderBy(asc(outbox.nextAttemptAt))
          .limit(BATCH)
          .for('update', { skipLocked: true }),
      ),
    )
    .returning({
      id: outbox.id,
      toAddress: outbox.toAddress,
      subject: outbox.subject,
      body: outbox.body,
      attempts: outbox.attempts,
    });
  for (const email of taken) {
    const attempts = email.attempts + 1;
    try {
      await deps.mailer.send({
        id: email.id,
        to: email.toAddress,
        subject: email.subject,
        text: email.body,
      });
      await db
        .update(outbox)
        .set({ status: 'sent', attempts, sentAt: clock.now(), lastError: null })
        .where(eq(outbox.id, email.id));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const failed = attempts >= deps.maxAttempts;
      const delay = Math.min(MAX_RETRY_DELAY_MS, deps.retryBaseMs * 2 ** (attempts - 1));
      await db
        .update(outbox)
        .set({
          status: failed ? 'failed' : 'pending',
          attempts,
          lastError: reason,
          nextAttemptAt: new Date(clock.now().getTime() + delay),
        })
        .where(eq(outbox.id, email.id));
      deps.logger.warn(
        { emailId: email.id, kind, attempts, failed, reason },
        failed ? 'email failed for good' : 'email failed; retrying',
      );
    }
  }
}
