CREATE TABLE "workflow_runner"."provider_connection_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "workflow_runner"."provider_accounts_account_idx";--> statement-breakpoint
ALTER TABLE "workflow_runner"."provider_accounts" ADD COLUMN "signing_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "workflow_runner"."provider_accounts" ADD COLUMN "proven_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "provider_connection_attempts_idx" ON "workflow_runner"."provider_connection_attempts" USING btree ("workspace_id","attempted_at");--> statement-breakpoint
CREATE UNIQUE INDEX "provider_accounts_workspace_account_idx" ON "workflow_runner"."provider_accounts" USING btree ("workspace_id","provider","account_id");--> statement-breakpoint
CREATE INDEX "provider_accounts_account_idx" ON "workflow_runner"."provider_accounts" USING btree ("provider","account_id");