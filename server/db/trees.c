/*
 * Typed rows of trees, their mirrors, branch heads, polls and commit
 * imports (trees.h; api/trees.c, track/gitmirror.c, track/poller.c,
 * bisect/bisect_coord.c, jobs/ingest.c), and the statements they are made
 * with.
 */
#include "server/db/trees.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum tree_stmt {
	ST_COMMITS_IMPORT,
	ST_DIFFSTAT_LOOKUP,
	ST_DIFFSTAT_STORE,
	ST_TREES_JSON,
	ST_TREE_GET,
	ST_TREE_HEADS,
	ST_TREE_HEADS_PRUNE,
	ST_TREE_HEAD_SET,
	ST_TREE_ID,
	ST_TREE_INSERT,
	ST_TREE_MIRROR_SET,
	ST_TREE_MIRROR_TODO,
	ST_TREE_POLL_CLAIM,
	ST_TREE_POLL_DONE,
	ST_TREE_POLL_DUE,
	ST_TREE_POLL_LOCK,
	ST_TREE_POLL_REQUEST,
	ST_TREE_POLL_UNLOCK,
	ST_TREE_TOPO_MAX,
	ST_TREE_UPSERT,
	NR_TREE_STMTS
};

/* when a tree is due for a poll (sql/0014) */
#define TREE_DUE                                                                                 \
	"t.url IS NOT NULL AND t.next_poll_at <= now() AND (t.poll_requested_at IS NOT NULL OR " \
	"(t.poll_s > 0 AND EXISTS (SELECT 1 FROM plans p WHERE p.tree_id = t.id AND p.enabled)))"
/* the advisory lock class of tree polls: pg_try_advisory_lock(class, tree id) */
#define POLL_LOCK_CLASS "17017"

