-- regtrack schema, part 7: what a commit touched (issue 7: paths
-- subscriptions and the first bad commit's diffstat).
--
-- Collected from the server's bare mirror (server/gitmirror.c,
-- gitmirror_store_diffstat) when a bisect names a first bad commit, and by
-- the mailer when a report needs it and it is missing, with
--   git log -1 --no-renames --diff-merges=first-parent --numstat -z --format= SHA
-- i.e. the commit against its first parent (a root commit against the empty
-- tree), renames seen as a delete plus an add. A row in commit_diffstat means
-- "collected" (an empty commit has one with zeros and no commit_files rows).
CREATE TABLE commit_diffstat (
	commit_id     bigint PRIMARY KEY REFERENCES commits(id) ON DELETE CASCADE,
	files_changed integer NOT NULL,
	insertions    bigint NOT NULL,   -- sum over text files (as git diff --shortstat)
	deletions     bigint NOT NULL,
	collected_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per file the commit touched; insertions/deletions NULL for a
-- binary file (git prints '-').
CREATE TABLE commit_files (
	commit_id  bigint NOT NULL REFERENCES commit_diffstat(commit_id) ON DELETE CASCADE,
	path       text NOT NULL,
	insertions integer,
	deletions  integer,
	PRIMARY KEY (commit_id, path)
);
