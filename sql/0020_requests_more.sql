-- regtrack schema, part 20: A/B requests (issue 18), continued.
--
-- The identity of a request's patch series, as `git patch-id --stable`
-- computes it on the worker after `git am` (worker/kernel.c): of the
-- series as one diff (base..head) and of each patch in order. Each head
-- run records them in runs.extra (patch_id, patch_ids); the request keeps
-- the first head run's once it ends (ST_REQUEST_FINISH), so a series can be
-- found again after a rebase or a resend (same patch-id, other sha).
ALTER TABLE requests
	ADD COLUMN patch_id  text CHECK (patch_id ~ '^[0-9a-f]{40}$'),
	ADD COLUMN patch_ids jsonb;
CREATE INDEX requests_patch_id ON requests (patch_id) WHERE patch_id IS NOT NULL;
