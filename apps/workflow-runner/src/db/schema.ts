import { sql } from 'drizzle-orm';
import { bigint, check, index, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** The runner's own PostgreSQL schema; no other service reads it. */
export const workflowRunnerSchema = pgSchema('workflow_runner');

/**
 * The credit ledger: one row per grant, correction or charge; a workspace's balance is the sum
 * of its rows. Rows are never updated, so the history explains every balance.
 */
export const creditLedger = workflowRunnerSchema.table(
  'credit_ledger',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    kind: text('kind').notNull(),
    reason: text('reason').notNull(),
    createdBy: uuid('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    index('credit_ledger_workspace_idx').on(table.workspaceId),
    check('credit_ledger_kind_check', sql`${table.kind} in ('grant', 'correction', 'charge')`),
  ],
);
