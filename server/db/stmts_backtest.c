/* Statements of backtests (server/detect/backtest.c, db/backtest.c): reads only; see db.h. */
#include "server/db/stmts.h"

const struct db_stmt_def db_stmts_backtest[DB_NR_STMTS] = {
	/* $1 plan: the setups its jobs put runs into */
	[ST_BACKTEST_SETUPS] = { "backtest_setups",
				 "SELECT s.id, t.name, s.params::text, s.kconfig, s.compiler, s.tbox_group, s.mode, "
				 "s.monitors FROM setups s JOIN testcases t ON t.id = s.testcase_id WHERE s.id IN "
				 "(SELECT r.setup_id FROM runs r JOIN jobs j ON j.id = r.job_id "
				 "JOIN plans p ON p.id = j.plan_id WHERE p.name = $1) ORDER BY s.id" },
	/* $1 setup: every record, whatever its state */
	[ST_BACKTEST_RECORDS] = { "backtest_records",
				  "SELECT id, metric_id, good_commit_id, bad_commit_id, state FROM regressions "
				  "WHERE setup_id = $1::bigint ORDER BY id" },
	/* $1 setup $2 since: its commits dated since then (commit time, else first seen) */
	[ST_BACKTEST_SINCE] = { "backtest_since",
				"SELECT DISTINCT c.id FROM runs r JOIN commits c ON c.id = r.commit_id "
				"WHERE r.setup_id = $1::bigint AND coalesce(c.commit_time, c.first_seen) >= "
				"$2::timestamptz ORDER BY c.id" },
};
