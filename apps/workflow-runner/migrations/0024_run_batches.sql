CREATE TABLE "workflow_runner"."run_batch_items" (
	"batch_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"source_id" uuid NOT NULL,
	"status" text NOT NULL,
	"run_id" uuid,
	"error" text,
	CONSTRAINT "run_batch_items_batch_id_position_pk" PRIMARY KEY("batch_id","position")
);
--> statement-breakpoint
CREATE TABLE "workflow_runner"."run_batches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workflow_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"source" text NOT NULL,
	"filter" jsonb NOT NULL,
	"retry_from" text,
	"status" text NOT NULL,
	"error" text,
	"total" integer NOT NULL,
	"more_matched" boolean NOT NULL,
	"requested_by" uuid NOT NULL,
	"request_key" text,
	"created_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	CONSTRAINT "run_batches_kind_check" CHECK ("workflow_runner"."run_batches"."kind" in ('replay', 'cancel'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "run_batch_items_source_idx" ON "workflow_runner"."run_batch_items" USING btree ("batch_id","source_id");--> statement-breakpoint
CREATE INDEX "run_batches_workflow_idx" ON "workflow_runner"."run_batches" USING btree ("workflow_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "run_batches_request_key_idx" ON "workflow_runner"."run_batches" USING btree ("workflow_id","request_key") WHERE "workflow_runner"."run_batches"."request_key" is not null;--> statement-breakpoint
CREATE INDEX "run_batches_running_idx" ON "workflow_runner"."run_batches" USING btree ("created_at") WHERE "workflow_runner"."run_batches"."status" = 'running';