ALTER TABLE "workflow_runner"."run_steps" ADD COLUMN "policy" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_runner"."run_steps" ADD COLUMN "attempt" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runner"."run_steps" ADD COLUMN "attempts" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runner"."run_steps" ADD COLUMN "resumed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runner"."runs" ADD COLUMN "failed_run_id" uuid;