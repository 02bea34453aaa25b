import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  placedSteps,
  WorkflowDefinition,
  type Step,
  VERSIONS_PAGE,
  type WorkflowVersion,
  type WorkflowVersionSummary,
} from '@wap/contracts';
import type { SqlDatabase } from '@wap/platform';
import type { SqlExecutor } from '../db/sql-executor';
import { workflowVersions } from '../db/schema';
import type { WorkflowRow } from './repository';

/**
 * Workflow versions (decision 163): each save that changes what the workflow does writes its
 * definition as the next version, never changed after. The workflow row holds the newest one's
 * values (what the editor shows and Run runs); live traffic runs `liveVersion`.
 */

export type WorkflowVersionRow = typeof workflowVersions.$inferSelect;

/** What the version of a workflow row holds. */
export function definitionOf(row: WorkflowRow): WorkflowDefinition {
  return WorkflowDefinition.parse({
    name: row.name,
    hasTrigger: row.webhookId !== null,
    customResponse: row.customResponse ?? null,
    providerEvents: row.providerEvents ?? null,
    steps: row.steps,
    runningHours: row.runningHours ?? null,
    queueOutsideWindow: row.queueOutsideWindow,
    stopOnNodeFailure: row.stopOnNodeFailure,
  });
}

const stepLabel = (step: { name: string }, index: number) => `step ${index + 1} "${step.name}"`;

/** A step without the steps it holds: what changes in it alone. */
function ownPart(step: Step): Omit<Step, 'then' | 'else' | 'cases' | 'default' | 'steps'> & {
  conditions?: string[];
} {
  const { then: _then, else: _else, cases, default: _default, steps: _steps, ...own } = step;
  return cases ? { ...own, conditions: cases.map((found) => found.when) } : own;
}

/** What differs between two definitions, as a person reads it; empty when nothing does. */
export function changesBetween(before: WorkflowDefinition, after: WorkflowDefinition): string[] {
  const changes: string[] = [];
  if (before.name !== after.name) changes.push(`renamed to "${after.name}"`);
  if (before.hasTrigger !== after.hasTrigger) {
    changes.push(after.hasTrigger ? 'trigger added' : 'trigger removed');
  }
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(before.customResponse, after.customResponse)) changes.push('custom response changed');
  if (!same(before.providerEvents, after.providerEvents)) changes.push('provider events changed');
  // Steps are followed by name through the whole tree: a step of a branch or a loop that
  // changed is named, not the control step it is in.
  const placed = (steps: readonly Step[]) =>
    placedSteps(steps).map(({ step, path }) => ({ step, at: path.join('.'), own: ownPart(step) }));
  const earlier = new Map(placed(before.steps).map((entry) => [entry.step.name, entry]));
  const laterSteps = placed(after.steps);
  const later = new Set(laterSteps.map((entry) => entry.step.name));
  for (const [position, entry] of laterSteps.entries()) {
    const was = earlier.get(entry.step.name);
    const label = stepLabel(entry.step, position);
    if (!was) changes.push(`${label} added`);
    else if (!same(was.own, entry.own)) changes.push(`${label} changed`);
    else if (was.at !== entry.at) changes.push(`${label} moved`);
  }
  for (const [position, entry] of placed(before.steps).entries()) {
    if (!later.has(entry.step.name)) changes.push(`${stepLabel(entry.step, position)} removed`);
  }
  if (!same(before.runningHours, after.runningHours)) changes.push('running hours changed');
  if (before.queueOutsideWindow !== after.queueOutsideWindow) {
    changes.push('what happens outside the running hours changed');
  }
  if (before.stopOnNodeFailure !== after.stopOnNodeFailure) {
    changes.push(
      after.stopOnNodeFailure
        ? 'a failed step stops the run'
        : 'a failed step no longer stops the run',
    );
  }
  return changes;
}

/** Every path at which two JSON values differ, each side's value beside it. */
export function differences(
  before: unknown,
  after: unknown,
  path = '',
): { path: string; before: unknown; after: unknown }[] {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object';
  if (isObject(before) && isObject(after) && Array.isArray(before) === Array.isArray(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) =>
      differences(before[key], after[key], path === '' ? key : `${path}.${key}`),
    );
  }
  return JSON.stringify(before) === JSON.stringify(after)
    ? []
    : [{ path, before: before ?? null, after: after ?? null }];
}

