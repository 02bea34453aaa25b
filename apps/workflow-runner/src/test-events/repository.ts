import { and, desc, eq, notInArray } from 'drizzle-orm';
import { z } from 'zod';
import type { TestEvent } from '@wap/contracts';
import type { SqlDatabase } from '@wap/platform';
import { testEvents } from '../db/schema';

export type TestEventRow = typeof testEvents.$inferSelect;

export function toTestEvent(row: TestEventRow): z.infer<typeof TestEvent> {
  return {
    id: row.id,
    received_at: row.receivedAt.toISOString(),
    body: row.body,
    headers: z.record(z.string(), z.string()).parse(row.headers),
  };
}

/** Test events: every webhook request a workflow received, the newest `cap` kept per workflow. */
export function createTestEventRepository(deps: { db: SqlDatabase; capPerWorkflow: number }) {
  const { db, capPerWorkflow } = deps;

  function newestFirst(workflowId: string) {
    return db
      .select()
      .from(testEvents)
      .where(eq(testEvents.workflowId, workflowId))
      .orderBy(desc(testEvents.receivedAt), desc(testEvents.id));
  }

  return {
    /** Stores the event once (its id is the eventId) and prunes the workflow's older events. */
    async add(event: {
      id: string;
      workflowId: string;
      workspaceId: string;
      webhookId: string;
      receivedAt: Date;
      body: unknown;
      headers: Record<string, string>;
    }): Promise<void> {
      await db.transaction(async (tx) => {
        await tx
          .insert(testEvents)
          .values({ ...event, body: event.body ?? null })
          .onConflictDoNothing({ target: testEvents.id });
        const kept = tx
          .select({ id: testEvents.id })
          .from(testEvents)
          .where(eq(testEvents.workflowId, event.workflowId))
          .orderBy(desc(testEvents.receivedAt), desc(testEvents.id))
          .limit(capPerWorkflow);
        await tx
          .delete(testEvents)
          .where(and(eq(testEvents.workflowId, event.workflowId), notInArray(testEvents.id, kept)));
      });
    },
    list: (workflowId: string) => newestFirst(workflowId),
    async latest(workflowId: string): Promise<TestEventRow | undefined> {
      const [row] = await newestFirst(workflowId).limit(1);
      return row;
    },
    async find(workflowId: string, eventId: string): Promise<TestEventRow | undefined> {
      const [row] = await db
        .select()
        .from(testEvents)
        .where(and(eq(testEvents.workflowId, workflowId), eq(testEvents.id, eventId)));
      return row;
    },
  };
}

export type TestEventRepository = ReturnType<typeof createTestEventRepository>;
