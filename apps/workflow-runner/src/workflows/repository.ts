import { and, desc, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import {
  CustomResponse,
  FailureAlerts,
  ProviderEventsTrigger,
  RunningHours,
  placedSteps,
  Step,
  type StepInput,
  type Workflow,
  WorkflowDefinition,
} from '@wap/contracts';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { workflows, workflowVersions } from '../db/schema';
import { creditCostOf } from './step-catalog';
import { asPublished, changesBetween, definitionOf } from './versions';

export type WorkflowRow = typeof workflows.$inferSelect;

/**
 * Gives every step its name: the one sent, else `step_<n>` (its place in the whole workflow,
 * written order, 1-based), unique within the workflow, branches' and loops' steps included.
 */
export function namedSteps(steps: readonly StepInput[]): Step[] {
  const placed = placedSteps(steps);
  const taken = new Set(placed.map(({ step }) => step.name).filter((name) => name !== undefined));
  const names = new Map<StepInput, string>();
  placed.forEach(({ step }, position) => {
    let name = step.name;
    if (name === undefined) {
      let n = position + 1;
      while (taken.has(`step_${n}`)) n += 1;
      name = `step_${n}`;
      taken.add(name);
    }
    names.set(step, name);
  });
  const named = (list: readonly StepInput[]): Step[] =>
    list.map((step) => {
      const { retry, timeoutMs, onFailure } = step;
      return {
        type: step.type,
        name: names.get(step) ?? '',
        settings: step.settings,
        ...(retry ? { retry } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(onFailure ? { onFailure } : {}),
        ...(step.type === 'if' ? { then: named(step.then), else: named(step.else) } : {}),
        ...(step.type === 'switch'
          ? {
              cases: step.cases.map((found) => ({ when: found.when, steps: named(found.steps) })),
              default: named(step.default),
            }
          : {}),
        ...(step.type === 'for_each' ? { steps: named(step.steps) } : {}),
      };
    });
  return named(steps);
}

// Built once: zod compiles a schema's parser on its first use.
const StoredSteps = z.array(Step);
const StoredCustomResponse = CustomResponse.nullable();
const StoredProviderEvents = ProviderEventsTrigger.nullable();
const StoredRunningHours = RunningHours.nullable();
const StoredFailureAlerts = FailureAlerts.nullable();

/** Reads the stored JSON columns back through their schemas: the database is not trusted blindly. */
export function toWorkflow(row: WorkflowRow): Workflow {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    status: row.status === 'live' ? 'live' : 'draft',
    trigger: row.webhookId
      ? {
          type: 'custom_webhook',
          webhook_id: row.webhookId,
          customResponse: StoredCustomResponse.parse(row.customResponse),
          providerEvents: StoredProviderEvents.parse(row.providerEvents ?? null),
        }
      : null,
    steps: StoredSteps.parse(row.steps),
    settings: {
      runningHours: StoredRunningHours.parse(row.runningHours),
      queueOutsideWindow: row.queueOutsideWindow,
      stopOnNodeFailure: row.stopOnNodeFailure,
      failureAlerts: StoredFailureAlerts.parse(row.failureAlerts ?? null),
    },
    credit_cost: row.creditCost,
    last_test_run_at: row.lastTestRunAt?.toISOString() ?? null,
    created_by: row.createdBy,
    owner_id: row.ownerId,
    runs_as: row.runsAs,
    version: row.version,
    live_version: row.liveVersion,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export interface NewWorkflow {
  /** Given when other workflows made with it refer to it (an import); new otherwise. */
  id?: string;
  workspaceId: string;
  name: string;
  hasTrigger: boolean;
  customResponse: CustomResponse | null;
  providerEvents: ProviderEventsTrigger | null;
  steps: Step[];
  runningHours: RunningHours | null;
  queueOutsideWindow: boolean;
  stopOnNodeFailure: boolean;
  failureAlerts: FailureAlerts | null;
  createdBy: string;
}

export interface WorkflowChanges {
  name?: string;
  /**
   * undefined: unchanged; null: removed; an object: kept (same address) or added (new address).
   * Its `providerEvents` undefined keeps the ones the workflow has.
   */
  trigger?: {
    customResponse: CustomResponse | null;
    providerEvents?: ProviderEventsTrigger | null;
  } | null;
  steps?: Step[];
  runningHours?: RunningHours | null;
  queueOutsideWindow?: boolean;
  stopOnNodeFailure?: boolean;
  failureAlerts?: FailureAlerts | null;
  /** Whose access runs use from now on: set by a save of trigger or steps (decision 147). */
  runsAs?: string;
  /** Who saves: the author of the version the save makes, if it makes one. */
  savedBy: string;
}

/** What writes a workflow and its version: the database or one of its transactions. */
type VersionWriter = Pick<SqlDatabase, 'insert' | 'update'>;

function alertsOn(row: WorkflowRow): boolean {
  return StoredFailureAlerts.parse(row.failureAlerts ?? null)?.enabled === true;
}

/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createWorkflowRepository(deps: { db: SqlDatabase; clock: Clock; ids: IdSource }) {
  const { db, clock, ids } = deps;

  async function find(workflowId: string): Promise<WorkflowRow | undefined> {
    const [row] = await db
      .select()
      .from(workflows)
      .where(and(eq(workflows.id, workflowId), isNull(workflows.deletedAt)));
    return row;
  }

  /** Deleted ones included: the webhook publisher must see a deletion to remove the address. */
  async function findAny(workflowId: string): Promise<WorkflowRow | undefined> {
    const [row] = await db.select().from(workflows).where(eq(workflows.id, workflowId));
    return row;
  }

  /** Several workflows by id in one read, deleted ones included. */
  async function findManyAny(workflowIds: readonly string[]): Promise<Map<string, WorkflowRow>> {
    if (workflowIds.length === 0) return new Map();
    const rows = await db
      .select()
      .from(workflows)
      .where(inArray(workflows.id, [...workflowIds]));
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** Writes the row's definition as its version `row.version`, by `authorId`. */
  async function recordVersion(
    writer: VersionWriter,
    row: WorkflowRow,
    authorId: string,
    history: { changes: string[]; restoredFrom?: number },
  ): Promise<void> {
    await writer.insert(workflowVersions).values({
      workflowId: row.id,
      number: row.version,
      workspaceId: row.workspaceId,
      definition: definitionOf(row),
      creditCost: row.creditCost,
      authorId,
      changes: history.changes,
      restoredFrom: history.restoredFrom ?? null,
      createdAt: row.updatedAt,
    });
  }

  async function create(input: NewWorkflow): Promise<WorkflowRow> {
    return (await createMany([input], ['created']))[0] as WorkflowRow;
  }

  /** Several workflows, each with its version 1, in one transaction: all are made or none. */
  async function createMany(
    inputs: readonly NewWorkflow[],
    changes: string[],
  ): Promise<WorkflowRow[]> {
    return db.transaction(async (tx) => {
      const rows: WorkflowRow[] = [];
      for (const input of inputs) {
        const row = await insertWorkflow(tx, input);
        await recordVersion(tx, row, input.createdBy, { changes });
        rows.push(row);
      }
      return rows;
    });
  }

  async function insertWorkflow(writer: VersionWriter, input: NewWorkflow): Promise<WorkflowRow> {
    const now = clock.now();
    const [row] = await writer
      .insert(workflows)
      .values({
        id: input.id ?? ids.uuid(),
        workspaceId: input.workspaceId,
        name: input.name,
        status: 'draft',
        webhookId: input.hasTrigger ? ids.uuid() : null,
        customResponse: input.customResponse,
        providerEvents: input.hasTrigger ? input.providerEvents : null,
        steps: input.steps,
        runningHours: input.runningHours,
        queueOutsideWindow: input.queueOutsideWindow,
        stopOnNodeFailure: input.stopOnNodeFailure,
        failureAlerts: input.failureAlerts,
        // Alerts tell of failures from when they are turned on, not of the history before.
        alertedThrough: input.failureAlerts?.enabled ? now : null,
        creditCost: creditCostOf(input.steps),
        createdBy: input.createdBy,
        ownerId: input.createdBy,
        runsAs: input.createdBy,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error('insert returned no workflow');
    return row;
  }

  async function update(current: WorkflowRow, changes: WorkflowChanges): Promise<WorkflowRow> {
    const values: PgUpdateSetSource<typeof workflows> = { updatedAt: clock.now() };
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.trigger === null) {
      values.webhookId = null;
      values.customResponse = null;
      values.providerEvents = null;
      // Without a trigger nothing can start it from outside: it cannot stay live.
      values.status = 'draft';
    } else if (changes.trigger !== undefined) {
      values.webhookId = current.webhookId ?? ids.uuid();
      values.customResponse = changes.trigger.customResponse;
      if (changes.trigger.providerEvents !== undefined) {
        values.providerEvents = changes.trigger.providerEvents;
      }
    }
    if (changes.steps !== undefined) {
      values.steps = changes.steps;
      values.creditCost = creditCostOf(changes.steps);
    }
    if (changes.runningHours !== undefined) values.runningHours = changes.runningHours;
    if (changes.queueOutsideWindow !== undefined) {
      values.queueOutsideWindow = changes.queueOutsideWindow;
    }
    if (changes.stopOnNodeFailure !== undefined) {
      values.stopOnNodeFailure = changes.stopOnNodeFailure;
    }
    if (changes.failureAlerts !== undefined) {
      values.failureAlerts = changes.failureAlerts;
      if (changes.failureAlerts?.enabled && !alertsOn(current))
        values.alertedThrough = values.updatedAt;
    }
    if (changes.runsAs !== undefined) values.runsAs = changes.runsAs;
    return saveVersioned(current, values, changes.savedBy);
  }

  /**
   * Writes the changes; when they change what the workflow does, as its next version, in the
   * same transaction (the row's `version` moves under its row lock, so two saves never take one
   * number).
   */
  async function saveVersioned(
    current: WorkflowRow,
    values: PgUpdateSetSource<typeof workflows>,
    savedBy: string,
    restoredFrom?: number,
  ): Promise<WorkflowRow> {
    return db.transaction(async (tx) => {
      const updated = await set(current.id, values, tx);
      const changes = changesBetween(definitionOf(current), definitionOf(updated));
      if (changes.length === 0 && restoredFrom === undefined) return updated;
      const versioned = await set(current.id, { version: sql`${workflows.version} + 1` }, tx);
      await recordVersion(tx, versioned, savedBy, {
        changes:
          restoredFrom === undefined ? changes : [`restored version ${restoredFrom}`, ...changes],
        restoredFrom,
      });
      return versioned;
    });
  }

  /** The definition of an earlier version as the newest again (a new version), by `userId`. */
  async function restore(
    current: WorkflowRow,
    version: { number: number; definition: unknown },
    userId: string,
  ): Promise<WorkflowRow> {
    const definition = WorkflowDefinition.parse(version.definition);
    return saveVersioned(
      current,
      {
        updatedAt: clock.now(),
        name: definition.name,
        webhookId: definition.hasTrigger ? (current.webhookId ?? ids.uuid()) : null,
        customResponse: definition.customResponse,
        providerEvents: definition.hasTrigger ? definition.providerEvents : null,
        steps: definition.steps,
        creditCost: creditCostOf(definition.steps),
        runningHours: definition.runningHours,
        queueOutsideWindow: definition.queueOutsideWindow,
        stopOnNodeFailure: definition.stopOnNodeFailure,
        // Whoever restores what it does answers for it, as with a save (decision 147).
        runsAs: userId,
        ...(definition.hasTrigger ? {} : { status: 'draft' }),
      },
      userId,
      version.number,
    );
  }

  async function set(
    workflowId: string,
    values: PgUpdateSetSource<typeof workflows>,
    writer: Pick<SqlDatabase, 'update'> = db,
  ): Promise<WorkflowRow> {
    const [row] = await writer
      .update(workflows)
      .set(values)
      .where(and(eq(workflows.id, workflowId), isNull(workflows.deletedAt)))
      .returning();
    if (!row) throw new Error(`workflow ${workflowId} vanished while being updated`);
    return row;
  }

  return {
    find,
    findAny,
    findManyAny,
    create,
    createMany,
    update,
    restore,
    /** The row as live traffic runs it: its published version's definition (decision 163). */
    published: async (row: WorkflowRow): Promise<WorkflowRow> =>
      (await asPublished(db, [row])).get(row.id) ?? row,
    /** Live publishes the newest version: live traffic runs it from now on. */
    setStatus: (workflowId: string, status: 'draft' | 'live') =>
      set(workflowId, {
        status,
        updatedAt: clock.now(),
        ...(status === 'live' ? { liveVersion: sql`${workflows.version}` } : {}),
      }),
    markTestRun: (workflowId: string) => set(workflowId, { lastTestRunAt: clock.now() }),
    setRunsAs: (workflowId: string, userId: string) =>
      set(workflowId, { runsAs: userId, updatedAt: clock.now() }),
    setOwner: (workflowId: string, userId: string) =>
      set(workflowId, { ownerId: userId, updatedAt: clock.now() }),
    async softDelete(workflowId: string): Promise<void> {
      await db
        .update(workflows)
        .set({ deletedAt: clock.now(), status: 'draft' })
        .where(eq(workflows.id, workflowId));
    },
    async listByWorkspace(workspaceId: string): Promise<WorkflowRow[]> {
      return db
        .select()
        .from(workflows)
        .where(and(eq(workflows.workspaceId, workspaceId), isNull(workflows.deletedAt)))
        .orderBy(desc(workflows.createdAt), desc(workflows.id));
    },
    /** Every workflow with a trigger, for republishing the addresses at start. */
    async listWithTrigger(): Promise<WorkflowRow[]> {
      const rows = await db.select().from(workflows).where(isNull(workflows.deletedAt));
      return rows.filter((row) => row.webhookId !== null);
    },
    /**
     * The workspace's workflows with an address and provider events of `provider`: the ones a
     * delivery from its connected account may start (draft ones keep it as a test event).
     */
    async listWithProviderEvents(workspaceId: string, provider: string): Promise<WorkflowRow[]> {
      return db
        .select()
        .from(workflows)
        .where(
          and(
            eq(workflows.workspaceId, workspaceId),
            isNull(workflows.deletedAt),
            isNotNull(workflows.webhookId),
            sql`${workflows.providerEvents}->>'provider' = ${provider}`,
          ),
        );
    },
    /** The workflow that owns a webhook address, deleted ones included. */
    async findByWebhook(webhookId: string): Promise<WorkflowRow | undefined> {
      const [row] = await db.select().from(workflows).where(eq(workflows.webhookId, webhookId));
      return row;
    },
  };
}

export type WorkflowRepository = ReturnType<typeof createWorkflowRepository>;
