CREATE TABLE "workflow_runner"."provider_accounts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"account_id" text NOT NULL,
	"label" text NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_runner"."provider_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"delivery_id" text NOT NULL,
	"event" text NOT NULL,
	"account_id" text,
	"workspace_id" uuid,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_runner"."provider_delivery_events" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"delivery_id" text NOT NULL,
	"workflow_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workflow_runner"."workflows" ADD COLUMN "provider_events" jsonb;--> statement-breakpoint
CREATE UNIQUE INDEX "provider_accounts_account_idx" ON "workflow_runner"."provider_accounts" USING btree ("provider","account_id");--> statement-breakpoint
CREATE INDEX "provider_accounts_workspace_idx" ON "workflow_runner"."provider_accounts" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "provider_deliveries_delivery_idx" ON "workflow_runner"."provider_deliveries" USING btree ("provider","delivery_id");--> statement-breakpoint
CREATE INDEX "provider_deliveries_workspace_idx" ON "workflow_runner"."provider_deliveries" USING btree ("workspace_id","received_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "provider_delivery_events_delivery_idx" ON "workflow_runner"."provider_delivery_events" USING btree ("provider","delivery_id");