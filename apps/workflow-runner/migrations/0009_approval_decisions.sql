ALTER TABLE "workflow_runner"."approvals" ADD COLUMN "decided_by" uuid;--> statement-breakpoint
ALTER TABLE "workflow_runner"."approvals" ADD COLUMN "decided_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workflow_runner"."approvals" ADD COLUMN "comment" text;