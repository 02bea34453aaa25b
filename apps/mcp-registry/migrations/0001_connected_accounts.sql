CREATE TABLE "mcp_registry"."account_connections" (
	"server_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"sealed_tokens" text NOT NULL,
	"scope" text,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"connected_at" timestamp with time zone NOT NULL,
	CONSTRAINT "account_connections_server_id_user_id_pk" PRIMARY KEY("server_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "mcp_registry"."oauth_clients" (
	"server_id" uuid PRIMARY KEY NOT NULL,
	"issuer" text NOT NULL,
	"metadata" jsonb NOT NULL,
	"resource" text NOT NULL,
	"client_id" text NOT NULL,
	"sealed_client_secret" text,
	"token_endpoint_auth_method" text,
	"redirect_uri" text NOT NULL,
	"registered_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_registry"."pending_authorizations" (
	"state" text PRIMARY KEY NOT NULL,
	"server_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"sealed_code_verifier" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_registry"."account_connections" ADD CONSTRAINT "account_connections_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "mcp_registry"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_registry"."oauth_clients" ADD CONSTRAINT "oauth_clients_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "mcp_registry"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_registry"."pending_authorizations" ADD CONSTRAINT "pending_authorizations_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "mcp_registry"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pending_authorizations_expires_at_idx" ON "mcp_registry"."pending_authorizations" USING btree ("expires_at");--> statement-breakpoint
-- auth_reference of an account server named an account of a token source that never existed; it now holds the OAuth scopes to ask for.
UPDATE "mcp_registry"."servers" SET "auth_reference" = NULL WHERE "auth_type" = 'account';
