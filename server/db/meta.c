/*
 * Typed reads of health, machines, testcases, metric properties and row
 * existence (meta.h; api/meta.c, api/health.c), and the statements they
 * are made with.
 */
#include "server/db/meta.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "buf.h"

#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum meta_stmt {
	ST_HEALTH,
	ST_MACHINES_JSON,
	ST_METRICS_JSON,
	ST_METRIC_SET,
	ST_TESTCASES_JSON,
	ST_TRACK_GAUGES,
	NR_META_STMTS
};

static const struct db_stmt_def stmts[NR_META_STMTS] = {
	[ST_HEALTH] = { "health", "SELECT 1" },
	[ST_MACHINES_JSON] = { "machines_json",
			       "SELECT coalesce(json_agg(x ORDER BY x.hostname, x.id), '[]')::text FROM ("
			       "SELECT m.id, m.hostname, m.arch, m.tbox_group, m.nr_cpus, m.memory_mb, m.cpu_model, "
			       "m.capabilities, m.fingerprint, m.cases, m.registered_at, m.last_seen, "
			       "(SELECT count(*) FROM runs r WHERE r.machine_id = m.id) AS runs "
			       "FROM machines m) x" },
	[ST_METRICS_JSON] = { "metrics_json",
			      "SELECT coalesce(json_agg(x ORDER BY x.name), '[]')::text FROM ("
			      "SELECT name, unit, higher_is_better, is_monitor, source FROM metrics "
			      "WHERE $1::text IS NULL OR starts_with(name, $1)) x" },
	[ST_METRIC_SET] = { "metric_set",
			    "INSERT INTO metrics (name, unit, higher_is_better, is_monitor, source) "
			    "VALUES ($1, coalesce($2, ''), $3::boolean, coalesce($4::boolean, false), 'api') "
			    "ON CONFLICT (name) DO UPDATE SET unit = coalesce($2, metrics.unit), "
			    "higher_is_better = coalesce($3::boolean, metrics.higher_is_better), "
			    "is_monitor = coalesce($4::boolean, metrics.is_monitor), source = 'api' "
			    "RETURNING name, unit, higher_is_better, is_monitor, source" },
	[ST_TESTCASES_JSON] = { "testcases_json",
				"SELECT coalesce(json_agg(x ORDER BY x.name), '[]')::text FROM ("
				"SELECT t.name, (SELECT count(*) FROM setups s WHERE s.testcase_id = t.id) AS setups, "
				"(SELECT coalesce(json_agg(json_build_object('id', s.id, 'params', s.params, "
				"'kconfig', s.kconfig, 'compiler', s.compiler, 'tbox_group', s.tbox_group, "
				"'mode', s.mode) ORDER BY s.id), '[]') FROM setups s WHERE s.testcase_id = t.id) "
				"AS setup_list FROM testcases t) x" },
	/*
	 * GET /metrics: (name, label, value) rows. Per target (tbox_group, else
	 * arch:ARCH, else any) the queued jobs, the queued tracking jobs and the
	 * running jobs; per tree with a poll its polls, the last poll's duration
	 * and age, the failures in a row and the seconds to the next poll.
	 */
	[ST_TRACK_GAUGES] = { "track_gauges",
			      "WITH q AS (SELECT coalesce(tbox_group, 'arch:' || arch, 'any') AS tg, state, plan_id "
			      "FROM jobs WHERE state IN ('queued', 'leased')) "
			      "SELECT 'regtrack_queue_depth', tg, count(*) FILTER (WHERE state = 'queued')::float8 "
			      "FROM q GROUP BY tg "
			      "UNION ALL SELECT 'regtrack_queue_depth_tracking', tg, "
			      "count(*) FILTER (WHERE state = 'queued' AND plan_id IS NOT NULL)::float8 FROM q GROUP BY tg "
			      "UNION ALL SELECT 'regtrack_jobs_running', tg, count(*) FILTER (WHERE state = 'leased')::float8 "
			      "FROM q GROUP BY tg "
			      "UNION ALL SELECT 'regtrack_tree_polls_total', name, polls::float8 FROM trees WHERE polls > 0 "
			      "UNION ALL SELECT 'regtrack_tree_poll_duration_seconds', name, last_poll_ms / 1000.0 "
			      "FROM trees WHERE last_poll_ms IS NOT NULL "
			      "UNION ALL SELECT 'regtrack_tree_poll_age_seconds', name, "
			      "extract(epoch FROM now() - last_poll_at)::float8 FROM trees WHERE last_poll_at IS NOT NULL "
			      "UNION ALL SELECT 'regtrack_tree_poll_failures', name, poll_failures::float8 FROM trees "
			      "WHERE polls > 0 "
			      "UNION ALL SELECT 'regtrack_tree_next_poll_seconds', name, "
			      "greatest(0, extract(epoch FROM next_poll_at - now()))::float8 FROM trees "
			      "WHERE poll_s > 0 OR poll_requested_at IS NOT NULL "
			      "ORDER BY 1, 2" },
};

