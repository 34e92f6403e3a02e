/* regtrack-server plan apply FILE.json: plans checked, then stored in one transaction (see plan.h). */
#include "server/track/plan.h"
#include "server/db/db.h"
#include "server/db/migrate.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int plan_cli(const char *conninfo, long max_jobs_per_push, long detect_window, int argc,
	     char **argv)
{
	json_error_t je;
	json_t *doc, **plans = NULL;
	enum db_plan_change *changes = NULL;
	size_t n, i;
	struct err e;
	struct db_conn *c = NULL;
	int ret = 1;

	if (argc != 2 || strcmp(argv[0], "apply")) {
		fputs("usage: regtrack-server plan apply FILE.json\n", stderr);
		return 2;
	}
	doc = json_load_file(argv[1], JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		fprintf(stderr, "regtrack-server: %s:%d: %s\n", argv[1], je.line, je.text);
		return 2;
	}
	n = json_is_array(doc) ? json_array_size(doc) : 1;
	plans = xcalloc(n + 1, sizeof(*plans));
	changes = xcalloc(n + 1, sizeof(*changes));
	for (i = 0; i < n; i++) {
		const json_t *in = json_is_array(doc) ? json_array_get(doc, i) : doc;

		if (plan_normalize(in, NULL, max_jobs_per_push, detect_window, &plans[i], &e)) {
			fprintf(stderr, "regtrack-server: %s: plan %zu: %s (%s)\n", argv[1], i,
				e.message, e.detail);
			ret = 2;
			goto out;
		}
		for (size_t k = 0; k < i; k++)
			if (json_equal(json_object_get(plans[k], "name"),
				       json_object_get(plans[i], "name"))) {
				fprintf(stderr, "regtrack-server: %s: plan %zu: name '%s' twice\n",
					argv[1], i,
					json_string_value(json_object_get(plans[i], "name")));
				ret = 2;
				goto out;
			}
	}
	c = db_connect_once(conninfo, &e);
	if (!c || migrate_apply(c, NULL, &e))
		goto fail;
	/* statements are prepared per connection by db_conn(); prepare them here too */
	if (db_prepare_all(c, &e) || db_begin(c, &e))
		goto fail;
	for (i = 0; i < n; i++)
		if (plan_store(c, plans[i], 0, &changes[i], &e)) {
			db_rollback(c);
			fprintf(stderr, "regtrack-server: %s: plan '%s': %s (%s)\n", argv[1],
				json_string_value(json_object_get(plans[i], "name")), e.message,
				e.detail);
			ret = e.id == ERR_NOT_FOUND || e.id == ERR_INVALID_FIELD ? 2 : 1;
			goto out;
		}
	if (db_commit(c, &e))
		goto fail;
	for (i = 0; i < n; i++)
		printf("%s %s\n", plan_change_name(changes[i]),
		       json_string_value(json_object_get(plans[i], "name")));
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "regtrack-server: %s\n", e.message);
	ret = 1;
out:
	db_close(c);
	for (i = 0; i < n; i++)
		json_decref(plans[i]);
	free(plans);
	free(changes);
	json_decref(doc);
	return ret;
}
