/* Statements of trees, their mirrors and commit imports (api/trees.c, gitmirror.c); see db.h. */
#include "server/db/stmts.h"

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
			    "SELECT id, name, url, branches, created_at, "
			    "(SELECT count(*) FROM commits c WHERE c.tree_id = t.id) AS commits FROM trees t) x" },
	[ST_TREE_BY_ID] = { "tree_by_id",
			    "SELECT name, url, array_to_string(branches, ' ') FROM trees WHERE id = $1::bigint" },
	[ST_TREE_GET] = { "tree_get", "SELECT id, url FROM trees WHERE name = $1" },
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
	[ST_TREE_UPSERT] = { "tree_upsert",
			     "INSERT INTO trees (name, url, branches) VALUES ($1, $2, $3::text[]) "
			     "ON CONFLICT (name) DO UPDATE SET url = coalesce(EXCLUDED.url, trees.url), "
			     "branches = EXCLUDED.branches RETURNING id" },
};