static const struct db_stmt_def stmts[NR_TREE_STMTS] = {
	/* $1 shas $2 parents (space-separated) $3 authors $4 commit times $5 subjects (text[]
	 * each), $6 tree, $7 topo_order of the row before the first */
	[ST_COMMITS_IMPORT] = { "commits_import",
				"INSERT INTO commits (sha, tree_id, subject, author, commit_time, parents, topo_order) "
				"SELECT u.sha, $6::bigint, u.subject, u.author, u.ct::timestamptz, "
				"coalesce(string_to_array(nullif(u.par, ''), ' '), '{}'), $7::bigint + u.ord "
				"FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) "
				"WITH ORDINALITY AS u (sha, par, author, ct, subject, ord) "
				"ON CONFLICT (sha) DO UPDATE SET parents = EXCLUDED.parents, "
				"topo_order = EXCLUDED.topo_order, tree_id = coalesce(commits.tree_id, EXCLUDED.tree_id), "
				"subject = coalesce(commits.subject, EXCLUDED.subject), "
				"author = coalesce(commits.author, EXCLUDED.author), "
				"commit_time = coalesce(commits.commit_time, EXCLUDED.commit_time)" },
	/* commit $1: its sha and whether its diffstat was collected (sql/0007) */
	[ST_DIFFSTAT_LOOKUP] = { "mail_diffstat_lookup",
				 "SELECT c.sha, EXISTS (SELECT 1 FROM commit_diffstat d WHERE d.commit_id = c.id) "
				 "FROM commits c WHERE c.id = $1::bigint" },
	/* $1 commit id, $2 [{path, ins, del}] (null counts: binary), $3 files, $4 ins, $5 del;
	 * the first writer wins (a concurrent second one stores nothing) */
	[ST_DIFFSTAT_STORE] = { "mail_diffstat_store",
				"WITH d AS (INSERT INTO commit_diffstat (commit_id, files_changed, insertions, deletions) "
				"VALUES ($1::bigint, $3::integer, $4::bigint, $5::bigint) ON CONFLICT (commit_id) "
				"DO NOTHING RETURNING commit_id) "
				"INSERT INTO commit_files (commit_id, path, insertions, deletions) "
				"SELECT d.commit_id, f.path, f.ins, f.del FROM d, "
				"jsonb_to_recordset($2::jsonb) AS f (path text, ins integer, del integer) "
				"ON CONFLICT DO NOTHING" },
	[ST_TREES_JSON] = { "trees_json",
			    "SELECT coalesce(json_agg(x ORDER BY x.name), '[]')::text FROM ("
			    "SELECT id, name, scrub_userinfo(url) AS url, branches, created_at, "
			    "(SELECT count(*) FROM commits c WHERE c.tree_id = t.id) AS commits, "
			    "poll_s, polls, last_poll_at, last_poll_ms, poll_error, poll_failures, "
			    "CASE WHEN poll_requested_at IS NOT NULL OR (poll_s > 0 AND EXISTS (SELECT 1 FROM plans p "
			    "WHERE p.tree_id = t.id AND p.enabled)) THEN next_poll_at END AS next_poll_at, "
			    "(SELECT coalesce(json_agg(json_build_object('branch', b.branch, 'head', b.sha, "
			    "'previous', b.previous_sha, 'forced', b.forced, 'updated_at', b.updated_at) "
			    "ORDER BY b.branch), '[]') FROM tree_branches b WHERE b.tree_id = t.id) AS heads, "
			    /* the plans on it: their jobs by state, the extra runs of tips, the last push */
			    "(SELECT coalesce(json_agg(json_build_object('name', p.name, 'enabled', p.enabled, "
			    "'jobs', (SELECT json_build_object('queued', count(*) FILTER (WHERE j.state = 'queued'), "
			    "'running', count(*) FILTER (WHERE j.state = 'leased'), "
			    "'done', count(*) FILTER (WHERE j.state = 'done'), "
			    "'failed', count(*) FILTER (WHERE j.state = 'failed'), "
			    "'superseded', count(*) FILTER (WHERE j.phase = 'superseded'), "
			    "'cancelled', count(*) FILTER (WHERE j.state = 'cancelled' AND j.phase IS DISTINCT FROM 'superseded'), "
			    "'tip', count(*) FILTER (WHERE j.track_key LIKE '% tip')) FROM jobs j WHERE j.plan_id = p.id), "
			    "'last_push', (SELECT json_build_object('branch', pp.branch, 'new', pp.new_sha, "
			    "'jobs_queued', pp.jobs_queued, 'at', pp.at) FROM plan_pushes pp WHERE pp.plan_id = p.id "
			    "ORDER BY pp.id DESC LIMIT 1)) ORDER BY p.name), '[]') FROM plans p WHERE p.tree_id = t.id) AS plans "
			    "FROM trees t) x" },
	[ST_TREE_GET] = { "tree_get", "SELECT id, url FROM trees WHERE name = $1" },
	[ST_TREE_HEADS] = { "tree_heads",
			    "SELECT branch, sha FROM tree_branches WHERE tree_id = $1::bigint ORDER BY branch" },
	/* $1 tree $2 the branches it has now (text[]) */
	[ST_TREE_HEADS_PRUNE] = { "tree_heads_prune",
				  "DELETE FROM tree_branches WHERE tree_id = $1::bigint AND NOT (branch = ANY ($2::text[]))" },
	/* $1 tree $2 branch $3 head $4 forced (not a fast-forward of the last head) */
	[ST_TREE_HEAD_SET] = { "tree_head_set",
			       "INSERT INTO tree_branches (tree_id, branch, sha, forced) VALUES ($1::bigint, $2, $3, "
			       "$4::boolean) ON CONFLICT (tree_id, branch) DO UPDATE SET "
			       "previous_sha = tree_branches.sha, sha = EXCLUDED.sha, forced = EXCLUDED.forced, "
			       "updated_at = now() WHERE tree_branches.sha <> EXCLUDED.sha" },
	[ST_TREE_ID] = { "tree_id", "SELECT id FROM trees WHERE name = $1" },
	[ST_TREE_INSERT] = { "tree_insert",
			     "INSERT INTO trees (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id" },
	/* $1 tree $2 url $3 commits imported $4 error */
	[ST_TREE_MIRROR_SET] = { "tree_mirror_set",
				 "INSERT INTO tree_mirrors (tree_id, url, synced_at, commits, error) "
				 "VALUES ($1::bigint, $2, now(), $3::integer, $4) ON CONFLICT (tree_id) DO UPDATE SET "
				 "url = EXCLUDED.url, synced_at = now(), commits = coalesce(EXCLUDED.commits, "
				 "tree_mirrors.commits), error = EXCLUDED.error" },
	/* a tree whose mirror was never made from its current url */
	[ST_TREE_MIRROR_TODO] = { "tree_mirror_todo",
				  "SELECT t.id, t.name, t.url, array_to_string(t.branches, ' ') FROM trees t "
				  "LEFT JOIN tree_mirrors m ON m.tree_id = t.id WHERE t.url IS NOT NULL AND "
				  "(m.tree_id IS NULL OR m.url IS DISTINCT FROM t.url) ORDER BY t.id LIMIT 1" },
	/*
	 * Polling (sql/0014). A tree is due when a poll was asked for, or when
	 * an enabled plan uses it and poll_s > 0, once next_poll_at passed.
	 * $1 tree, after ST_TREE_POLL_LOCK: still due (another server may have
	 * polled it between ST_TREE_POLL_DUE and the lock)? name, url and the
	 * poll's start as the database sees it
	 */
	[ST_TREE_POLL_CLAIM] = { "tree_poll_claim",
				 "SELECT t.name, t.url, now()::text FROM trees t WHERE t.id = $1::bigint AND " TREE_DUE },
	/* $1 tree $2 the poll's start $3 its duration (ms) $4 error (NULL: none): the next
	 * poll after poll_s, or after a backoff doubling per failure (at most 6 h), or at once
	 * when asked for while this one ran */
	[ST_TREE_POLL_DONE] = { "tree_poll_done",
				"UPDATE trees SET polls = polls + 1, last_poll_at = now(), last_poll_ms = $3::integer, "
				"poll_error = scrub_userinfo($4::text), "
				"poll_failures = CASE WHEN $4::text IS NULL THEN 0 ELSE poll_failures + 1 END, "
				"next_poll_at = CASE WHEN poll_requested_at > $2::timestamptz THEN now() "
				"WHEN $4::text IS NULL THEN now() + make_interval(secs => poll_s) "
				"ELSE now() + make_interval(secs => least(greatest(poll_s, 10) * "
				"power(2, least(poll_failures, 16)), 21600)) END, "
				"poll_requested_at = CASE WHEN poll_requested_at > $2::timestamptz "
				"THEN poll_requested_at END WHERE id = $1::bigint" },
	[ST_TREE_POLL_DUE] = { "tree_poll_due", "SELECT t.id FROM trees t WHERE " TREE_DUE
						" ORDER BY t.next_poll_at, t.id LIMIT 32" },
	/* one poller per tree across servers: a session lock, gone with a killed server's connection */
	[ST_TREE_POLL_LOCK] = { "tree_poll_lock",
				"SELECT pg_try_advisory_lock(" POLL_LOCK_CLASS ", $1::integer)" },
	/* $1 tree name: poll it now (a push hook); its id and whether it has a url */
	[ST_TREE_POLL_REQUEST] = { "tree_poll_request",
				   "UPDATE trees SET poll_requested_at = now(), next_poll_at = now() WHERE name = $1 "
				   "RETURNING id, url IS NOT NULL" },
	[ST_TREE_POLL_UNLOCK] = { "tree_poll_unlock",
				  "SELECT pg_advisory_unlock(" POLL_LOCK_CLASS ", $1::integer)" },
	/* the last topo_order of the tree's commits: the poller numbers new ones after it */
	[ST_TREE_TOPO_MAX] = { "tree_topo_max",
			       "SELECT coalesce(max(topo_order), 0) FROM commits WHERE tree_id = $1::bigint" },
	/* $1 name $2 url (NULL: keep) $3 branches $4 poll_s (NULL: keep, 300 for a new tree) */
	[ST_TREE_UPSERT] = { "tree_upsert",
			     "INSERT INTO trees (name, url, branches, poll_s) VALUES ($1, $2, $3::text[], "
			     "coalesce($4::integer, 300)) "
			     "ON CONFLICT (name) DO UPDATE SET url = coalesce(EXCLUDED.url, trees.url), "
			     "branches = EXCLUDED.branches, poll_s = coalesce($4::integer, trees.poll_s) RETURNING id" },
};

