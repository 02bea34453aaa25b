CREATE TABLE "workflow_runner"."schedule_fires" (
	"workflow_id" uuid NOT NULL,
	"fire_at" timestamp with time zone NOT NULL,
	"outcome" text NOT NULL,
	"run_id" uuid,
	"detail" text,
	"missed_before" integer DEFAULT 0 NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	CONSTRAINT "schedule_fires_workflow_id_fire_at_pk" PRIMARY KEY("workflow_id","fire_at")
);
--> statement-breakpoint
CREATE TABLE "workflow_runner"."workflow_schedules" (
	"workflow_id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"is_enabled" boolean NOT NULL,
	"timezone" text NOT NULL,
	"schedule_type" text NOT NULL,
	"cron_expression" text,
	"interval_minutes" integer,
	"max_runs_per_day" integer,
	"anchor_at" timestamp with time zone NOT NULL,
	"next_fire_at" timestamp with time zone,
	"runs_day" text,
	"runs_on_day" integer DEFAULT 0 NOT NULL,
	"last_run_id" uuid,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "workflow_schedules_type_check" CHECK ("workflow_runner"."workflow_schedules"."schedule_type" in ('cron', 'interval'))
);
--> statement-breakpoint
CREATE INDEX "workflow_schedules_due_idx" ON "workflow_runner"."workflow_schedules" USING btree ("next_fire_at") WHERE "workflow_runner"."workflow_schedules"."is_enabled" and "workflow_runner"."workflow_schedules"."next_fire_at" is not null;