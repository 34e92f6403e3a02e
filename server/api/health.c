/* GET /healthz (liveness including the database), GET /metrics (Prometheus text) */
#include "server/api/api.h"
#include "server/db/meta.h"
#include "server/http/replycache.h"

#include <stdio.h>
#include <time.h>

enum MHD_Result api_healthz(struct request *rq)
{
	struct err e;
	struct db_conn *c = rq_db(rq, &e);

	if (!c || db_health(c, &e))
		return reply_json(rq, 503,
				  json_pack("{s:s,s:s,s:s}", "status", "unavailable", "database",
					    "down", "message", e.message));
	/* a replica that is down or behind changes nothing but where reads go: still 200 */
	return reply_json(rq, 200,
			  json_pack("{s:s,s:s,s:o}", "status", "ok", "database", "ok", "replica",
				    replica_health_json(rq->srv->replica)));
}

enum MHD_Result api_prometheus(struct request *rq)
{
	struct server *s = rq->srv;
	struct buf b = BUF_INIT(0);
	enum MHD_Result ret;
	int r = 0;

	r |= buf_addstr(&b, "# HELP regtrack_http_requests_total HTTP requests by status class.\n"
			    "# TYPE regtrack_http_requests_total counter\n");
	for (int i = 1; i <= 5; i++)
		r |= buf_addf(&b, "regtrack_http_requests_total{class=\"%dxx\"} %lu\n", i,
			      atomic_load(&s->requests[i]));
	r |= buf_addf(&b,
		      "# HELP regtrack_http_in_flight Requests being served.\n"
		      "# TYPE regtrack_http_in_flight gauge\nregtrack_http_in_flight %lu\n",
		      atomic_load(&s->in_flight));
	r |= buf_addf(&b,
		      "# HELP regtrack_ingested_values_total Metric values stored.\n"
		      "# TYPE regtrack_ingested_values_total counter\n"
		      "regtrack_ingested_values_total %lu\n",
		      atomic_load(&s->values_ingested));
	r |= buf_addf(&b,
		      "# HELP regtrack_uptime_seconds Seconds since start.\n"
		      "# TYPE regtrack_uptime_seconds gauge\nregtrack_uptime_seconds %ld\n",
		      (long)time(NULL) - s->started);
	{
		/* tracking: queue depth per target, polls per tree (left out when the db is down) */
		struct err e;
		struct db_conn *c = rq_db(rq, &e);

		if (!c || db_track_gauges(c, &b, &e))
			r |= buf_addf(&b, "# tracking gauges unavailable: %s\n", e.message);
	}
	if (s->diff_cache) {
		struct reply_cache_stats st;

		reply_cache_stats(s->diff_cache, &st);
		r |= buf_addf(&b,
			      "# HELP regtrack_profile_diff_cache_total Profile diffs looked up in "
			      "the reply cache.\n"
			      "# TYPE regtrack_profile_diff_cache_total counter\n"
			      "regtrack_profile_diff_cache_total{result=\"hit\"} %llu\n"
			      "regtrack_profile_diff_cache_total{result=\"miss\"} %llu\n"
			      "# HELP regtrack_profile_diff_cache_evictions_total Replies given up "
			      "for the bound.\n"
			      "# TYPE regtrack_profile_diff_cache_evictions_total counter\n"
			      "regtrack_profile_diff_cache_evictions_total %llu\n"
			      "# HELP regtrack_profile_diff_cache_bytes Bytes kept (replies and "
			      "entries), at most profile_diff_cache_mb.\n"
			      "# TYPE regtrack_profile_diff_cache_bytes gauge\n"
			      "regtrack_profile_diff_cache_bytes %zu\n"
			      "# HELP regtrack_profile_diff_cache_entries Replies kept.\n"
			      "# TYPE regtrack_profile_diff_cache_entries gauge\n"
			      "regtrack_profile_diff_cache_entries %zu\n",
			      st.hits, st.misses, st.evictions, st.bytes, st.entries);
	}
	r |= replica_metrics(s->replica, &b);
	(void)r; /* uncapped */
	ret = reply_text(rq, 200, "text/plain; version=0.0.4", b.data, b.len);
	buf_release(&b);
	return ret;
}
