-- The scheduler index holds only the runs it may wake: ended runs (wake_at null) were kept in
-- it for good, so it grew with the whole run history, and each run's end wrote an entry to it.
-- Claims (wake_at <= now) can use the partial index as they used the full one.
DROP INDEX "workflow_runner"."runs_due_idx";--> statement-breakpoint
CREATE INDEX "runs_due_idx" ON "workflow_runner"."runs" USING btree ("wake_at") WHERE "workflow_runner"."runs"."wake_at" is not null;