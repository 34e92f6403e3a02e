-- regtrack schema, part 8: finding the build of a commit (issue 8, web8).
--
-- GET /api/v1/{regressions,bisects}/{id}/kconfig-diff (server/api_kconfig.c)
-- looks up, for one commit, the jobs that stored the .config they built;
-- without this index that is a scan of every job.
CREATE INDEX jobs_commit_kconfig ON jobs (commit_id, id) WHERE kconfig_text IS NOT NULL;
