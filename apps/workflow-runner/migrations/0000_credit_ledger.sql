CREATE SCHEMA IF NOT EXISTS "workflow_runner";
--> statement-breakpoint
CREATE TABLE "workflow_runner"."credit_ledger" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"amount" bigint NOT NULL,
	"kind" text NOT NULL,
	"reason" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "credit_ledger_kind_check" CHECK ("workflow_runner"."credit_ledger"."kind" in ('grant', 'correction', 'charge'))
);
--> statement-breakpoint
CREATE INDEX "credit_ledger_workspace_idx" ON "workflow_runner"."credit_ledger" USING btree ("workspace_id");