-- Room on every page for the new versions of updated rows: a run is updated when it is claimed,
-- when it ends and when its in-flight key is released, and its steps when they end. An update
-- that changes no indexed column and fits on its page is a HOT update, which writes no index
-- entries (decision 35).
ALTER TABLE "workflow_runner"."runs" SET (fillfactor = 70);--> statement-breakpoint
ALTER TABLE "workflow_runner"."run_steps" SET (fillfactor = 70);
