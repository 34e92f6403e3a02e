/* Statements of .config diffs (api/kconfig.c); see db.h. */
#include "server/db/stmts.h"

#define KCONFIG_ENDS                                                                     \
	"g.id, g.sha, g.subject, bd.id, bd.sha, bd.subject, fb.id, fb.sha, fb.subject, " \
	"p.id, p.sha, p.subject "

const struct db_stmt_def db_stmts_kconfig[DB_NR_STMTS] = {
	/* bisect $1: the same columns, the range being the bisect's good..bad */
	[ST_KCONFIG_BISECT_ENDS] = { "kconfig_bisect_ends",
				     "SELECT rr.setup_id, b.kconfig, b.compiler, b.id, " KCONFIG_ENDS
				     "FROM bisects b JOIN commits g ON g.id = b.good_id JOIN commits bd ON bd.id = b.bad_id "
				     "LEFT JOIN commits fb ON fb.id = b.first_bad_id AND b.state = 'done' "
				     "LEFT JOIN commits p ON p.sha = fb.parents[1] "
				     "LEFT JOIN regressions rr ON rr.id = b.regression_id WHERE b.id = $1::bigint" },
	/* the .config job $1 stored, its commit sha and subject */
	[ST_KCONFIG_JOB] = { "kconfig_job",
			     "SELECT j.kconfig_text, c.sha, c.subject FROM jobs j JOIN commits c ON c.id = j.commit_id "
			     "WHERE j.id = $1::bigint" },
	/* the build of commit $1 with kconfig $2 (compiler $3) that stored a .config: the
	 * bisect $4's own jobs first, then jobs with runs of setup $5, then ok ones, newest */
	[ST_KCONFIG_PICK_JOB] = { "kconfig_pick_job",
				  "SELECT j.id, j.kconfig_text FROM jobs j WHERE j.commit_id = $1::bigint "
				  "AND j.kconfig = $2 AND ($3::text IS NULL OR j.compiler = $3) "
				  "AND j.kconfig_text IS NOT NULL "
				  "ORDER BY coalesce(j.bisect_id = $4::bigint, false) DESC, "
				  "EXISTS (SELECT 1 FROM runs ru WHERE ru.job_id = j.id AND ru.setup_id = $5::bigint) DESC, "
				  "coalesce(j.outcome = 'ok', false) DESC, j.id DESC LIMIT 1" },
	/* regression $1: setup, kconfig, compiler, bisect, then (id, sha, subject) of the last
	 * good and first bad commit, the done bisect's first bad commit and its first parent */
	[ST_KCONFIG_REGRESSION_ENDS] = { "kconfig_regression_ends",
					 "SELECT r.setup_id, s.kconfig, s.compiler, r.bisect_id, " KCONFIG_ENDS
					 "FROM regressions r JOIN setups s ON s.id = r.setup_id "
					 "JOIN commits g ON g.id = r.good_commit_id JOIN commits bd ON bd.id = r.bad_commit_id "
					 "LEFT JOIN bisects b ON b.id = r.bisect_id AND b.state = 'done' "
					 "LEFT JOIN commits fb ON fb.id = b.first_bad_id "
					 "LEFT JOIN commits p ON p.sha = fb.parents[1] WHERE r.id = $1::bigint" },
};
