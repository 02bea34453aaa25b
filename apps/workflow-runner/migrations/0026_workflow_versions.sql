CREATE TABLE "workflow_runner"."workflow_versions" (
	"workflow_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"workspace_id" uuid NOT NULL,
	"definition" jsonb NOT NULL,
	"credit_cost" integer NOT NULL,
	"author_id" uuid NOT NULL,
	"changes" jsonb NOT NULL,
	"restored_from" integer,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "workflow_versions_workflow_id_number_pk" PRIMARY KEY("workflow_id","number")
);
--> statement-breakpoint
ALTER TABLE "workflow_runner"."runs" ADD COLUMN "workflow_version" integer;--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflows" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflows" ADD COLUMN "live_version" integer;--> statement-breakpoint
-- Every workflow becomes version 1 of itself, as it is now; a live one runs version 1.
INSERT INTO "workflow_runner"."workflow_versions" ("workflow_id", "number", "workspace_id", "definition", "credit_cost", "author_id", "changes", "restored_from", "created_at")
SELECT "id", 1, "workspace_id",
  jsonb_build_object('name', "name", 'hasTrigger', "webhook_id" IS NOT NULL,
    'customResponse', "custom_response", 'providerEvents', "provider_events", 'steps', "steps",
    'runningHours', "running_hours", 'queueOutsideWindow', "queue_outside_window",
    'stopOnNodeFailure', "stop_on_node_failure"),
  "credit_cost", "runs_as", '["the workflow as it was when versions began"]'::jsonb, NULL, "updated_at"
FROM "workflow_runner"."workflows";--> statement-breakpoint
UPDATE "workflow_runner"."workflows" SET "live_version" = 1 WHERE "status" = 'live';
