#include "server/detect.h"
#include "server/db/db.h"
#include "server/http.h"
#include "server/regressions.h"
#include "stats/compare.h"
#include "stats/detect.h"
#include "buf.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

#define MONITOR_MIN_CHANGE_PCT 5.0
#define STALE_CHECK_S 60

struct detect_thread {
	struct server *srv;
	pthread_t thread;
	int pipefd[2];
	atomic_int stopping;
};

/* One series: per commit (pushed into the detector) its id and its samples. */
struct series {
	long long *commit; /* commits.id per series position */
	size_t *first;	   /* first sample of each position in vals */
	size_t *count;	   /* samples of each position */
	double *vals;	   /* run means */
	size_t n, nvals;
};

static void fmt_num(char *b, size_t sz, double v, const char **p)
{
	if (isfinite(v)) {
		snprintf(b, sz, "%.17g", v);
		*p = b;
	} else {
		*p = NULL;
	}
}

static const char *kind_of(double change_pct, int hib)
{
	if (hib < 0 || !isfinite(change_pct) || change_pct == 0)
		return "change";
	return (change_pct < 0) == (hib == 1) ? "regression" : "improvement";
}

/* samples of series positions [lo, hi) as one borrowed range of vals */
static const double *side(const struct series *s, size_t lo, size_t hi, size_t *n)
{
	*n = hi > lo ? s->first[hi - 1] + s->count[hi - 1] - s->first[lo] : 0;
	return s->vals + (hi > lo ? s->first[lo] : 0);
}

/*
 * Rule (b) of regressions.h: at least `need` commits on the after side,
 * the median of each of the first `need` of them nearer the after level
 * than the before level, and the last good commit's median nearer the
 * before level (so the step is at this commit, not one next to it).
 */
static int step_holds(const struct detect_series *ds, size_t idx, size_t hi, size_t need,
		      const struct change_point *cp)
{
	double mid = (cp->before + cp->after) / 2;
	int down = cp->after < cp->before;

	if (!isfinite(mid) || cp->after == cp->before || hi - idx < need || idx == 0)
		return 0;
	if ((ds->med[idx - 1] < mid) == down)
		return 0;
	for (size_t i = idx; i < idx + need; i++)
		if ((ds->med[i] < mid) != down)
			return 0;
	return 1;
}

static int history(PGconn *c, long long id, const char *from, const char *to, const char *note,
		   struct err *e)
{
	char idb[24];
	const char *p[6] = { idb, "detector", NULL, from, to, note };
	PGresult *r;

	snprintf(idb, sizeof(idb), "%lld", id);
	r = db_exec(c, ST_REGR_HISTORY_ADD, 6, p, e);
	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

/* Stores the change points of one detected series; appends the record ids to *kept. */
static int store_series(PGconn *c, long long setup_id, const char *metric_id, const char *name,
			int hib, int is_monitor, const struct series *s,
			const struct detect_series *ds, const struct config *cfg, struct buf *kept,
			struct detect_setup_stats *st, struct err *e)
{
	size_t w = ds->opts.window;

