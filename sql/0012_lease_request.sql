-- regtrack schema, part 12: a lease that can be asked for again.
--
-- A worker's POST /api/v1/jobs/lease may lease a job whose reply never
-- reaches it: nginx answered 502 because the server behind it died after
-- the commit, the long poll timed out on the worker's side while the server
-- still held it, the connection broke. The job then stayed leased to a
-- machine that did not know it and waited lease_timeout_s to be queued
-- again (tests/faults nginx-failover, issue 10). The worker now names each
-- lease request (request_id, a UUID it keeps until it gets an answer) and
-- sends the same name when it retries after such a failure; the server
-- hands the job leased under that name to that machine again instead of
-- leasing another (server/lease.c lease_try).
ALTER TABLE jobs ADD COLUMN lease_request uuid;
CREATE INDEX jobs_lease_request ON jobs (lease_request) WHERE state = 'leased';
