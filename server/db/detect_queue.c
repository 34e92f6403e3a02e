/*
 * The detection queue (detect_queue, sql/0003): a stored run queues its
 * setup, the detect thread claims one setup at a time, and gives it back
 * or deletes it when done (regressions.h and runs.h declare the calls);
 * the statements they are made with.
 */
#include "server/db/regressions.h"
#include "server/db/runs.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"

#include <stdlib.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum detect_queue_stmt {
	ST_DETECT_CLAIM,
	ST_DETECT_DONE,
	ST_DETECT_ENQUEUE,
	ST_DETECT_RELEASE,
	ST_DETECT_REQUEUE_STALE,
	NR_DETECT_QUEUE_STMTS
};

static const struct db_stmt_def stmts[NR_DETECT_QUEUE_STMTS] = {
	/* the oldest queued setup that no one is examining now */
	[ST_DETECT_CLAIM] = { "detect_claim",
			      "UPDATE detect_queue SET claimed_at = now() WHERE id = ("
			      "SELECT q.id FROM detect_queue q WHERE q.claimed_at IS NULL AND NOT EXISTS ("
			      "SELECT 1 FROM detect_queue o WHERE o.setup_id = q.setup_id AND o.claimed_at IS NOT NULL) "
			      "ORDER BY q.id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, setup_id" },
	[ST_DETECT_DONE] = { "detect_done", "DELETE FROM detect_queue WHERE id = $1::bigint" },
	/* the setup of a stored run waits for detection; cheap, in the ingest
	 * transaction. DO UPDATE, not DO NOTHING: the no-op update locks the
	 * pending row until the run is committed, so the detector's claim (FOR
	 * UPDATE SKIP LOCKED) cannot take it and read the series without this
	 * run, then delete the only row that stood for it (a lost run) */
	[ST_DETECT_ENQUEUE] = { "detect_enqueue",
				"INSERT INTO detect_queue (setup_id) VALUES ($1::bigint) "
				"ON CONFLICT (setup_id) WHERE claimed_at IS NULL "
				"DO UPDATE SET setup_id = EXCLUDED.setup_id" },
	/* a claim given back after a failure: queued again (unless already queued) */
	[ST_DETECT_RELEASE] = { "detect_release",
				"WITH d AS (DELETE FROM detect_queue WHERE id = $1::bigint RETURNING setup_id) "
				"INSERT INTO detect_queue (setup_id) SELECT setup_id FROM d "
				"ON CONFLICT (setup_id) WHERE claimed_at IS NULL DO NOTHING" },
	/* claims of a server that died mid-detection */
	[ST_DETECT_REQUEUE_STALE] = { "detect_requeue_stale",
				      "WITH d AS (DELETE FROM detect_queue WHERE claimed_at < now() - interval '10 minutes' "
				      "RETURNING setup_id) INSERT INTO detect_queue (setup_id) SELECT DISTINCT setup_id FROM d "
				      "ON CONFLICT (setup_id) WHERE claimed_at IS NULL DO NOTHING" },
};

const struct db_stmt_table db_stmts_detect_queue = DB_STMT_TABLE(stmts);

/* ST_DETECT_CLAIM's columns */
enum { CLAIM_ID, CLAIM_SETUP };

int db_detect_claim(struct db_conn *c, long long *queue_id, long long *setup_id, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_DETECT_CLAIM], 0, NULL, 0, e);

	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	*queue_id = strtoll(PQgetvalue(r, 0, CLAIM_ID), NULL, 10);
	*setup_id = strtoll(PQgetvalue(r, 0, CLAIM_SETUP), NULL, 10);
	PQclear(r);
	return 1;
}

int db_detect_done(struct db_conn *c, long long queue_id, struct err *e)
{
	struct db_param p[1] = { db_int8(queue_id) };

	return db_query_do(c, &stmts[ST_DETECT_DONE], 1, p, e);
}

int db_detect_release(struct db_conn *c, long long queue_id, struct err *e)
{
	struct db_param p[1] = { db_int8(queue_id) };

	return db_query_do(c, &stmts[ST_DETECT_RELEASE], 1, p, e);
}

int db_detect_enqueue(struct db_conn *c, long long setup_id, struct err *e)
{
	struct db_param p[1] = { db_id(setup_id) };

	return db_query_do(c, &stmts[ST_DETECT_ENQUEUE], 1, p, e);
}

int db_detect_listen(struct db_conn *c, struct err *e)
{
	/* the channel of detect_queue's trigger (sql/0003_regressions.sql) */
	return db_cmd(c, "LISTEN regtrack_detect", e);
}

int db_detect_requeue_stale(struct db_conn *c, struct err *e)
{
	return db_query_do(c, &stmts[ST_DETECT_REQUEUE_STALE], 0, NULL, e);
}
