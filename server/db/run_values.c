/*
 * A run's values (db_run_values_copy(), see runs.h): metric names to ids,
 * new names registered, and the rows sent in COPY's binary format; the
 * statements of the metric names are here.
 */
#include "server/db/runs.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "stats/metric.h"
#include "buf.h"
#include "xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum run_value_stmt { ST_METRIC_IDS, ST_METRICS_INSERT, NR_RUN_VALUE_STMTS };

static const struct db_stmt_def stmts[NR_RUN_VALUE_STMTS] = {
	/* ids of known metric names (ingest resolves names, then COPYs run_values) */
	[ST_METRIC_IDS] = { "metric_ids",
			    "SELECT id, name FROM metrics WHERE name = ANY ($1::text[])" },
	[ST_METRICS_INSERT] = { "metrics_insert",
				"INSERT INTO metrics (name, unit, higher_is_better, is_monitor) "
				"SELECT * FROM unnest($1::text[], $2::text[], $3::bool[], $4::bool[]) "
				"ON CONFLICT (name) DO NOTHING" },
};

const struct db_stmt_table db_stmts_run_values = DB_STMT_TABLE(stmts);

/* ST_METRIC_IDS's columns */
enum { METRIC_ID, METRIC_NAME };

int db_metric_ids(struct db_conn *c, const char *names, struct db_metric_ids *out, struct err *e)
{
	struct db_param p[1] = { db_text(names) };
	PGresult *r = db_query(c, &stmts[ST_METRIC_IDS], 1, p, 0, e);

	memset(out, 0, sizeof(*out));
	if (!r)
		return -1;
	out->nr = (size_t)PQntuples(r);
	out->rows = xcalloc(out->nr ? out->nr : 1, sizeof(*out->rows));
	for (size_t i = 0; i < out->nr; i++) {
		out->rows[i].id = strtoll(PQgetvalue(r, (int)i, METRIC_ID), NULL, 10);
		out->rows[i].name = PQgetvalue(r, (int)i, METRIC_NAME);
	}
	out->res_ = db_res_of(r);
	return 0;
}

void db_metric_ids_free(struct db_metric_ids *m)
{
	free(m->rows);
	PQclear(db_pgres(m->res_));
	memset(m, 0, sizeof(*m));
}

/* text[] literal element: double-quoted, with \ and " escaped */
static int add_array_elem(struct buf *b, const char *s)
{
	int r = 0;

	if (b->len > 1)
		r |= buf_addch(b, ',');
	r |= buf_addch(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			r |= buf_addch(b, '\\');
		r |= buf_addch(b, *s);
	}
	r |= buf_addch(b, '"');
	return r;
}

struct name_id {
	const char *name; /* borrowed from the document */
	long long id;	  /* metrics.id, 0 = not known yet */
};

static int cmp_name_id(const void *a, const void *b)
{
	return strcmp(((const struct name_id *)a)->name, ((const struct name_id *)b)->name);
}

/*
 * Fills in the ids of the names (sorted by name) whose id is 0, from the
 * metrics table; *missing = how many are still unknown.
 */
static int lookup_ids(struct db_conn *c, struct name_id *v, size_t n, size_t *missing,
		      struct err *e)
{
	struct buf nb = BUF_INIT(0);
	struct db_metric_ids known;
	int ret = buf_addch(&nb, '{');

	for (size_t i = 0; i < n; i++)
		if (!v[i].id)
			ret |= add_array_elem(&nb, v[i].name);
	ret |= buf_addch(&nb, '}');
	if (ret)
		abort(); /* uncapped buffers cannot fail */
	ret = db_metric_ids(c, nb.data, &known, e);
	buf_release(&nb);
	if (ret)
		return -1;
	for (size_t i = 0; i < known.nr; i++) {
		struct name_id key = { known.rows[i].name, 0 }, *hit;

		hit = bsearch(&key, v, n, sizeof(*v), cmp_name_id);
		if (hit)
			hit->id = known.rows[i].id;
	}
	db_metric_ids_free(&known);
	*missing = 0;
	for (size_t i = 0; i < n; i++)
		*missing += !v[i].id;
	return 0;
}

/*
 * Registers the names whose id is 0 with the registry's defaults for unit
 * and direction (lib/stats/metric.h); in name order, so concurrent ingests
 * lock in one order.
 */
