CREATE TABLE "workflow_runner"."approvals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"step_index" integer NOT NULL,
	"workspace_id" uuid NOT NULL,
	"reviewer_ids" jsonb NOT NULL,
	"message" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_runner"."run_steps" (
	"run_id" uuid NOT NULL,
	"step_index" integer NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"settings" jsonb NOT NULL,
	"status" text NOT NULL,
	"input" jsonb,
	"output" jsonb,
	"error" text,
	"credits_charged" integer DEFAULT 0 NOT NULL,
	"resume_at" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"duration_ms" integer,
	CONSTRAINT "run_steps_run_id_step_index_pk" PRIMARY KEY("run_id","step_index")
);
--> statement-breakpoint
CREATE TABLE "workflow_runner"."runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workflow_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"status" text NOT NULL,
	"trigger_type" text NOT NULL,
	"event_id" uuid,
	"test_event_id" uuid,
	"key_id" uuid,
	"input" jsonb,
	"acting_user_id" uuid NOT NULL,
	"stop_on_node_failure" boolean NOT NULL,
	"credit_cost" integer NOT NULL,
	"credits_charged" integer DEFAULT 0 NOT NULL,
	"inflight_key" text,
	"error" text,
	"not_before" timestamp with time zone,
	"wake_at" timestamp with time zone,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "runs_status_check" CHECK ("workflow_runner"."runs"."status" in ('queued', 'running', 'waiting_approval', 'succeeded', 'failed', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "workflow_runner"."test_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workflow_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"webhook_id" uuid NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"body" jsonb,
	"headers" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_runner"."workflows" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"webhook_id" uuid,
	"custom_response" jsonb,
	"steps" jsonb NOT NULL,
	"running_hours" jsonb,
	"queue_outside_window" boolean NOT NULL,
	"stop_on_node_failure" boolean NOT NULL,
	"credit_cost" integer NOT NULL,
	"last_test_run_at" timestamp with time zone,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "workflows_webhook_id_unique" UNIQUE("webhook_id"),
	CONSTRAINT "workflows_status_check" CHECK ("workflow_runner"."workflows"."status" in ('draft', 'live'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "approvals_run_step_idx" ON "workflow_runner"."approvals" USING btree ("run_id","step_index");--> statement-breakpoint
CREATE INDEX "runs_workflow_idx" ON "workflow_runner"."runs" USING btree ("workflow_id","created_at");--> statement-breakpoint
CREATE INDEX "runs_due_idx" ON "workflow_runner"."runs" USING btree ("wake_at");--> statement-breakpoint
CREATE INDEX "test_events_workflow_idx" ON "workflow_runner"."test_events" USING btree ("workflow_id","received_at");--> statement-breakpoint
CREATE INDEX "workflows_workspace_idx" ON "workflow_runner"."workflows" USING btree ("workspace_id","created_at");