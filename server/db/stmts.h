#ifndef REGTRACK_SERVER_DB_STMTS_H
#define REGTRACK_SERVER_DB_STMTS_H

#include "server/db/db.h"

/*
 * The statement tables, one per subject (db/stmts_<subject>.c), each
 * indexed by enum db_stmt and holding only its subject's entries;
 * db_stmt_def() finds a statement's entry. Parameters are always $n;
 * nothing is ever spliced into SQL text.
 */
extern const struct db_stmt_def db_stmts_backtest[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_bisects[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_jobs[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_kconfig[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_mail[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_meta[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_plans[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_profiles[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_regressions[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_requests[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_runs[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_series[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_tokens[DB_NR_STMTS];
extern const struct db_stmt_def db_stmts_trees[DB_NR_STMTS];

/* series order: the tree's history once known, then commit time, then first seen */
#define COMMIT_ORDER "c.topo_order NULLS LAST, c.commit_time NULLS LAST, c.first_seen, c.id"

#endif