static int insert_metrics(struct db_conn *c, const struct name_id *v, size_t n, struct err *e)
{
	struct buf nb = BUF_INIT(0), ub = BUF_INIT(0), hb = BUF_INIT(0), mb = BUF_INIT(0);
	int ret = 0;

	ret |= buf_addch(&nb, '{') | buf_addch(&ub, '{') | buf_addch(&hb, '{') |
	       buf_addch(&mb, '{');
	for (size_t i = 0; i < n; i++) {
		int hib;

		if (v[i].id)
			continue;
		hib = metric_higher_is_better(v[i].name);
		ret |= add_array_elem(&nb, v[i].name);
		ret |= add_array_elem(&ub, metric_unit_guess(v[i].name));
		if (hb.len > 1)
			ret |= buf_addch(&hb, ',');
		ret |= buf_addstr(&hb, hib < 0 ? "NULL" : hib ? "t" : "f");
		if (mb.len > 1)
			ret |= buf_addch(&mb, ',');
		ret |= buf_addstr(&mb, metric_is_monitor(v[i].name) ? "t" : "f");
	}
	ret |= buf_addch(&nb, '}') | buf_addch(&ub, '}') | buf_addch(&hb, '}') |
	       buf_addch(&mb, '}');
	if (ret)
		abort();
	{
		/* the four arrays are text[] and bool[] in the SQL: sent as text literals */
		struct db_param p[4] = { db_text(nb.data), db_text(ub.data), db_text(hb.data),
					 db_text(mb.data) };

		ret = db_query_do(c, &stmts[ST_METRICS_INSERT], 4, p, e);
	}
	buf_release(&nb);
	buf_release(&ub);
	buf_release(&hb);
	buf_release(&mb);
	return ret;
}

/* big-endian writers for COPY's binary format */
static unsigned char *put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
	return p + 2;
}

static unsigned char *put32(unsigned char *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
	return p + 4;
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
	return p + 8;
}

static unsigned char *put_f8(unsigned char *p, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return put64(p, u);
}

#define FLOAT8_OID 701 /* pg_type.oid of float8: fixed in PostgreSQL's catalog */

/*
 * Metric names resolved to ids (new names registered first), then one COPY of a row per metric with
 * every replicate and their mean (sql/0006: the sum in iteration order over the count, what PostgreSQL's
 * avg(float8) gives). COPY's binary format: the doubles go as their 8 bytes, neither printed here
 * nor parsed by PostgreSQL. Layout (PostgreSQL docs, "COPY", Binary Format; array_send()):
 * signature, flags, header extension length; per row a field count and per field a length and the
 * bytes (-1 = NULL); an int16 -1 at the end. A float8[] field is ndim, has-null flag, element type,
 * then per dimension size and lower bound, then each element as a length and its bytes.
 */
int db_run_values_copy(struct db_conn *c, long long run, json_t *metrics, size_t *nr_values,
		       struct err *e)
{
	static const unsigned char sig[11] = "PGCOPY\n\377\r\n";
	size_t n = json_object_size(metrics), i = 0, missing, size;
	struct name_id *v = xcalloc(n ? n : 1, sizeof(*v));
	unsigned char *rows = NULL, *p;
	const char *key;
	json_t *arr;
	long long stored;

	*nr_values = 0;
	json_object_foreach (metrics, key, arr)
		v[i++].name = key;
	qsort(v, n, sizeof(*v), cmp_name_id);
	if (lookup_ids(c, v, n, &missing, e))
		goto fail;
	if (missing && (insert_metrics(c, v, n, e) || lookup_ids(c, v, n, &missing, e)))
		goto fail;
	if (missing) {
		err_setc(e, ERR_DB, "metrics", "%zu metric names could not be registered", missing);
		goto fail;
	}
	/* header + trailer, then per row: count, run, metric, array header, mean */
	size = sizeof(sig) + 8 + 2;
	json_object_foreach (metrics, key, arr)
		size += 2 + 12 + 8 + 24 + 12 + 12 * json_array_size(arr);
	rows = xmalloc(size);
	p = rows;
	memcpy(p, sig, sizeof(sig));
	p = put32(p + sizeof(sig), 0); /* flags: no OIDs */
	p = put32(p, 0);	       /* no header extension */
	json_object_foreach (metrics, key, arr) {
		struct name_id k = { key, 0 };
		const struct name_id *hit = bsearch(&k, v, n, sizeof(*v), cmp_name_id);
		size_t j, nv = json_array_size(arr);
		double sum = 0;
		json_t *x;

		p = put16(p, 4);
		p = put64(put32(p, 8), (uint64_t)run);
		p = put32(put32(p, 4), (uint32_t)hit->id);
		if (nv) {
			p = put32(p, (uint32_t)(20 + 12 * nv));
			p = put32(put32(put32(p, 1), 0), FLOAT8_OID);
			p = put32(put32(p, (uint32_t)nv), 1);
			json_array_foreach (arr, j, x) {
				double d = json_number_value(x);

				p = put_f8(put32(p, 8), d);
				sum += d;
			}
			p = put_f8(put32(p, 8), sum / (double)nv);
		} else {
			/* '{}' and a NULL mean */
			p = put32(p, 12);
			p = put32(put32(put32(p, 0), 0), FLOAT8_OID);
			p = put32(p, 0xffffffffu);
		}
		*nr_values += nv;
	}
	p = put16(p, 0xffffu);
	if ((size_t)(p - rows) > size)
		abort(); /* the size above is wrong */
	stored = db_copy_in(c,
			    "COPY run_values (run_id, metric_id, vals, mean) FROM STDIN "
			    "(FORMAT binary)",
			    (const char *)rows, (size_t)(p - rows), e);
	if (stored < 0)
		goto fail;
	if ((size_t)stored != n) {
		err_setc(e, ERR_DB, "metrics", "stored %lld of %zu metrics", stored, n);
		goto fail;
	}
	free(v);
	free(rows);
	return 0;
fail:
	free(v);
	free(rows);
	return -1;
}