const struct db_stmt_table db_stmts_trees = DB_STMT_TABLE(stmts);

/* commits */

int db_commits_import(struct db_conn *c, const char *const cols[5], long long tree_id,
		      long long base, struct err *e)
{
	struct db_param p[7] = { db_text(cols[0]), db_text(cols[1]), db_text(cols[2]),
				 db_text(cols[3]), db_text(cols[4]), db_int8(tree_id),
				 db_int8(base) };

	return db_query_do(c, &stmts[ST_COMMITS_IMPORT], 7, p, e);
}

int db_commit_diffstat_state(struct db_conn *c, long long id, char sha[41], int *stored,
			     struct err *e)
{
	struct db_param p[1] = { db_int8(id) };
	PGresult *r;

	sha[0] = '\0';
	*stored = 0;
	r = db_query(c, &stmts[ST_DIFFSTAT_LOOKUP], 1, p, 0, e);
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	snprintf(sha, 41, "%s", PQgetvalue(r, 0, 0));
	*stored = PQgetvalue(r, 0, 1)[0] == 't';
	PQclear(r);
	return 1;
}

int db_commit_diffstat_store(struct db_conn *c, long long id, const char *files, size_t nr_files,
			     long long insertions, long long deletions, struct err *e)
{
	char nf[24];
	/* $3 is cast ::integer in the SQL: sent as text */
	struct db_param p[5] = { db_int8(id), db_text(files), db_text(nf), db_int8(insertions),
				 db_int8(deletions) };

	snprintf(nf, sizeof(nf), "%zu", nr_files);
	return db_query_do(c, &stmts[ST_DIFFSTAT_STORE], 5, p, e);
}

