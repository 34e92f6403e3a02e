/*
 * Typed rows of the machines workers register (jobs.h): registration,
 * last seen, their case tables and how many serve a target; and the
 * statements they are made with. A run's machine, as its document names
 * it, is runs.c's.
 */
#include "server/db/jobs.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "server/db/stmts.h"

#include <stdio.h>
#include <stdlib.h>

/* this file's statements, prepared with the others (db_stmt_table, db_int.h) */
enum machine_stmt {
	ST_MACHINE_REGISTER,
	ST_MACHINE_SEEN,
	ST_MACHINE_CASES_SET,
	ST_MACHINE_CASES,
	ST_MACHINES_SERVING,
	NR_MACHINE_STMTS
};

static const struct db_stmt_def stmts[NR_MACHINE_STMTS] = {
	/* $9 the registering token, $10 admin: another token's machine is not updated (no row) */
	[ST_MACHINE_REGISTER] = { "machine_register",
				  "INSERT INTO machines (hostname, arch, tbox_group, nr_cpus, memory_mb, cpu_model, "
				  "capabilities, fingerprint, token_id) VALUES ($1, $2, $3, $4::integer, $5::bigint, $6, "
				  "$7::text[], $8::jsonb, $9::bigint) ON CONFLICT (hostname, arch, tbox_group) DO UPDATE SET "
				  "nr_cpus = EXCLUDED.nr_cpus, memory_mb = EXCLUDED.memory_mb, "
				  "cpu_model = EXCLUDED.cpu_model, capabilities = EXCLUDED.capabilities, "
				  "fingerprint = EXCLUDED.fingerprint, last_seen = now(), "
				  "token_id = COALESCE(machines.token_id, EXCLUDED.token_id) "
				  "WHERE machines.token_id IS NULL OR machines.token_id = EXCLUDED.token_id OR $10::boolean "
				  "RETURNING id" },
	[ST_MACHINE_SEEN] = { "machine_seen",
			      "UPDATE machines SET last_seen = now() WHERE id = $1::bigint RETURNING id, "
			      "COALESCE(token_id, 0)" },
	/* $1 machine, $2 its cases (jsonb; NULL: it sent none) (sql/0021) */
	[ST_MACHINE_CASES_SET] = { "machine_cases_set",
				   "UPDATE machines SET cases = $2::jsonb WHERE id = $1::bigint RETURNING id" },
	/* every registered case table, one object per machine that sent one (server/track/casecheck.c) */
	[ST_MACHINE_CASES] = { "machine_cases",
			       "SELECT coalesce(json_agg(cases ORDER BY id), '[]')::text FROM machines "
			       "WHERE cases IS NOT NULL" },
	/* registered workers with capability $1, tbox_group $2 and arch $3 (NULL: any) */
	[ST_MACHINES_SERVING] = { "machines_serving",
				  "SELECT count(*) FROM machines WHERE $1 = ANY(capabilities) "
				  "AND ($2::text IS NULL OR tbox_group = $2) AND ($3::text IS NULL OR arch = $3)" },
};

const struct db_stmt_table db_stmts_machines = DB_STMT_TABLE(stmts);

long long db_machine_register(struct db_conn *c, const struct db_machine_new *m, struct err *e)
{
	/* nr_cpus is an integer in the SQL ($4::integer) and admin a boolean: sent as text */
	char cpus[24];
	struct db_param p[10] = { db_text(m->hostname),
				  db_text(m->arch),
				  db_text(m->tbox_group),
				  db_text(NULL),
				  m->memory_mb >= 0 ? db_int8(m->memory_mb) : db_text(NULL),
				  db_text(m->cpu_model),
				  db_text(m->capabilities),
				  db_text(m->fingerprint),
				  db_id(m->token_id),
				  db_text(m->admin ? "true" : "false") };
	long long id;
	int got;

	if (m->nr_cpus >= 0) {
		snprintf(cpus, sizeof(cpus), "%lld", m->nr_cpus);
		p[3] = db_text(cpus);
	}
	got = db_query_first_id(c, &stmts[ST_MACHINE_REGISTER], 10, p, &id, e);
	if (got < 0)
		return -1;
	if (!got)
		return err_setc(e, ERR_FORBIDDEN, "hostname",
				"machine '%s' (%s, %s) was registered by another token",
				m->hostname, m->arch, m->tbox_group);
	return id;
}

/* ST_MACHINE_SEEN's columns */
enum { SEEN_ID, SEEN_TOKEN };

int db_machine_seen(struct db_conn *c, long long id, long long *token_id, struct err *e)
{
	PGresult *r = db_query_id(c, &stmts[ST_MACHINE_SEEN], id, e);
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		*token_id = strtoll(PQgetvalue(r, 0, SEEN_TOKEN), NULL, 10);
	PQclear(r);
	return found;
}

int db_machine_cases_set(struct db_conn *c, long long machine_id, const char *cases, struct err *e)
{
	struct db_param p[2] = { db_int8(machine_id), db_text(cases) };

	return db_query_rows(c, &stmts[ST_MACHINE_CASES_SET], 2, p, e) < 0 ? -1 : 0;
}

int db_machine_cases_json(struct db_conn *c, char **text, struct err *e)
{
	return db_query_json(c, &stmts[ST_MACHINE_CASES], 0, NULL, text, e);
}

int db_machines_serving(struct db_conn *c, const char *capability, const char *tbox_group,
			const char *arch, long long *n, struct err *e)
{
	struct db_param p[3] = { db_text(capability), db_text(tbox_group), db_text(arch) };

	return db_query_int8(c, &stmts[ST_MACHINES_SERVING], 3, p, n, e);
}
