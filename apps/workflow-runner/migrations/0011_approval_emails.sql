CREATE TABLE "workflow_runner"."approval_emails" (
	"id" uuid PRIMARY KEY NOT NULL,
	"approval_id" uuid NOT NULL,
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
	CONSTRAINT "approval_emails_status_check" CHECK ("workflow_runner"."approval_emails"."status" in ('pending', 'sent', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "workflow_runner"."approvals" ADD COLUMN "notified_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "approval_emails_approval_user_idx" ON "workflow_runner"."approval_emails" USING btree ("approval_id","user_id");--> statement-breakpoint
CREATE INDEX "approval_emails_due_idx" ON "workflow_runner"."approval_emails" USING btree ("next_attempt_at") WHERE "workflow_runner"."approval_emails"."status" = 'pending';--> statement-breakpoint
UPDATE "workflow_runner"."approvals" SET "notified_at" = "created_at";