/* trees */

/* ST_TREE_GET's columns */
enum { GET_ID, GET_URL };

int db_tree_get(struct db_conn *c, const char *name, struct db_tree *t, struct err *e)
{
	struct db_param p[1] = { db_text(name) };
	PGresult *r;

	memset(t, 0, sizeof(*t));
	r = db_query(c, &stmts[ST_TREE_GET], 1, p, 0, e);
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	t->id = strtoll(PQgetvalue(r, 0, GET_ID), NULL, 10);
	t->url = PQgetisnull(r, 0, GET_URL) ? NULL : xstrdup(PQgetvalue(r, 0, GET_URL));
	PQclear(r);
	return 1;
}

void db_tree_release(struct db_tree *t)
{
	free(t->url);
	t->url = NULL;
}

long long db_tree_id(struct db_conn *c, const char *name, struct err *e)
{
	struct db_param p[1] = { db_text(name) };
	long long id;

	if (db_query_first_id(c, &stmts[ST_TREE_ID], 1, p, &id, e) < 0)
		return -1;
	return id;
}

long long db_tree_name_upsert(struct db_conn *c, const char *name, struct err *e)
{
	struct db_param p[1] = { db_text(name) };
	long long id;

	for (int attempt = 0; attempt < 2; attempt++) {
		if (db_query_first_id(c, &stmts[ST_TREE_INSERT], 1, p, &id, e) < 0)
			return -1;
		if (id > 0)
			return id;
		/* a new statement sees the row a concurrent insert committed */
		if (db_query_first_id(c, &stmts[ST_TREE_ID], 1, p, &id, e) < 0)
			return -1;
		if (id > 0)
			return id;
	}
	err_setc(e, ERR_DB, stmts[ST_TREE_ID].name, "cannot find or create a row");
	return -1;
}

/* ST_TREES_JSON's one column */
enum { TREES_JSON_TEXT };

int db_trees_json(struct db_conn *c, char **text, size_t *len, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_TREES_JSON], 0, NULL, 0, e);

	if (!r)
		return -1;
	*len = (size_t)PQgetlength(r, 0, TREES_JSON_TEXT);
	*text = xmalloc(*len + 1);
	memcpy(*text, PQgetvalue(r, 0, TREES_JSON_TEXT), *len + 1);
	PQclear(r);
	return 0;
}