	for (size_t k = 0; k < ds->ncp; k++) {
		const struct change_point *cp = &ds->cp[k];
		size_t idx = cp->index;
		size_t prev = k ? ds->cp[k - 1].index : 0;
		size_t next = k + 1 < ds->ncp ? ds->cp[k + 1].index : s->n;
		size_t lo = idx > w && idx - w > prev ? idx - w : prev;
		size_t hi = idx + w < next ? idx + w : next;
		struct compare_opts co;
		struct compare_result seg, pair;
		const double *a, *b;
		size_t na, nb;
		int confirm;
		const char *kind;
		char nums[15][32], ids[3][24], note[512];
		const char *p[23];
		PGresult *r;
		long long id;
		int was_null;
		char old_state[16], new_state[16];

		if (idx == 0 || idx >= s->n)
			continue;
		compare_opts_init(&co);
		if (is_monitor)
			co.floor_pct = co.monitor_floor_pct;
		a = side(s, lo, idx, &na);
		b = side(s, idx, hi, &nb);
		compare_samples(a, na, b, nb, &co, &seg);
		a = side(s, idx - 1, idx, &na);
		b = side(s, idx, idx + 1, &nb);
		compare_samples(a, na, b, nb, &co, &pair);
		confirm = pair.verdict == VERDICT_DIFFERENT ||
			  (seg.verdict == VERDICT_DIFFERENT &&
			   step_holds(ds, idx, hi, (size_t)cfg->detect_confirm_commits, cp));
		kind = kind_of(isfinite(seg.change_pct) ? seg.change_pct : cp->change_pct, hib);

		snprintf(ids[0], 24, "%lld", setup_id);
		snprintf(ids[1], 24, "%lld", s->commit[idx - 1]);
		snprintf(ids[2], 24, "%lld", s->commit[idx]);
		p[0] = ids[0];
		p[1] = metric_id;
		p[2] = ids[1];
		p[3] = ids[2];
		p[4] = kind;
		fmt_num(nums[0], 32, seg.change_pct, &p[5]);
		fmt_num(nums[1], 32, seg.ci_lo_pct, &p[6]);
		fmt_num(nums[2], 32, seg.ci_hi_pct, &p[7]);
		fmt_num(nums[3], 32, seg.p_value, &p[8]);
		p[9] = verdict_name(seg.verdict);
		fmt_num(nums[4], 32, seg.a.mean, &p[10]);
		fmt_num(nums[5], 32, seg.b.mean, &p[11]);
		fmt_num(nums[6], 32, (double)seg.a.n, &p[12]);
		fmt_num(nums[7], 32, (double)seg.b.n, &p[13]);
		fmt_num(nums[8], 32, (double)(hi - idx), &p[14]);
		fmt_num(nums[9], 32, pair.change_pct, &p[15]);
		fmt_num(nums[10], 32, pair.p_value, &p[16]);
		p[17] = verdict_name(pair.verdict);
		fmt_num(nums[11], 32, cp->before, &p[18]);
		fmt_num(nums[12], 32, cp->after, &p[19]);
		fmt_num(nums[13], 32, cp->change_pct, &p[20]);
		fmt_num(nums[14], 32, cp->p_value, &p[21]);
		p[22] = confirm ? "t" : "f";
		r = db_exec(c, ST_REGR_COVERING, 4, p, e);
		if (!r)
			return -1;
		if (PQntuples(r)) {
			/* already being bisected (or settled) under a wider range: keep that one */
			if (buf_addf(kept, "%s%s", kept->len > 1 ? "," : "", PQgetvalue(r, 0, 0)))
				abort();
			PQclear(r);
			continue;
		}
		PQclear(r);
		r = db_exec(c, ST_REGR_UPSERT, 23, p, e);
		if (!r)
			return -1;
		if (PQntuples(r) != 1) {
			PQclear(r);
			return err_set(e, 500, "db_error", "regr_upsert", "upsert returned no row");
		}
		id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		was_null = PQgetisnull(r, 0, 1);
		snprintf(old_state, sizeof(old_state), "%s", PQgetvalue(r, 0, 1));
		snprintf(new_state, sizeof(new_state), "%s", PQgetvalue(r, 0, 2));
		PQclear(r);
		if (buf_addf(kept, "%s%lld", kept->len > 1 ? "," : "", id))
			abort();
		st->changes++;
		if (was_null) {
			st->created++;
			snprintf(note, sizeof(note),
				 "detected %s of '%s': %+.2f%% (CI %+.2f%% .. %+.2f%%), p %.3g, "
				 "%zu vs %zu runs, %s", kind, name, seg.change_pct, seg.ci_lo_pct,
				 seg.ci_hi_pct, seg.p_value, seg.a.n, seg.b.n, verdict_name(seg.verdict));
			if (history(c, id, NULL, "new", note, e))
				return -1;
		}
		if ((was_null || !strcmp(old_state, "new")) && !strcmp(new_state, "confirmed")) {
			st->confirmed++;
			if (pair.verdict == VERDICT_DIFFERENT)
				snprintf(note, sizeof(note),
					 "confirmed: last good vs first bad commit is different "
					 "(%+.2f%%, p %.3g, %zu vs %zu runs)", pair.change_pct,
					 pair.p_value, pair.a.n, pair.b.n);
			else
				snprintf(note, sizeof(note),
					 "confirmed: the step holds over %zu commits after it and the "
					 "two sides are different (p %.3g)", hi - idx, seg.p_value);
			if (history(c, id, "new", "confirmed", note, e))
				return -1;
		}
	}
	return 0;
}

static int hib_of(PGresult *r, int row, int col)
{
	if (PQgetisnull(r, row, col))
		return -1;
	return PQgetvalue(r, row, col)[0] == 't';
}

int detect_setup(PGconn *c, long long setup_id, const struct config *cfg,
		 struct detect_setup_stats *st, struct err *e)
{
	char idb[24];
	const char *p[1] = { idb };
	struct buf kept = BUF_INIT(0);
	struct series s;
	PGresult *r;
	int n, ret = -1;

