CREATE TABLE "workflow_runner"."workflow_permissions" (
	"workspace_id" uuid PRIMARY KEY NOT NULL,
	"permissions" jsonb NOT NULL,
	"updated_by" uuid NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflows" ADD COLUMN "owner_id" uuid;--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflows" ADD COLUMN "runs_as" uuid;--> statement-breakpoint
UPDATE "workflow_runner"."workflows" SET "owner_id" = "created_by", "runs_as" = "created_by";--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflows" ALTER COLUMN "owner_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflows" ALTER COLUMN "runs_as" SET NOT NULL;
