-- Issue 21 (the first hour of a new user).
-- The cases a worker can run, each with its parameter table, as it
-- registered them: {"NAME": {"PARAM": {"type", "default", ...}}} (NULL: a
-- worker that sent none, or a machine that only submitted results). A job,
-- plan or A/B request naming a testcase or param no registered worker has
-- is refused (server/casecheck.c).
ALTER TABLE machines ADD COLUMN cases jsonb;

-- What the server warned about when the job was queued (no worker serves
-- its tbox_group yet; no worker registered its cases, so nothing was
-- checked): shown with the job.
ALTER TABLE jobs ADD COLUMN warnings text[] NOT NULL DEFAULT '{}';
