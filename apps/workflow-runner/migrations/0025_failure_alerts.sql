CREATE TABLE "workflow_runner"."failure_alert_emails" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workflow_id" uuid NOT NULL,
	"alerted_through" timestamp with time zone NOT NULL,
	"user_id" uuid NOT NULL,
	"to_address" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "failure_alert_emails_status_check" CHECK ("workflow_runner"."failure_alert_emails"."status" in ('pending', 'sent', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflow_schedules" ADD COLUMN "pause_after_failures" integer;--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflow_schedules" ADD COLUMN "failures_counted_from" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflow_schedules" ADD COLUMN "paused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflow_schedules" ADD COLUMN "paused_reason" text;--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflows" ADD COLUMN "failure_alerts" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflows" ADD COLUMN "alerted_through" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflows" ADD COLUMN "last_alert_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "failure_alert_emails_alert_user_idx" ON "workflow_runner"."failure_alert_emails" USING btree ("workflow_id","alerted_through","user_id");--> statement-breakpoint
CREATE INDEX "failure_alert_emails_due_idx" ON "workflow_runner"."failure_alert_emails" USING btree ("next_attempt_at") WHERE "workflow_runner"."failure_alert_emails"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "runs_failed_finished_idx" ON "workflow_runner"."runs" USING btree ("workflow_id","finished_at") WHERE "workflow_runner"."runs"."status" = 'failed';--> statement-breakpoint
CREATE INDEX "workflows_failure_alerts_idx" ON "workflow_runner"."workflows" USING btree ("last_alert_at") WHERE "workflow_runner"."workflows"."failure_alerts" is not null and "workflow_runner"."workflows"."deleted_at" is null;