ALTER TABLE "workflow_runner"."run_steps" ADD COLUMN "parent_index" integer;--> statement-breakpoint
ALTER TABLE "workflow_runner"."run_steps" ADD COLUMN "branch" text;--> statement-breakpoint
ALTER TABLE "workflow_runner"."runs" ADD COLUMN "parent_run_id" uuid;--> statement-breakpoint
ALTER TABLE "workflow_runner"."runs" ADD COLUMN "parent_step_index" integer;--> statement-breakpoint
ALTER TABLE "workflow_runner"."runs" ADD COLUMN "iteration" integer;--> statement-breakpoint
ALTER TABLE "workflow_runner"."runs" ADD COLUMN "depth" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runner"."runs" ADD COLUMN "root_run_id" uuid;--> statement-breakpoint
ALTER TABLE "workflow_runner"."runs" ADD COLUMN "descendant_runs" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "runs_parent_idx" ON "workflow_runner"."runs" USING btree ("parent_run_id","parent_step_index","iteration") WHERE "workflow_runner"."runs"."parent_run_id" is not null;