const struct db_stmt_table db_stmts_meta = DB_STMT_TABLE(stmts);

int db_health(struct db_conn *c, struct err *e)
{
	return db_query_do(c, &stmts[ST_HEALTH], 0, NULL, e);
}

/* ST_METRIC_SET's columns (its RETURNING) */
enum { MS_NAME, MS_UNIT, MS_HIGHER_IS_BETTER, MS_IS_MONITOR, MS_SOURCE };

int db_metric_set(struct db_conn *c, const char *name, const char *unit, const char *hib,
		  const char *mon, struct db_metric *out, struct err *e)
{
	struct db_param p[4] = { db_text(name), db_text(unit), db_text(hib), db_text(mon) };
	PGresult *r = db_query(c, &stmts[ST_METRIC_SET], 4, p, 0, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return err_setc(e, ERR_DB, "name", "metric_set returned no row");
	}
	out->name = PQgetvalue(r, 0, MS_NAME);
	out->unit = PQgetvalue(r, 0, MS_UNIT);
	out->higher_is_better = PQgetisnull(r, 0, MS_HIGHER_IS_BETTER) ?
					-1 :
					PQgetvalue(r, 0, MS_HIGHER_IS_BETTER)[0] == 't';
	out->is_monitor = PQgetvalue(r, 0, MS_IS_MONITOR)[0] == 't';
	out->source = PQgetvalue(r, 0, MS_SOURCE);
	out->res_ = db_res_of(r);
	return 0;
}

void db_metric_free(struct db_metric *m)
{
	PQclear(db_pgres(m->res_));
	memset(m, 0, sizeof(*m));
}

/* HELP and TYPE of each ST_TRACK_GAUGES name */
static const struct {
	const char *name, *label, *type, *help;
} gauges[] = {
	{ "regtrack_jobs_running", "tbox_group", "gauge", "Jobs leased to a worker, by target." },
	{ "regtrack_queue_depth", "tbox_group", "gauge", "Jobs queued, by target." },
	{ "regtrack_queue_depth_tracking", "tbox_group", "gauge",
	  "Tracking jobs (queued by test plans) queued, by target." },
	{ "regtrack_tree_next_poll_seconds", "tree", "gauge",
	  "Seconds until the tree's next poll." },
	{ "regtrack_tree_poll_age_seconds", "tree", "gauge",
	  "Seconds since the tree's last poll." },
	{ "regtrack_tree_poll_duration_seconds", "tree", "gauge",
	  "How long the tree's last poll took (fetch, import, scheduling)." },
	{ "regtrack_tree_poll_failures", "tree", "gauge", "Failed polls of the tree in a row." },
	{ "regtrack_tree_polls_total", "tree", "counter", "Polls of the tree." },
};

/* ST_TRACK_GAUGES' columns */
enum { GAUGE_NAME, GAUGE_LABEL, GAUGE_VALUE };

int db_track_gauges(struct db_conn *c, struct buf *b, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_TRACK_GAUGES], 0, NULL, 0, e);
	int over = 0;

	if (!r)
		return -1;
	for (size_t g = 0; g < sizeof(gauges) / sizeof(gauges[0]); g++) {
		over |= buf_addf(b, "# HELP %s %s\n# TYPE %s %s\n", gauges[g].name, gauges[g].help,
				 gauges[g].name, gauges[g].type);
		for (int i = 0; i < PQntuples(r); i++) {
			const char *v = PQgetvalue(r, i, GAUGE_LABEL);

			if (strcmp(PQgetvalue(r, i, GAUGE_NAME), gauges[g].name))
				continue;
			over |= buf_addf(b, "%s{%s=\"", gauges[g].name, gauges[g].label);
			/* label values escaped as the text format asks (tree and group names are words) */
			for (; *v; v++) {
				if (*v == '\\' || *v == '"')
					over |= buf_addch(b, '\\');
				if (*v == '\n')
					over |= buf_addstr(b, "\\n");
				else
					over |= buf_addch(b, *v);
			}
			over |= buf_addf(b, "\"} %s\n", PQgetvalue(r, i, GAUGE_VALUE));
		}
	}
	PQclear(r);
	(void)over; /* uncapped */
	return 0;
}

int db_machines_json(struct db_conn *c, char **text, struct err *e)
{
	return db_query_json(c, &stmts[ST_MACHINES_JSON], 0, NULL, text, e);
}

int db_testcases_json(struct db_conn *c, char **text, struct err *e)
{
	return db_query_json(c, &stmts[ST_TESTCASES_JSON], 0, NULL, text, e);
}

int db_metrics_json(struct db_conn *c, const char *prefix, char **text, struct err *e)
{
	struct db_param p[1] = { db_text(prefix) };

	return db_query_json(c, &stmts[ST_METRICS_JSON], 1, p, text, e);
}
