CREATE SCHEMA IF NOT EXISTS "mcp_registry";
--> statement-breakpoint
CREATE TABLE "mcp_registry"."servers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"server_url" text NOT NULL,
	"server_type" text NOT NULL,
	"enabled" boolean NOT NULL,
	"access_mode" text NOT NULL,
	"accessible_to" jsonb NOT NULL,
	"auth_type" text NOT NULL,
	"auth_header_name" text,
	"auth_prefix" text,
	"auth_reference" text,
	"sealed_secret" text,
	"header_names" jsonb NOT NULL,
	"sealed_headers" text,
	"transport" text,
	"sync_status" text NOT NULL,
	"sync_errors" jsonb NOT NULL,
	"last_synced_at" timestamp with time zone,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "servers_access_mode_check" CHECK ("mcp_registry"."servers"."access_mode" in ('everyone', 'specific', 'specific_users', 'creator_only')),
	CONSTRAINT "servers_auth_type_check" CHECK ("mcp_registry"."servers"."auth_type" in ('none', 'direct', 'basic', 'env_var', 'account'))
);
--> statement-breakpoint
CREATE TABLE "mcp_registry"."tools" (
	"id" uuid PRIMARY KEY NOT NULL,
	"server_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"input_schema" jsonb NOT NULL,
	"hash" text NOT NULL,
	"enabled" boolean NOT NULL,
	"last_discovered_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_registry"."tools" ADD CONSTRAINT "tools_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "mcp_registry"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "servers_workspace_id_idx" ON "mcp_registry"."servers" USING btree ("workspace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tools_server_id_name_idx" ON "mcp_registry"."tools" USING btree ("server_id","name");--> statement-breakpoint
CREATE INDEX "tools_workspace_id_idx" ON "mcp_registry"."tools" USING btree ("workspace_id");