long long db_tree_upsert(struct db_conn *c, const char *name, const char *url, const char *branches,
			 long poll_s, struct err *e)
{
	/* poll_s is an integer in the SQL ($4::integer): sent as text */
	char ps[24];
	struct db_param p[4] = { db_text(name), db_text(url), db_text(branches),
				 db_text(poll_s < 0 ? NULL : ps) };
	long long id;

	snprintf(ps, sizeof(ps), "%ld", poll_s);
	if (db_query_first_id(c, &stmts[ST_TREE_UPSERT], 4, p, &id, e) < 0)
		return -1;
	return id;
}

/* mirrors */

/* ST_TREE_MIRROR_TODO's columns */
enum { TODO_ID, TODO_NAME, TODO_URL, TODO_BRANCHES };

int db_tree_mirror_todo(struct db_conn *c, struct db_tree_mirror_todo *t, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_TREE_MIRROR_TODO], 0, NULL, 0, e);

	memset(t, 0, sizeof(*t));
	if (!r)
		return -1;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	t->tree_id = strtoll(PQgetvalue(r, 0, TODO_ID), NULL, 10);
	t->name = xstrdup(PQgetvalue(r, 0, TODO_NAME));
	t->url = xstrdup(PQgetvalue(r, 0, TODO_URL));
	t->branches = xstrdup(PQgetvalue(r, 0, TODO_BRANCHES));
	PQclear(r);
	return 1;
}

void db_tree_mirror_todo_release(struct db_tree_mirror_todo *t)
{
	free(t->name);
	free(t->url);
	free(t->branches);
	memset(t, 0, sizeof(*t));
}

int db_tree_mirror_set(struct db_conn *c, long long tree_id, const char *url, long long commits,
		       const char *error, struct err *e)
{
	/* commits is an integer in the SQL ($3::integer): sent as text */
	char cnt[24];
	struct db_param p[4] = { db_int8(tree_id), db_text(url), db_text(commits >= 0 ? cnt : NULL),
				 db_text(error) };

	snprintf(cnt, sizeof(cnt), "%lld", commits);
	return db_query_do(c, &stmts[ST_TREE_MIRROR_SET], 4, p, e);
}

/* branch heads */

/* ST_TREE_HEADS's columns */
enum { HEADS_BRANCH, HEADS_SHA };

int db_tree_heads(struct db_conn *c, long long tree_id, struct db_tree_head **heads, size_t *n,
		  struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_TREE_HEADS], tree_id, e);

	*heads = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r))
		*heads = xcalloc((size_t)PQntuples(r), sizeof(**heads));
	for (int i = 0; i < PQntuples(r); i++) {
		snprintf((*heads)[i].branch, sizeof((*heads)[i].branch), "%s",
			 PQgetvalue(r, i, HEADS_BRANCH));
		snprintf((*heads)[i].sha, sizeof((*heads)[i].sha), "%s",
			 PQgetvalue(r, i, HEADS_SHA));
	}
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

int db_tree_head_set(struct db_conn *c, long long tree_id, const char *branch, const char *sha,
		     int forced, struct err *e)
{
	struct db_param p[4] = { db_int8(tree_id), db_text(branch), db_text(sha),
				 db_text(forced ? "true" : "false") };

	return db_query_do(c, &stmts[ST_TREE_HEAD_SET], 4, p, e);
}

int db_tree_heads_prune(struct db_conn *c, long long tree_id, const char *branches, struct err *e)
{
	struct db_param p[2] = { db_int8(tree_id), db_text(branches) };

	return db_query_do(c, &stmts[ST_TREE_HEADS_PRUNE], 2, p, e);
}

/* ST_TREE_TOPO_MAX's one column */
enum { TOPO_MAX };

int db_tree_topo_max(struct db_conn *c, long long tree_id, long long *max, struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_TREE_TOPO_MAX], tree_id, e);

	*max = 0;
	if (!r)
		return -1;
	if (PQntuples(r))
		*max = strtoll(PQgetvalue(r, 0, TOPO_MAX), NULL, 10);
	PQclear(r);
	return 0;
}

