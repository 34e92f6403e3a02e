-- regtrack schema, part 28: a submit token's queued jobs, counted at each
-- POST /api/v1/jobs against submit_queue_max (issue 35 item 4), without a
-- scan of the whole queue. (0027 is left to another branch of the round.)
CREATE INDEX jobs_queued_by ON jobs (submitted_by) WHERE state = 'queued';
