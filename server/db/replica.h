#ifndef REGTRACK_SERVER_DB_REPLICA_H
#define REGTRACK_SERVER_DB_REPLICA_H

#include <stdint.h>

#include "err.h"

struct db_conn;

/*
 * What the read replica's lag is measured with (server/replica.h): the
 * primary's WAL position and a hot standby's replay position, both as
 * bytes since LSN 0/0, so that "the standby has replayed everything the
 * primary had written at time t" is one comparison.
 */

/*
 * *lsn = the primary's current WAL write position (pg_current_wal_lsn()).
 * 0, or -1 with e as the store fills it (db.h) (503 "db_unavailable" when the
 * connection broke; 500 "db_error" on a server in recovery, which has no
 * current position: a standby given as the primary).
 */
int db_wal_position(struct db_conn *primary, uint64_t *lsn, struct err *e)
	__attribute__((warn_unused_result));

/*
 * On a standby: *in_recovery = 1 while it replays a primary's WAL (0: it
 * is a primary itself, promoted or misconfigured), *replay_lsn = the end
 * of the last WAL record it replayed (pg_last_wal_replay_lsn(); 0 when it
 * has replayed none or is not in recovery). 0, or -1 with e as above.
 */
int db_standby_position(struct db_conn *standby, int *in_recovery, uint64_t *replay_lsn,
			struct err *e) __attribute__((warn_unused_result));

#endif
