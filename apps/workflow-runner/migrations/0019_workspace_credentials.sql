CREATE TABLE "workflow_runner"."workspace_credentials" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"access" text NOT NULL,
	"sealed_value" text NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_by" uuid NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_credentials_name_idx" ON "workflow_runner"."workspace_credentials" USING btree ("workspace_id","name");