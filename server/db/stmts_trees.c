/* Statements of trees, their mirrors, branch heads, polls and commit imports (api/trees.c,
 * gitmirror.c, poller.c); see db.h. */
#include "server/db/stmts.h"

/* when a tree is due for a poll (sql/0014) */
#define TREE_DUE                                                                                 \
	"t.url IS NOT NULL AND t.next_poll_at <= now() AND (t.poll_requested_at IS NOT NULL OR " \
	"(t.poll_s > 0 AND EXISTS (SELECT 1 FROM plans p WHERE p.tree_id = t.id AND p.enabled)))"
/* the advisory lock class of tree polls: pg_try_advisory_lock(class, tree id) */
#define POLL_LOCK_CLASS "17017"

const struct db_stmt_def db_stmts_trees[DB_NR_STMTS] = {
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
	[ST_TREE_BY_ID] = { "tree_by_id",
			    "SELECT name, url, array_to_string(branches, ' ') FROM trees WHERE id = $1::bigint" },
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
