#ifndef REGTRACK_SERVER_REPLICA_H
#define REGTRACK_SERVER_REPLICA_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

struct db_conn;

/*
 * The read replica: with `db_replica` (a libpq conninfo of a PostgreSQL
 * hot standby streaming from the primary `db`) set, the reads that
 * tolerate a few seconds of lag (routes marked ROUTE_REPLICA in
 * server/api/routes.c: dashboard lists, series, compare) go to a pool of
 * connections to the standby, one per server thread as `db` has. Writes
 * and every read that decides something (leases, bisect steps, detection,
 * ingest, auth) stay on the primary.
 *
 * A watcher thread measures the lag once a second: the primary's WAL
 * position, then the standby's replay position; the lag is how long ago
 * the primary had written WAL the standby has not replayed yet (0 when it
 * has replayed all). A read goes to the standby only while the last check
 * reached both, the standby is in recovery, and that lag plus the time
 * since the check is within `db_replica_max_lag`; otherwise, and when a
 * connection to the standby fails, it goes to the primary: a log line
 * when the state changes, a field in /healthz, a count in /metrics, and
 * nothing else a user sees.
 */
struct replica;
struct db;
struct config;

/* What the last check found (the /healthz "state" in parentheses). */
enum replica_state {
	REPLICA_UNKNOWN,     /* "unknown": not checked yet, or the primary did not answer */
	REPLICA_OK,	     /* "ok": reads go to the standby */
	REPLICA_LAGGING,     /* "lagging": behind by more than db_replica_max_lag */
	REPLICA_DOWN,	     /* "down": no connection, or a statement on it failed */
	REPLICA_NOT_STANDBY, /* "not_standby": not in recovery (promoted: a failover) */
};

/* The primary's WAL position at one check: when (mono_ms()) and where (bytes). */
struct replica_sample {
	int64_t at_ms;
	uint64_t lsn;
};

/*
 * The lag in ms at now_ms of a standby that has replayed up to replay_lsn,
 * given samples[0..n) of the primary's position, oldest first (positions
 * never decrease). 0 when replay_lsn reaches the newest sample; otherwise
 * now_ms minus the time of the newest sample the standby has replayed
 * (what it lacks was written after it), or of the oldest sample when it
 * has replayed none of them. Pure; n == 0 gives 0.
 */
int64_t replica_lag_ms(const struct replica_sample *samples, size_t n, uint64_t replay_lsn,
		       int64_t now_ms);

/*
 * Starts the read pool and its watcher for cfg->db_replica (borrowed for
 * the replica's life, as cfg is), NULL when it is "" (no replica: every
 * read on the primary). statement_timeout as the primary's pool has it;
 * primary (borrowed, outlives r) takes the reads its statements fail
 * (db_set_fallback()).
 * Never fails: a standby that cannot be reached is "down" until it can.
 */
struct replica *replica_start(const struct config *cfg, struct db *primary);
/* Stops the watcher and frees r (its pool's connections close with their threads). NULL: no-op. */
void replica_stop(struct replica *r);

/*
 * The calling thread's connection for a lag-tolerant read. *pick is the
 * request's choice, 0 before its first read: then the standby's
 * connection when r is usable now (see above), else the primary's
 * db_conn(primary); *pick becomes 2 (standby) or 1 (primary) and later
 * calls of the request keep it, so that its reads see one database. A
 * connection to the standby that fails sends the read to the primary
 * (*pick 1). Borrowed as db_conn()'s; errors are db_conn()'s of the
 * primary (503), never the standby's. r may be NULL (*pick 1).
 */
struct db_conn *replica_conn(struct replica *r, struct db *primary, int *pick, struct err *e);

/*
 * The replica's part of /healthz: {"state": "ok"|..., "lag_s": number or
 * null, "max_lag_s": number}, or the string "off" when r is NULL. New
 * reference.
 */
json_t *replica_health_json(struct replica *r);
/*
 * The replica's Prometheus lines into b: the lag, and the lag-tolerant
 * reads served by each side. Nothing when r is NULL. 0 or -1 (b's cap).
 */
int replica_metrics(struct replica *r, struct buf *b);

#endif
