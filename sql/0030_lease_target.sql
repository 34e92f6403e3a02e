-- regtrack schema, part 30: the lease query (ST_JOB_LEASE) reads the first
-- queued job of each (capability, tbox_group, arch) a machine matches, in
-- priority order, instead of scanning the whole queue in priority order:
-- 100k queued jobs for a target no worker has made each lease read all of
-- them (420 ms; issue 35 item 4). NULL tbox_group and arch (any) as ''.
CREATE INDEX jobs_queue_target ON jobs (need_capability, coalesce(tbox_group, ''),
	coalesce(arch, ''), priority DESC, id) WHERE state = 'queued';
