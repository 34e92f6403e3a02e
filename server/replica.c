#include "server/replica.h"
#include "clock.h"
#include "server/bgthread.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/db/replica.h"
#include "server/log.h"
#include "xalloc.h"

#include <stdatomic.h>
#include <stdlib.h>

/* one check a second; the samples cover two minutes, past any sane bound */
#define CHECK_MS 1000
#define NR_SAMPLES 128

struct replica {
	const struct config *cfg;
	struct db *pool; /* connections to the standby, one per server thread */
	struct bgthread *thread;
	long max_lag_ms;
	/* the watcher's own, on its thread only */
	struct db_conn *primary, *standby;
	struct replica_sample ring[NR_SAMPLES]; /* oldest first from ring[head] */
	size_t head, n;
	/* what request threads read */
	atomic_int state;	 /* enum replica_state */
	atomic_llong lag_ms;	 /* at the last check; -1 when unknown */
	atomic_llong checked_ms; /* mono_ms() of that check */
	atomic_ulong reads[2];	 /* lag-tolerant reads served: [0] primary, [1] standby */
};

static const char *const state_names[] = {
	[REPLICA_UNKNOWN] = "unknown",	       [REPLICA_OK] = "ok",
	[REPLICA_LAGGING] = "lagging",	       [REPLICA_DOWN] = "down",
	[REPLICA_NOT_STANDBY] = "not_standby",
};

int64_t replica_lag_ms(const struct replica_sample *s, size_t n, uint64_t replay_lsn,
		       int64_t now_ms)
{
	size_t k = n;

	if (!n || replay_lsn >= s[n - 1].lsn)
		return 0;
	while (k > 0 && s[k - 1].lsn > replay_lsn)
		k--;
	/* s[k] is the oldest sample not replayed: what is missing came after s[k - 1] */
	return now_ms - s[k ? k - 1 : 0].at_ms;
}

/*
 * The state a check found; a line in the log when it changes (and, for a
 * standby that stays down, not once a second). why: what failed, or NULL.
 */
static void set_state(struct replica *r, enum replica_state st, long long lag_ms, const char *why)
{
	enum replica_state old = atomic_exchange(&r->state, st);

	atomic_store(&r->lag_ms, lag_ms);
	atomic_store(&r->checked_ms, (long long)mono_ms());
	if (old == st)
		return;
	if (st == REPLICA_OK)
		slog_info("replica: ok (lag %lld ms): lag-tolerant reads go to the standby",
			  lag_ms);
	else if (st == REPLICA_LAGGING)
		slog_warn("replica: %lld ms behind (db_replica_max_lag %ld s): reading from the primary",
			  lag_ms, r->max_lag_ms / 1000);
	else
		slog_warn("replica: %s%s%s: reading from the primary", state_names[st],
			  why ? ": " : "", why ? why : "");
}

static void drop(struct db_conn **c)
{
	db_close(*c);
	*c = NULL;
}

static long replica_step(void *arg, int *fd)
{
	struct replica *r = arg;
	struct err e;
	uint64_t pos, replay;
	int in_recovery;
	size_t i;

	(void)fd;
	if ((!r->primary && !(r->primary = db_connect_once(r->cfg->db, &e))) ||
	    db_wal_position(r->primary, &pos, &e)) {
		drop(&r->primary);
		set_state(r, REPLICA_UNKNOWN, -1, e.message);
		return CHECK_MS;
	}
	i = (r->head + r->n) % NR_SAMPLES;
	r->ring[i] = (struct replica_sample){ mono_ms(), pos };
	if (r->n < NR_SAMPLES)
		r->n++;
	else
		r->head = (r->head + 1) % NR_SAMPLES;
	if ((!r->standby && !(r->standby = db_connect_standby(r->cfg->db_replica, &e))) ||
	    db_standby_position(r->standby, &in_recovery, &replay, &e)) {
		drop(&r->standby);
		set_state(r, REPLICA_DOWN, -1, e.message);
		return CHECK_MS;
	}
	if (!in_recovery) {
		set_state(r, REPLICA_NOT_STANDBY, -1, "it is not in recovery (promoted?)");
		return CHECK_MS;
	}
	{
		/* the ring in order, oldest first */
		struct replica_sample s[NR_SAMPLES];
		long long lag;

		for (size_t k = 0; k < r->n; k++)
			s[k] = r->ring[(r->head + k) % NR_SAMPLES];
		lag = replica_lag_ms(s, r->n, replay, mono_ms());
		set_state(r, lag <= r->max_lag_ms ? REPLICA_OK : REPLICA_LAGGING, lag, NULL);
	}
	return CHECK_MS;
}

