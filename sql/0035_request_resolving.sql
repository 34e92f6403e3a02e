-- regtrack schema, part 35: A/B requests accepted before their refs are resolved.
--
-- POST /api/v1/requests checks what needs no git and stores the request at
-- once in state 'resolving' (202); a background thread (server/resolver.c)
-- resolves base and head in the tree's mirror with a short git timeout and
-- then queues the jobs (state 'queued', the shas and the full spec stored)
-- or fails the request with a reason the caller can read. While resolving,
-- base_sha is not known yet and spec holds the submission as checked
-- (without its patches, which are in their own column).
ALTER TABLE requests DROP CONSTRAINT requests_state_check;
ALTER TABLE requests ADD CONSTRAINT requests_state_check
	CHECK (state IN ('resolving', 'queued', 'running', 'done', 'failed', 'cancelled'));
ALTER TABLE requests ALTER COLUMN base_sha DROP NOT NULL;
ALTER TABLE requests ADD CONSTRAINT requests_base_sha_known
	CHECK (base_sha IS NOT NULL OR state IN ('resolving', 'failed', 'cancelled'));
CREATE INDEX requests_resolving ON requests (id) WHERE state = 'resolving';
