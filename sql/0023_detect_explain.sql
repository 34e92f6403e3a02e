-- Issue 27, item 3: "why was this (not) flagged?"
-- The reasons of the last detection of each series (setup, metric): the
-- detector's settings and a compact form of its trace (lib/stats/detect.h,
-- struct detect_candidate; server/detect_explain.c picks the candidates:
-- each accepted split's final estimate and each test window's best split,
-- the 50 strongest), a JSON array of
-- {commit_id, good_commit_id, stage, excursion, n_before, n_after, before,
--  after, change_pct, p_value, noise_sigma, effect, kept, reason}.
-- Replaced by every detection of the setup; read by GET /api/v1/series.
CREATE TABLE detect_explain (
	setup_id    bigint NOT NULL REFERENCES setups(id) ON DELETE CASCADE,
	metric_id   integer NOT NULL REFERENCES metrics(id) ON DELETE CASCADE,
	detected_at timestamptz NOT NULL DEFAULT now(),
	n_commits   integer NOT NULL,
	settings    json NOT NULL,
	candidates  json NOT NULL,
	PRIMARY KEY (setup_id, metric_id)
);
