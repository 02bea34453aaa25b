CREATE TABLE "storage"."contact_notes" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"company_id" text,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"tags" text[] NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "contact_notes_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "storage"."contacts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"company_id" text,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "storage"."tables" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "storage"."table_properties" (
	"id" uuid PRIMARY KEY NOT NULL,
	"table_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"config" jsonb NOT NULL,
	"position" integer NOT NULL,
	"is_hidden" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "storage"."table_rows" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" uuid NOT NULL,
	"table_id" uuid NOT NULL,
	"cells" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "table_rows_id_unique" UNIQUE("id")
);
--> statement-breakpoint
ALTER TABLE "storage"."contact_notes" ADD CONSTRAINT "contact_notes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "storage"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage"."contact_notes" ADD CONSTRAINT "contact_notes_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "storage"."contacts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage"."contact_notes" ADD CONSTRAINT "contact_notes_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "storage"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage"."contacts" ADD CONSTRAINT "contacts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "storage"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage"."contacts" ADD CONSTRAINT "contacts_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "storage"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage"."tables" ADD CONSTRAINT "tables_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "storage"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage"."tables" ADD CONSTRAINT "tables_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "storage"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage"."table_properties" ADD CONSTRAINT "table_properties_table_id_tables_id_fk" FOREIGN KEY ("table_id") REFERENCES "storage"."tables"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage"."table_rows" ADD CONSTRAINT "table_rows_table_id_tables_id_fk" FOREIGN KEY ("table_id") REFERENCES "storage"."tables"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_notes_contact_seq_idx" ON "storage"."contact_notes" USING btree ("contact_id","seq");--> statement-breakpoint
CREATE INDEX "contacts_workspace_id_idx" ON "storage"."contacts" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "tables_workspace_id_idx" ON "storage"."tables" USING btree ("workspace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "table_properties_position_idx" ON "storage"."table_properties" USING btree ("table_id","position");--> statement-breakpoint
CREATE INDEX "table_rows_table_seq_idx" ON "storage"."table_rows" USING btree ("table_id","seq");