/** The row as live traffic runs it: the published version's definition in place of the newest. */
export function withDefinition(
  row: WorkflowRow,
  version: Pick<WorkflowVersionRow, 'definition' | 'creditCost'>,
): WorkflowRow {
  const definition = WorkflowDefinition.parse(version.definition);
  // `version` becomes the one run: a run records what it ran.
  return {
    ...row,
    name: definition.name,
    customResponse: definition.customResponse,
    providerEvents: definition.providerEvents,
    steps: definition.steps,
    runningHours: definition.runningHours,
    queueOutsideWindow: definition.queueOutsideWindow,
    stopOnNodeFailure: definition.stopOnNodeFailure,
    creditCost: version.creditCost,
    version: row.liveVersion ?? row.version,
  };
}

/** Whether live traffic runs another version than the newest. */
export const hasUnpublishedVersion = (row: WorkflowRow) =>
  row.status === 'live' && row.liveVersion !== null && row.liveVersion !== row.version;

const PublishedVersionRows = z.object({
  rows: z.array(
    z.object({
      workflow_id: z.string(),
      definition: z.unknown(),
      credit_cost: z.number().int(),
    }),
  ),
});

/**
 * The rows as live traffic runs them: those whose published version is not their newest take
 * its definition (one read for all of them); the others are as they are.
 */
export async function asPublished(
  executor: SqlExecutor,
  rows: readonly WorkflowRow[],
): Promise<Map<string, WorkflowRow>> {
  const wanted = [
    ...new Map(rows.filter(hasUnpublishedVersion).map((row) => [row.id, row])).values(),
  ];
  const published = new Map(rows.map((row) => [row.id, row]));
  if (wanted.length === 0) return published;
  const keys = wanted.map((row) => ({ workflow_id: row.id, number: row.liveVersion }));
  const found = PublishedVersionRows.parse(
    await executor.execute(sql`
      select v.workflow_id, v.definition, v.credit_cost
      from workflow_runner.workflow_versions v
      join jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as k(workflow_id uuid, number integer)
        on v.workflow_id = k.workflow_id and v.number = k.number`),
  );
  for (const version of found.rows) {
    const row = published.get(version.workflow_id);
    if (!row) continue;
    published.set(
      row.id,
      withDefinition(row, { definition: version.definition, creditCost: version.credit_cost }),
    );
  }
  return published;
}

export function toVersionSummary(
  row: WorkflowVersionRow,
  liveVersion: number | null,
): WorkflowVersionSummary {
  return {
    number: row.number,
    author_id: row.authorId,
    created_at: row.createdAt.toISOString(),
    changes: (row.changes as string[]) ?? [],
    restored_from: row.restoredFrom,
    live: row.number === liveVersion,
  };
}

export function toVersion(row: WorkflowVersionRow, liveVersion: number | null): WorkflowVersion {
  return {
    ...toVersionSummary(row, liveVersion),
    credit_cost: row.creditCost,
    definition: WorkflowDefinition.parse(row.definition),
  };
}

export function createVersionRepository(db: SqlDatabase) {
  return {
    async find(workflowId: string, number: number): Promise<WorkflowVersionRow | undefined> {
      const [row] = await db
        .select()
        .from(workflowVersions)
        .where(
          and(eq(workflowVersions.workflowId, workflowId), eq(workflowVersions.number, number)),
        );
      return row;
    },
    /** Newest first, a page of them, older than `before` when given. */
    async list(workflowId: string, before?: number): Promise<WorkflowVersionRow[]> {
      return db
        .select()
        .from(workflowVersions)
        .where(
          and(
            eq(workflowVersions.workflowId, workflowId),
            before === undefined ? sql`true` : lt(workflowVersions.number, before),
          ),
        )
        .orderBy(desc(workflowVersions.number))
        .limit(VERSIONS_PAGE + 1);
    },
  };
}

export type VersionRepository = ReturnType<typeof createVersionRepository>;
