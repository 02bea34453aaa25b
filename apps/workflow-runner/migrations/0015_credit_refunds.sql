ALTER TABLE "workflow_runner"."credit_ledger" DROP CONSTRAINT "credit_ledger_kind_check";--> statement-breakpoint
DROP INDEX "workflow_runner"."credit_ledger_run_step_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "credit_ledger_run_step_kind_idx" ON "workflow_runner"."credit_ledger" USING btree ("run_id","step_index","kind");--> statement-breakpoint
ALTER TABLE "workflow_runner"."credit_ledger" ADD CONSTRAINT "credit_ledger_kind_check" CHECK ("workflow_runner"."credit_ledger"."kind" in ('grant', 'correction', 'charge', 'refund'));