	memset(st, 0, sizeof(*st));
	snprintf(idb, sizeof(idb), "%lld", setup_id);
	if (db_begin(c, e))
		return -1;
	/* inside the transaction: the series read and the records written agree */
	r = db_exec(c, ST_DETECT_SERIES, 1, p, e);
	if (!r) {
		db_rollback(c);
		return -1;
	}
	n = PQntuples(r);
	s.commit = xcalloc((size_t)n + 1, sizeof(*s.commit));
	s.first = xcalloc((size_t)n + 1, sizeof(*s.first));
	s.count = xcalloc((size_t)n + 1, sizeof(*s.count));
	s.vals = xcalloc((size_t)n + 1, sizeof(*s.vals));
	if (buf_addch(&kept, '{'))
		abort();

	for (int i = 0; i < n;) {
		const char *metric = PQgetvalue(r, i, 0);
		struct detect_series ds;
		struct detect_opts o;
		int j = i;

		detect_opts_init(&o);
		o.window = (size_t)cfg->detect_window;
		o.p_max = cfg->detect_p_max;
		o.min_change_pct = cfg->detect_min_change_pct;
		if (PQgetvalue(r, i, 3)[0] == 't' && o.min_change_pct < MONITOR_MIN_CHANGE_PCT)
			o.min_change_pct = MONITOR_MIN_CHANGE_PCT;
		detect_series_init(&ds, &o);
		s.n = s.nvals = 0;
		/* rows of one metric, grouped by commit (consecutive in series order) */
		while (j < n && !strcmp(PQgetvalue(r, j, 0), metric)) {
			long long cid = strtoll(PQgetvalue(r, j, 4), NULL, 10);
			size_t start = s.nvals;

			while (j < n && !strcmp(PQgetvalue(r, j, 0), metric) &&
			       strtoll(PQgetvalue(r, j, 4), NULL, 10) == cid) {
				const char *v = PQgetvalue(r, j, 5);
				s.vals[s.nvals++] = *v ? strtod(v, NULL) : NAN;
				j++;
			}
			/* a commit without a finite value is not part of the series */
			if (detect_series_push(&ds, s.vals + start, s.nvals - start) == 0) {
				s.commit[s.n] = cid;
				s.first[s.n] = start;
				s.count[s.n] = s.nvals - start;
				s.n++;
			} else {
				s.nvals = start;
			}
		}
		detect_series_run(&ds);
		st->series++;
		st->points += s.n;
		ret = store_series(c, setup_id, metric, PQgetvalue(r, i, 1), hib_of(r, i, 2),
				   PQgetvalue(r, i, 3)[0] == 't', &s, &ds, cfg, &kept, st, e);
		detect_series_release(&ds);
		if (ret)
			goto out;
		i = j;
	}
	if (buf_addch(&kept, '}'))
		abort();
	{
		const char *u[2] = { idb, kept.data };
		PGresult *d = db_exec(c, ST_REGR_UNDETECT, 2, u, e);
		if (!d) {
			ret = -1;
			goto out;
		}
		st->withdrawn = strtoull(PQgetvalue(d, 0, 0), NULL, 10);
		st->undetected = strtoull(PQgetvalue(d, 0, 1), NULL, 10);
		PQclear(d);
	}
	ret = db_commit(c, e);
out:
	if (ret)
		db_rollback(c);
	PQclear(r);
	free(s.commit);
	free(s.first);
	free(s.count);
	free(s.vals);
	buf_release(&kept);
	return ret;
}

/* Claims and examines queued setups until none is left; -1 on a db error. */
static int drain_queue(struct detect_thread *t, PGconn *c)
{
	struct err e;

	while (!atomic_load(&t->stopping)) {
		struct detect_setup_stats st;
		char qid[24];
		const char *p[1] = { qid };
		long long setup;
		PGresult *r = db_exec(c, ST_DETECT_CLAIM, 0, NULL, &e);

		if (!r)
			goto fail;
		if (PQntuples(r) == 0) {
			PQclear(r);
			return 0;
		}
		snprintf(qid, sizeof(qid), "%s", PQgetvalue(r, 0, 0));
		setup = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
		PQclear(r);
		if (detect_setup(c, setup, t->srv->cfg, &st, &e)) {
			fprintf(stderr, "regtrack-server: detect: setup %lld: %s\n", setup, e.message);
			/* give the claim back; it is retried on the next round */
			r = db_exec(c, ST_DETECT_RELEASE, 1, p, &e);
			if (r)
				PQclear(r);
			return -1;
		}
		r = db_exec(c, ST_DETECT_DONE, 1, p, &e);
		if (!r)
			goto fail;
		PQclear(r);
	}
	return 0;
fail:
	fprintf(stderr, "regtrack-server: detect: %s\n", e.message);
	return -1;
}

static long long mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec;
}