/* polls */

/* ST_TREE_POLL_DUE's one column */
enum { DUE_ID };

int db_tree_poll_due(struct db_conn *c, long long **ids, size_t *n, struct err *e)
{
	PGresult *r = db_query(c, &stmts[ST_TREE_POLL_DUE], 0, NULL, 0, e);

	*ids = NULL;
	*n = 0;
	if (!r)
		return -1;
	if (PQntuples(r))
		*ids = xcalloc((size_t)PQntuples(r), sizeof(**ids));
	for (int i = 0; i < PQntuples(r); i++)
		(*ids)[i] = strtoll(PQgetvalue(r, i, DUE_ID), NULL, 10);
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

/*
 * Runs the advisory lock call st of tree id. The lock key is an integer in
 * the SQL ($1::integer, pg_try_advisory_lock(int4, int4)): id sent as text.
 */
static PGresult *poll_lock_call(struct db_conn *c, enum tree_stmt st, long long id, struct err *e)
{
	char b[24];
	struct db_param p[1] = { db_text(b) };

	snprintf(b, sizeof(b), "%lld", id);
	return db_query(c, &stmts[st], 1, p, 0, e);
}

/* ST_TREE_POLL_LOCK's one column */
enum { LOCK_TAKEN };

int db_tree_poll_lock(struct db_conn *c, long long id, struct err *e)
{
	PGresult *r = poll_lock_call(c, ST_TREE_POLL_LOCK, id, e);
	int got;

	if (!r)
		return -1;
	got = PQntuples(r) == 1 && PQgetvalue(r, 0, LOCK_TAKEN)[0] == 't';
	PQclear(r);
	return got;
}

void db_tree_poll_unlock(struct db_conn *c, long long id)
{
	struct err e;
	PGresult *r = poll_lock_call(c, ST_TREE_POLL_UNLOCK, id, &e);

	PQclear(r);
}

/* ST_TREE_POLL_CLAIM's columns */
enum { CLAIM_NAME, CLAIM_URL, CLAIM_STARTED };

int db_tree_poll_claim(struct db_conn *c, long long id, struct db_tree_poll *t, struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_TREE_POLL_CLAIM], id, e);

	memset(t, 0, sizeof(*t));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	t->name = xstrdup(PQgetvalue(r, 0, CLAIM_NAME));
	t->url = xstrdup(PQgetvalue(r, 0, CLAIM_URL));
	snprintf(t->started, sizeof(t->started), "%s", PQgetvalue(r, 0, CLAIM_STARTED));
	PQclear(r);
	return 1;
}

void db_tree_poll_release(struct db_tree_poll *t)
{
	free(t->name);
	free(t->url);
	memset(t, 0, sizeof(*t));
}

int db_tree_poll_done(struct db_conn *c, long long id, const char *started, long ms,
		      const char *error, struct err *e)
{
	/* ms is an integer in the SQL ($3::integer): sent as text */
	char msb[24];
	struct db_param p[4] = { db_int8(id), db_text(started), db_text(msb), db_text(error) };

	snprintf(msb, sizeof(msb), "%ld", ms);
	return db_query_do(c, &stmts[ST_TREE_POLL_DONE], 4, p, e);
}

/* ST_TREE_POLL_REQUEST's columns */
enum { REQUEST_ID, REQUEST_HAS_URL };

int db_tree_poll_request(struct db_conn *c, const char *name, long long *id, int *has_url,
			 struct err *e)
{
	struct db_param p[1] = { db_text(name) };
	PGresult *r = db_query(c, &stmts[ST_TREE_POLL_REQUEST], 1, p, 0, e);

	*id = 0;
	*has_url = 0;
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return 0;
	}
	*id = strtoll(PQgetvalue(r, 0, REQUEST_ID), NULL, 10);
	*has_url = PQgetvalue(r, 0, REQUEST_HAS_URL)[0] == 't';
	PQclear(r);
	return 1;
}