struct replica *replica_start(const struct config *cfg, struct db *primary)
{
	struct replica *r;
	struct err e;

	if (!cfg->db_replica[0])
		return NULL;
	r = xcalloc(1, sizeof(*r));
	r->cfg = cfg;
	r->max_lag_ms = cfg->db_replica_max_lag * 1000;
	r->pool = db_new_standby(cfg->db_replica, cfg->db_timeout_ms);
	db_set_fallback(r->pool, primary);
	atomic_init(&r->state, REPLICA_UNKNOWN);
	atomic_init(&r->lag_ms, -1);
	r->thread = bgthread_start("replica", replica_step, r, &e);
	if (!r->thread)
		/* no watcher, never usable: every read on the primary, as without a replica */
		slog_error("replica: %s: reading from the primary", e.message);
	return r;
}

void replica_stop(struct replica *r)
{
	if (!r)
		return;
	bgthread_stop(r->thread);
	db_close(r->primary);
	db_close(r->standby);
	db_free(r->pool);
	free(r);
}

/* the last check found the standby within the bound, and it cannot have fallen behind since */
static int usable(struct replica *r)
{
	long long lag = atomic_load(&r->lag_ms);

	return atomic_load(&r->state) == REPLICA_OK && lag >= 0 &&
	       lag + (mono_ms() - atomic_load(&r->checked_ms)) <= r->max_lag_ms;
}

struct db_conn *replica_conn(struct replica *r, struct db *primary, int *pick, struct err *e)
{
	int first = !*pick;

	if (r && (*pick == 2 || (first && usable(r)))) {
		struct err re;
		struct db_conn *c = db_conn(r->pool, &re);

		if (c) {
			if (first)
				atomic_fetch_add(&r->reads[1], 1);
			*pick = 2;
			return c;
		}
		/* until the watcher's next check finds it again */
		if (atomic_exchange(&r->state, REPLICA_DOWN) != REPLICA_DOWN)
			slog_warn("replica: down: %s: reading from the primary", re.message);
	}
	if (r && *pick != 1)
		atomic_fetch_add(&r->reads[0], 1);
	*pick = 1;
	return db_conn(primary, e);
}

json_t *replica_health_json(struct replica *r)
{
	long long lag;

	if (!r)
		return json_string("off");
	lag = atomic_load(&r->lag_ms);
	return json_pack("{s:s,s:o,s:i}", "state", state_names[atomic_load(&r->state)], "lag_s",
			 lag < 0 ? json_null() : json_real((double)lag / 1000), "max_lag_s",
			 (json_int_t)(r->max_lag_ms / 1000));
}

int replica_metrics(struct replica *r, struct buf *b)
{
	long long lag;

	if (!r)
		return 0;
	lag = atomic_load(&r->lag_ms);
	return buf_addf(b,
			"# HELP regtrack_replica_up 1 while lag-tolerant reads go to the standby.\n"
			"# TYPE regtrack_replica_up gauge\nregtrack_replica_up %d\n"
			"# HELP regtrack_replica_lag_seconds The standby's lag at the last check "
			"(-1: unknown).\n"
			"# TYPE regtrack_replica_lag_seconds gauge\nregtrack_replica_lag_seconds %.3f\n"
			"# HELP regtrack_replica_reads_total Lag-tolerant reads by where they went.\n"
			"# TYPE regtrack_replica_reads_total counter\n"
			"regtrack_replica_reads_total{db=\"primary\"} %lu\n"
			"regtrack_replica_reads_total{db=\"replica\"} %lu\n",
			usable(r), lag < 0 ? -1.0 : (double)lag / 1000, atomic_load(&r->reads[0]),
			atomic_load(&r->reads[1]));
}
