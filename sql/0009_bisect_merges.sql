-- regtrack schema, part 9: bisect descent into merges (issue 6; server/bisect.c).
--
-- A bisect walks the first-parent chain good..bad (level 0). When the first
-- bad commit it finds there is a two-parent merge, it descends: the next
-- level's candidates are the merged side branch's own first-parent chain
-- (commits reachable from merge^2 and not from merge^1), oldest first, then
-- the merge itself; its good end is merge^1 (good on the level above). Each
-- level is a linear order, so the planner's posterior over "which candidate
-- is first bad" applies unchanged. A merge found first bad at the end of
-- its own level (every side commit good) is the answer: the merge itself.

ALTER TABLE bisects
	ADD COLUMN level         integer NOT NULL DEFAULT 0,
	ADD COLUMN level_good_id bigint REFERENCES commits(id),  -- good end of the current level; NULL = good_id
	ADD COLUMN descents      jsonb NOT NULL DEFAULT '[]';   -- one object per finished level that found a merge

ALTER TABLE bisect_commits ADD COLUMN level integer NOT NULL DEFAULT 0;
ALTER TABLE bisect_commits DROP CONSTRAINT bisect_commits_pkey;
ALTER TABLE bisect_commits ADD PRIMARY KEY (bisect_id, level, idx);

ALTER TABLE bisect_steps ADD COLUMN level integer NOT NULL DEFAULT 0;