static void *detect_main(void *arg)
{
	struct detect_thread *t = arg;
	long long last_stale = 0;
	struct err e;

	while (!atomic_load(&t->stopping)) {
		struct pollfd pf[2] = { { t->pipefd[0], POLLIN, 0 }, { -1, POLLIN, 0 } };
		PGconn *c = db_conn(t->srv->db, &e);
		PGnotify *nf;

		if (c && db_cmd(c, "LISTEN regtrack_detect", &e))
			c = NULL;
		if (c) {
			/* notifications so far are covered by the pass below */
			PQconsumeInput(c);
			while ((nf = PQnotifies(c)))
				PQfreemem(nf);
			if (mono_s() - last_stale >= STALE_CHECK_S) {
				PGresult *r = db_exec(c, ST_DETECT_REQUEUE_STALE, 0, NULL, &e);
				if (r) {
					PQclear(r);
					last_stale = mono_s();
				}
			}
			/* after a failure, wait the full poll time before retrying */
			if (drain_queue(t, c) == 0 && PQstatus(c) == CONNECTION_OK &&
			    PQtransactionStatus(c) == PQTRANS_IDLE)
				pf[1].fd = PQsocket(c);
		}
		if (atomic_load(&t->stopping))
			break;
		if (poll(pf, 2, (int)t->srv->cfg->detect_poll_ms) < 0 && errno != EINTR)
			break;
		if (pf[0].revents) {
			char x[16];
			while (read(t->pipefd[0], x, sizeof(x)) > 0)
				;
		}
	}
	return NULL;
}

struct detect_thread *detect_thread_start(struct server *srv)
{
	struct detect_thread *t = xcalloc(1, sizeof(*t));

	t->srv = srv;
	if (pipe(t->pipefd)) {
		fprintf(stderr, "regtrack-server: detect: pipe: %s\n", strerror(errno));
		free(t);
		return NULL;
	}
	fcntl(t->pipefd[0], F_SETFL, O_NONBLOCK);
	fcntl(t->pipefd[1], F_SETFL, O_NONBLOCK);
	if (pthread_create(&t->thread, NULL, detect_main, t)) {
		fprintf(stderr, "regtrack-server: detect: cannot start the thread\n");
		close(t->pipefd[0]);
		close(t->pipefd[1]);
		free(t);
		return NULL;
	}
	return t;
}

void detect_thread_stop(struct detect_thread *t)
{
	if (!t)
		return;
	atomic_store(&t->stopping, 1);
	if (write(t->pipefd[1], "x", 1) < 0 && errno != EAGAIN)
		fprintf(stderr, "regtrack-server: detect: wake: %s\n", strerror(errno));
	pthread_join(t->thread, NULL);
	close(t->pipefd[0]);
	close(t->pipefd[1]);
	free(t);
}
