/* Typed reads of health, metric properties and row existence (see meta.h). */
#include "server/db/meta.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "buf.h"

#include <string.h>

int db_health(struct db_conn *c, struct err *e)
{
	PGresult *r = db_exec(c, ST_HEALTH, 0, NULL, e);

	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

int db_metric_set(struct db_conn *c, const char *name, const char *unit, const char *hib,
		  const char *mon, struct db_metric *out, struct err *e)
{
	const char *p[4] = { name, unit, hib, mon };
	PGresult *r = db_exec(c, ST_METRIC_SET, 4, p, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return err_setc(e, ERR_DB, "name", "metric_set returned no row");
	}
	out->name = PQgetvalue(r, 0, 0);
	out->unit = PQgetvalue(r, 0, 1);
	out->higher_is_better = PQgetisnull(r, 0, 2) ? -1 : PQgetvalue(r, 0, 2)[0] == 't';
	out->is_monitor = PQgetvalue(r, 0, 3)[0] == 't';
	out->source = PQgetvalue(r, 0, 4);
	out->res_ = db_res_of(r);
	return 0;
}

void db_metric_free(struct db_metric *m)
{
	PQclear(db_pgres(m->res_));
	memset(m, 0, sizeof(*m));
}

int db_row_exists(struct db_conn *c, enum db_stmt st, const char *id, struct err *e)
{
	const char *p[1] = { id };
	PGresult *r = db_exec(c, st, 1, p, e);
	int n;

	if (!r)
		return -1;
	n = PQntuples(r) > 0;
	PQclear(r);
	return n;
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

int db_track_gauges(struct db_conn *c, struct buf *b, struct err *e)
{
	PGresult *r = db_exec(c, ST_TRACK_GAUGES, 0, NULL, e);
	int over = 0;

	if (!r)
		return -1;
	for (size_t g = 0; g < sizeof(gauges) / sizeof(gauges[0]); g++) {
		over |= buf_addf(b, "# HELP %s %s\n# TYPE %s %s\n", gauges[g].name, gauges[g].help,
				 gauges[g].name, gauges[g].type);
		for (int i = 0; i < PQntuples(r); i++) {
			const char *v = PQgetvalue(r, i, 1);

			if (strcmp(PQgetvalue(r, i, 0), gauges[g].name))
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
			over |= buf_addf(b, "\"} %s\n", PQgetvalue(r, i, 2));
		}
	}
	PQclear(r);
	(void)over; /* uncapped */
	return 0;
}

int db_machines_json(struct db_conn *c, char **text, struct err *e)
{
	return db_json_text(c, ST_MACHINES_JSON, 0, NULL, text, e);
}

int db_testcases_json(struct db_conn *c, char **text, struct err *e)
{
	return db_json_text(c, ST_TESTCASES_JSON, 0, NULL, text, e);
}

int db_metrics_json(struct db_conn *c, const char *prefix, char **text, struct err *e)
{
	const char *p[1] = { prefix };

	return db_json_text(c, ST_METRICS_JSON, 1, p, text, e);
}
