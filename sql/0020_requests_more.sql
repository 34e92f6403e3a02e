-- regtrack schema, part 20: A/B requests (issue 18), continued: the series' patch-id and the result mail.
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

-- A request with `notify` mails its result there when it ends (done or
-- failed): one outbox row of kind 'request', queued in the transaction that
-- ends it (abtest_settle), rendered and sent by the mailer like the others.
ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
	CHECK (kind IN ('bisect', 'range', 'fixed', 'request'));
ALTER TABLE outbox ADD COLUMN request_id bigint REFERENCES requests(id);
CREATE INDEX outbox_request ON outbox (request_id) WHERE request_id IS NOT NULL;
