/* Statements of test plans and what they scheduled (api/plans.c, plan.c, poller.c); see db.h. */
#include "server/db/stmts.h"

/* what GET /api/v1/plans/{name}/pushes lists of one push */
#define PUSH_JSON                                                                                    \
	"json_build_object('id', pp.id, 'branch', pp.branch, 'old', pp.old_sha, 'new', pp.new_sha, " \
	"'base', pp.base_sha, 'forced', pp.forced, 'commits', pp.commits, 'tested', pp.tested, "     \
	"'jobs_queued', pp.jobs_queued, 'superseded', pp.superseded, 'skipped', pp.skipped, "        \
	"'at', pp.at)"

const struct db_stmt_def db_stmts_plans[DB_NR_STMTS] = {
	[ST_PLANS_JSON] = { "plans_json",
			    "SELECT coalesce(json_agg(spec ORDER BY name), '[]')::text FROM plans" },
	/* $1 plan: its queued jobs are cancelled before it goes */
	[ST_PLAN_CANCEL_QUEUED] = { "plan_cancel_queued",
				    "UPDATE jobs SET state = 'cancelled', phase = 'cancelled', finished_at = now(), "
				    "fail_reason = 'plan deleted', phase_history = phase_history || jsonb_build_array("
				    "jsonb_build_object('phase', 'cancelled', 'at', now(), 'why', 'plan deleted')) "
				    "WHERE state = 'queued' AND plan_id = (SELECT id FROM plans WHERE name = $1) RETURNING id" },
	[ST_PLAN_DELETE] = { "plan_delete", "DELETE FROM plans WHERE name = $1 RETURNING id" },
	/* $1 plan id $2 branch: the head the plan scheduled up to */
	[ST_PLAN_HEAD] = { "plan_head",
			   "SELECT sha FROM plan_branches WHERE plan_id = $1::bigint AND branch = $2" },
	[ST_PLAN_HEAD_SET] = { "plan_head_set",
			       "INSERT INTO plan_branches (plan_id, branch, sha) VALUES ($1::bigint, $2, $3) "
			       "ON CONFLICT (plan_id, branch) DO UPDATE SET sha = EXCLUDED.sha, updated_at = now()" },
	[ST_PLAN_JSON] = { "plan_json", "SELECT spec::text FROM plans WHERE name = $1" },
	/* $1 plan $2 limit; no row when there is no such plan */
	[ST_PLAN_PUSHES_JSON] = { "plan_pushes_json",
				  "SELECT (SELECT coalesce(json_agg(x.o ORDER BY x.id DESC), '[]') FROM (SELECT pp.id, " PUSH_JSON
				  " AS o FROM plan_pushes pp WHERE pp.plan_id = p.id "
				  "ORDER BY pp.id DESC LIMIT $2::integer) x)::text FROM plans p WHERE p.name = $1" },
	/* $1 plan $2 branch $3 old head $4 new head $5 merge base $6 forced $7 commits in range
	 * $8 tested [{commit, reason}] $9 jobs queued $10 skipped [{commit, reason}]
	 * $11 older queued jobs superseded */
	[ST_PLAN_PUSH_INSERT] = { "plan_push_insert",
				  "INSERT INTO plan_pushes (plan_id, branch, old_sha, new_sha, base_sha, forced, commits, "
				  "tested, jobs_queued, skipped, superseded) VALUES ($1::bigint, $2, $3, $4, $5, "
				  "$6::boolean, $7::integer, $8::jsonb, $9::integer, $10::jsonb, $11::integer)" },
	/*
	 * $1 setup: the plan whose detector settings its detection uses, the first by
	 * name of those with "detect" whose jobs put runs into it (plan_detect.h)
	 */
	[ST_SETUP_PLAN_DETECT] = { "setup_plan_detect",
				   "SELECT p.name, (p.spec->'detect')::text FROM plans p "
				   "WHERE p.spec->'detect' IS NOT NULL AND EXISTS (SELECT 1 FROM runs r "
				   "JOIN jobs j ON j.id = r.job_id WHERE r.setup_id = $1::bigint AND j.plan_id = p.id) "
				   "ORDER BY p.name LIMIT 1" },
	/* $1 tree: the plans the poller schedules for */
	[ST_PLANS_OF_TREE] = { "plans_of_tree",
			       "SELECT id, name, spec::text FROM plans WHERE tree_id = $1::bigint AND enabled ORDER BY id" },
	/*
	 * $1 name $2 tree $3 spec $4 enabled $5 create only: 'created', 'updated',
	 * 'unchanged' (the same spec, as jsonb compares), 'exists' (create only)
	 * or 'raced' (created by another writer meanwhile). A plan moved to
	 * another tree forgets its branch heads; a new or changed plan makes
	 * its tree due for a poll.
	 */
	[ST_PLAN_STORE] = { "plan_store",
			    "WITH old AS (SELECT id, spec, tree_id FROM plans WHERE name = $1 FOR UPDATE), "
			    "ins AS (INSERT INTO plans (name, tree_id, spec, enabled) SELECT $1, $2::bigint, "
			    "$3::jsonb, $4::boolean WHERE NOT EXISTS (SELECT 1 FROM old) "
			    "ON CONFLICT (name) DO NOTHING RETURNING id), "
			    "upd AS (UPDATE plans p SET tree_id = $2::bigint, spec = $3::jsonb, enabled = $4::boolean, "
			    "updated_at = now() FROM old WHERE p.id = old.id AND NOT $5::boolean "
			    "AND old.spec IS DISTINCT FROM $3::jsonb RETURNING p.id), "
			    "clr AS (DELETE FROM plan_branches b USING old WHERE b.plan_id = old.id "
			    "AND old.tree_id <> $2::bigint AND NOT $5::boolean), "
			    "due AS (UPDATE trees SET next_poll_at = now() WHERE id = $2::bigint AND "
			    "(EXISTS (SELECT 1 FROM ins) OR EXISTS (SELECT 1 FROM upd))) "
			    "SELECT CASE WHEN EXISTS (SELECT 1 FROM ins) THEN 'created' "
			    "WHEN EXISTS (SELECT 1 FROM upd) THEN 'updated' "
			    "WHEN EXISTS (SELECT 1 FROM old) THEN CASE WHEN $5::boolean THEN 'exists' "
			    "ELSE 'unchanged' END ELSE 'raced' END" },
};
