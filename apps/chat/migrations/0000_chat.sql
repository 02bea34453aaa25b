CREATE SCHEMA IF NOT EXISTS "chat";
--> statement-breakpoint
CREATE TABLE "chat"."access_requests" (
	"id" uuid PRIMARY KEY NOT NULL,
	"conversation_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" uuid,
	CONSTRAINT "access_requests_status_check" CHECK ("chat"."access_requests"."status" in ('pending', 'granted', 'declined'))
);
--> statement-breakpoint
CREATE TABLE "chat"."conversations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"project_id" uuid,
	"title" text,
	"source" text,
	"access_type" text NOT NULL,
	"is_archived" boolean NOT NULL,
	"metadata" jsonb,
	"last_message" jsonb,
	"last_activity_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "conversations_access_type_check" CHECK ("chat"."conversations"."access_type" in ('private', 'invited', 'everyone'))
);
--> statement-breakpoint
CREATE TABLE "chat"."messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat"."messages_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"conversation_id" uuid NOT NULL,
	"role" text NOT NULL,
	"user_id" uuid,
	"content" text NOT NULL,
	"request_id" uuid,
	"status" text,
	"tool_calls" jsonb NOT NULL,
	"transcript" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "messages_role_check" CHECK ("chat"."messages"."role" in ('user', 'assistant'))
);
--> statement-breakpoint
CREATE TABLE "chat"."participants" (
	"conversation_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"can_edit" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "participants_conversation_id_user_id_pk" PRIMARY KEY("conversation_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "chat"."people" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat"."turn_events" (
	"request_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "turn_events_request_id_seq_pk" PRIMARY KEY("request_id","seq")
);
--> statement-breakpoint
CREATE TABLE "chat"."turns" (
	"request_id" uuid PRIMARY KEY NOT NULL,
	"conversation_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"owner" text NOT NULL,
	"heartbeat_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "turns_status_check" CHECK ("chat"."turns"."status" in ('running', 'completed', 'stopped', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "chat"."viewer_states" (
	"conversation_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"starred" boolean NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "viewer_states_conversation_id_user_id_pk" PRIMARY KEY("conversation_id","user_id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "access_requests_one_pending_idx" ON "chat"."access_requests" USING btree ("conversation_id","user_id") WHERE "chat"."access_requests"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "conversations_workspace_activity_idx" ON "chat"."conversations" USING btree ("workspace_id","last_activity_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "messages_conversation_seq_idx" ON "chat"."messages" USING btree ("conversation_id","seq");--> statement-breakpoint
CREATE INDEX "participants_user_idx" ON "chat"."participants" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "turns_running_heartbeat_idx" ON "chat"."turns" USING btree ("heartbeat_at") WHERE "chat"."turns"."status" = 'running';--> statement-breakpoint
CREATE INDEX "turns_conversation_idx" ON "chat"."turns" USING btree ("conversation_id");