-- regtrack schema, part 15: a regression's size and direction from the test
-- that decided it (issue 23 item 1).
--
-- (0015, not 0014: a plans migration of another branch takes 0014.)
--
-- change_pct stays LKP's %change of the means (signed base); one failed
-- run can flip its sign, so it no longer decides anything. hl_pct is the
-- Hodges-Lehmann shift of the two sides as % (stats/compare.h; ci_lo_pct /
-- ci_hi_pct have always been its interval), shift the same in the metric's
-- units, direction the sign the record's kind came from (+1: the values
-- rose): the sides' verdict when it is `different`, else the detector's
-- step. outliers_*: runs of each side far outside it (median +- 5 robust
-- standard deviations), shown, never dropped. pair_hl_pct / pair_direction:
-- the same for last good vs first bad commit alone (the confirmation).
-- NULL in records stored before this migration until their series is
-- detected again; readers fall back on change_pct for the size.
ALTER TABLE regressions
	ADD COLUMN hl_pct          double precision,
	ADD COLUMN shift           double precision,
	ADD COLUMN direction       smallint CHECK (direction BETWEEN -1 AND 1),
	ADD COLUMN outliers_before integer,
	ADD COLUMN outliers_after  integer,
	ADD COLUMN pair_hl_pct     double precision,
	ADD COLUMN pair_direction  smallint CHECK (pair_direction BETWEEN -1 AND 1);
