ALTER TABLE "workflow_runner"."runs" ADD COLUMN "retry_of" uuid;--> statement-breakpoint
ALTER TABLE "workflow_runner"."runs" ADD COLUMN "attempt" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_retry_of_idx" ON "workflow_runner"."runs" USING btree ("retry_of") WHERE "workflow_runner"."runs"."retry_of" is not null;