#ifndef REGTRACK_SERVER_MAIL_GATHER_H
#define REGTRACK_SERVER_MAIL_GATHER_H

#include <jansson.h>

#include "err.h"
#include "report.h"
#include "server/config.h"
#include "server/db/mail.h"
#include "server/db/regressions.h"

struct db_conn;

/*
 * What a report mail says, gathered from the database (db/mail.h) into
 * the struct report_render() takes (lib/report.h): the regression, for a
 * bisect report its culprit, parent and steps, the comparison table
 * (parent vs first bad commit, compared as GET /api/v1/compare does) with
 * the top changed perf-profile.* rows of the profiled runs last, a note
 * when its two sides ran on hosts with different fingerprints, the
 * same change on other arches ("also seen on arm64: -62.0%"), the test
 * machine and the culprit's files; mail_reproduce.h adds how to run its
 * data points again (the curl, the token-free commands, the .config).
 */
struct mail_gathered {
	struct report_input in;	 /* for report_render(); its strings live as long as this */
	const char **file_paths; /* the culprit's files, NULL-terminated; NULL when not known */
	/* private */
	struct db_mail_regression reg;
	struct db_mail_bisect bisect;
	struct db_mail_steps steps;
	struct report_step *step;
	struct db_mail_compare table;
	struct db_mail_compare profile; /* the perf-profile.* rows' comparison */
	struct db_story story;		/* db_regression_story(): the arch, also_seen */
	struct report_also_seen *also;
	struct lkp_row *rows;
	struct db_mail_machine machine;
	struct db_mail_files files_rows;
	struct report_file *files;
	struct report_param *params;
	char **param_vals;
	size_t nr_params;
	json_t *params_json;
	char *author, *email;
	char *reproduce; /* mail_reproduce.h's: the curl */
	char *local[2];	 /* its regtrack-worker commands */
	struct report_command commands[2];
	char *config_url;
	char *host_note;   /* hostfp_note() of the table's sides, or NULL */
	char base_sha[41]; /* in.table_base_sha's storage */
	/* the bisected metric's row: its HL shift (%, NAN when none), direction, verdict */
	double table_hl_pct;
	int table_direction, table_different;
};

/*
 * Gathers the input of a `kind` report of regression `regression_id` into
 * g (which it initialises; release with mail_gather_release() whatever the
 * result). A bisect report names the finished bisect's first bad commit
 * as the culprit, or, without one, the regression's own range. Collects
 * the culprit's files from the tree's mirror when they are not stored
 * yet (a failure there is logged and leaves them unknown).
 * Errors: -1 with e: ERR_NOT_FOUND (404) when there is no such
 * regression, db/mail.h's database errors, gitmirror's when the
 * transaction was lost while collecting the files.
 */
int mail_gather(struct db_conn *c, const struct config *cfg, long long regression_id,
		enum report_kind kind, struct mail_gathered *g, struct err *e)
	__attribute__((warn_unused_result));
void mail_gather_release(struct mail_gathered *g);

#endif
