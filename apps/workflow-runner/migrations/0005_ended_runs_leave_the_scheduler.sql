-- An ended run now leaves the scheduler when it ends (wake_at null), instead of staying due until
-- its in-flight key was released and marked; runs that ended under the old rule leave it now.
-- A key such a run did not release yet is taken over by webhook-ingest (decision 40).
UPDATE "workflow_runner"."runs" SET "wake_at" = NULL, "lease_owner" = NULL, "lease_until" = NULL
WHERE "status" IN ('succeeded', 'failed', 'cancelled') AND "wake_at" IS NOT NULL;
