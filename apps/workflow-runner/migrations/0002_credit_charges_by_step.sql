ALTER TABLE "workflow_runner"."credit_ledger" ADD COLUMN "run_id" uuid;--> statement-breakpoint
ALTER TABLE "workflow_runner"."credit_ledger" ADD COLUMN "step_index" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_ledger_run_step_idx" ON "workflow_runner"."credit_ledger" USING btree ("run_id","step_index");