/*
 * db_subject_table(): every subject's statement table, each defined beside
 * its readers; db_stmt_by_name() and db_stmts_check() over all of them.
 */
#include "server/db/stmts.h"

#include <stddef.h>
#include <string.h>

static const struct db_stmt_table *const subject_tables[] = {
	&db_stmts_inbox,       &db_stmts_inbox_series, &db_stmts_inbox_reply,
	&db_stmts_tokens,      &db_stmts_kconfig,      &db_stmts_backtest,
	&db_stmts_quality,     &db_stmts_plans,	       &db_stmts_meta,
	&db_stmts_jobs,	       &db_stmts_profiles,     &db_stmts_series,
	&db_stmts_trees,       &db_stmts_bisects,      &db_stmts_bisect_regs,
	&db_stmts_requests,    &db_stmts_request_mail, &db_stmts_mail_report,
	&db_stmts_mail_subs,   &db_stmts_outbox,       &db_stmts_runs,
	&db_stmts_run_values,  &db_stmts_detect_queue, &db_stmts_regressions,
	&db_stmts_regr_json,   &db_stmts_tip,	       &db_stmts_det_series,
	&db_stmts_det_explain, &db_stmts_leases,       &db_stmts_machines,
};

const struct db_stmt_table *db_subject_table(size_t i)
{
	return i < sizeof(subject_tables) / sizeof(subject_tables[0]) ? subject_tables[i] : NULL;
}

const struct db_stmt_def *db_stmt_by_name(const char *name)
{
	const struct db_stmt_table *t;

	for (size_t k = 0; (t = db_subject_table(k)); k++)
		for (int i = 0; i < t->n; i++)
			if (t->defs[i].name && !strcmp(t->defs[i].name, name))
				return &t->defs[i];
	return NULL;
}

const char *db_stmts_check(void)
{
	const struct db_stmt_table *t;

	for (size_t k = 0; (t = db_subject_table(k)); k++)
		for (int i = 0; i < t->n; i++) {
			if (!t->defs[i].name || !t->defs[i].sql)
				return "(a table entry without a name or SQL)";
			if (db_stmt_by_name(t->defs[i].name) != &t->defs[i])
				return t->defs[i].name;
		}
	return NULL;
}
