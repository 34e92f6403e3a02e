/*
 * The culprit's diffstat statements, read by db/trees.c (sql/0007); the
 * rest of the mail subject's sit beside their readers (mail.c,
 * mail_subs.c, outbox.c).
 */
#include "server/db/stmts.h"

const struct db_stmt_def db_stmts_mail[DB_NR_STMTS] = {
	/* commit $1: its sha and whether its diffstat was collected (sql/0007) */
	[ST_MAIL_DIFFSTAT_LOOKUP] = { "mail_diffstat_lookup",
				      "SELECT c.sha, EXISTS (SELECT 1 FROM commit_diffstat d WHERE d.commit_id = c.id) "
				      "FROM commits c WHERE c.id = $1::bigint" },
	/* $1 commit id, $2 [{path, ins, del}] (null counts: binary), $3 files, $4 ins, $5 del;
	 * the first writer wins (a concurrent second one stores nothing) */
	[ST_MAIL_DIFFSTAT_STORE] = { "mail_diffstat_store",
				     "WITH d AS (INSERT INTO commit_diffstat (commit_id, files_changed, insertions, deletions) "
				     "VALUES ($1::bigint, $3::integer, $4::bigint, $5::bigint) ON CONFLICT (commit_id) "
				     "DO NOTHING RETURNING commit_id) "
				     "INSERT INTO commit_files (commit_id, path, insertions, deletions) "
				     "SELECT d.commit_id, f.path, f.ins, f.del FROM d, "
				     "jsonb_to_recordset($2::jsonb) AS f (path text, ins integer, del integer) "
				     "ON CONFLICT DO NOTHING" },
};
