import { and, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { TestEvent } from '@wap/contracts';
import type { SqlDatabase } from '@wap/platform';
import { uuidArray, type SqlExecutor } from '../db/sql-executor';
import { testEvents } from '../db/schema';

export type TestEventRow = typeof testEvents.$inferSelect;

export interface NewTestEvent {
  id: string;
  workflowId: string;
  workspaceId: string;
  webhookId: string;
  receivedAt: Date;
  body: unknown;
  headers: Record<string, string>;
}

/** Built once: zod compiles a schema's parser on its first use. */
const StoredHeaders = z.record(z.string(), z.string());

export function toTestEvent(row: TestEventRow): z.infer<typeof TestEvent> {
  return {
    id: row.id,
    received_at: row.receivedAt.toISOString(),
    body: row.body,
    headers: StoredHeaders.parse(row.headers),
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
    /** Stores events once each (an event's id is its eventId), in one statement. */
    async insertMany(events: readonly NewTestEvent[], executor: SqlExecutor = db): Promise<void> {
      if (events.length === 0) return;
      const rows = events.map((event) => ({
        id: event.id,
        workflow_id: event.workflowId,
        workspace_id: event.workspaceId,
        webhook_id: event.webhookId,
        received_at: event.receivedAt.toISOString(),
        body: event.body ?? null,
        headers: event.headers,
      }));
      await executor.execute(sql`
        insert into workflow_runner.test_events (id, workflow_id, workspace_id, webhook_id,
          received_at, body, headers)
        select id, workflow_id, workspace_id, webhook_id, received_at, body, headers
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, workflow_id uuid,
          workspace_id uuid, webhook_id uuid, received_at timestamptz, body jsonb, headers jsonb)
        on conflict (id) do nothing`);
    },

    /**
     * Deletes the events of these workflows beyond the newest `cap` of each: for each workflow,
     * the cap-th newest event is found by index, and every older one goes.
     */
    async prune(workflowIds: readonly string[]): Promise<void> {
      if (workflowIds.length === 0) return;
      await db.execute(sql`
        delete from workflow_runner.test_events as t
        using (
          select w.workflow_id, oldest_kept.received_at, oldest_kept.id
          from unnest(${uuidArray(workflowIds)}) as w(workflow_id)
          cross join lateral (
            select received_at, id from workflow_runner.test_events
            where workflow_id = w.workflow_id
            order by received_at desc, id desc
            offset ${capPerWorkflow - 1} limit 1
          ) as oldest_kept
        ) as boundary
        where t.workflow_id = boundary.workflow_id
          and (t.received_at, t.id) < (boundary.received_at, boundary.id)`);
    },
    /** The newest `cap`: events beyond it wait for the next prune, and never show. */
    list: (workflowId: string) => newestFirst(workflowId).limit(capPerWorkflow),
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
