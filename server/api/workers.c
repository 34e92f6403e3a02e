/*
 * Workers: POST /api/v1/workers/register (worker scope)
 *   {hostname, arch, tbox_group?, cpu_model?, nr_cpus?, memory_mb?,
 *    capabilities[], fingerprint{}, cases{}} -> {machine_id, lease_timeout_s}
 * cases: the worker's cases with each one's parameter table (worker/caselist.c),
 * against which jobs, plans and requests are checked (server/track/casecheck.h);
 * stored as sent, replacing the last registration's (absent: NULL).
 * A machine is (hostname, arch, tbox_group): registering again updates it
 * and keeps its id. The lease, heartbeat and complete calls a worker makes
 * next are api/jobs.c's.
 */
#include "server/api/api.h"
#include "names.h"
#include "server/api/args.h"
#include "server/track/casecheck.h"
#include "server/db/jobs.h"
#include "server/jobs/lease.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum MHD_Result api_workers_register(struct request *rq)
{
	struct err e;
	json_t *b = rq_json(rq, &e), *caps, *fp;
	const char *host, *arch, *tbox, *model;
	long long cpus, mem;
	struct buf capbuf = BUF_INIT(64 * 1024);
	char *fptext = NULL, *casestext = NULL;
	struct db_conn *c;
	long long id;
	enum MHD_Result ret;
	size_t i;
	json_t *v;
	int over = 0;

	if (!b)
		return reply_err(rq, &e);
	if (json_str_field(b, "hostname", 1, 255, &host, &e) ||
	    json_str_field(b, "arch", 1, 32, &arch, &e) ||
	    json_str_field(b, "tbox_group", 0, 128, &tbox, &e) ||
	    json_str_field(b, "cpu_model", 0, 512, &model, &e) ||
	    json_int_field(b, "nr_cpus", -1, 0, 1 << 20, &cpus, &e) ||
	    json_int_field(b, "memory_mb", -1, 0, 1LL << 40, &mem, &e))
		goto bad;
	if (!names_plain(host, 255) || !names_plain(arch, 32) ||
	    (tbox && !names_plain(tbox, 128))) {
		err_setc(&e, ERR_INVALID_FIELD,
			 !names_plain(host, 255) ? "hostname" :
			 !names_plain(arch, 32)	 ? "arch" :
						   "tbox_group",
			 "names must be chars of [A-Za-z0-9._+-]");
		goto bad;
	}
	caps = json_object_get(b, "capabilities");
	if (caps && !json_is_array(caps)) {
		err_setc(&e, ERR_INVALID_FIELD, "capabilities",
			 "'capabilities' must be an array of strings");
		goto bad;
	}
	over |= buf_addch(&capbuf, '{');
	json_array_foreach (caps, i, v) {
		if (!json_is_string(v) || !names_plain(json_string_value(v), 64)) {
			err_setc(&e, ERR_INVALID_FIELD, "capabilities",
				 "capabilities are words like host, qemu-x86_64, qemu-aarch64");
			goto bad;
		}
		over |= buf_addf(&capbuf, "%s\"%s\"", i ? "," : "", json_string_value(v));
	}
	over |= buf_addch(&capbuf, '}');
	if (over) {
		err_setc(&e, ERR_INVALID_FIELD, "capabilities", "too many capabilities");
		goto bad;
	}
	fp = json_object_get(b, "fingerprint");
	if (fp && !json_is_object(fp)) {
		err_setc(&e, ERR_INVALID_FIELD, "fingerprint", "'fingerprint' must be an object");
		goto bad;
	}
	if (casecheck_registration(json_object_get(b, "cases"), &casestext, &e))
		goto bad;
	/* json_dumps takes no reference: an empty object made here would leak */
	fptext = fp ? json_dumps(fp, JSON_COMPACT) : xstrdup("{}");
	{
		const struct db_machine_new m = {
			.hostname = host,
			.arch = arch,
			.tbox_group = tbox ? tbox : host,
			.nr_cpus = cpus,
			.memory_mb = mem,
			.cpu_model = model,
			.capabilities = capbuf.data,
			.fingerprint = fptext,
			.token_id = rq->token_id,
			.admin = rq->scope == SCOPE_ADMIN,
		};
		c = rq_db(rq, &e);
		id = c ? db_machine_register(c, &m, &e) : -1;
	}
	if (id < 0)
		goto bad;
	if (db_machine_cases_set(c, id, casestext, &e))
		goto bad;
	ret = reply_json(rq, 200,
			 json_pack("{s:I,s:I}", "machine_id", (json_int_t)id, "lease_timeout_s",
				   (json_int_t)rq->srv->cfg->lease_timeout_s));
	lease_queue_kick(rq->srv->leases);
	free(fptext);
	free(casestext);
	buf_release(&capbuf);
	json_decref(b);
	return ret;
bad:
	free(fptext);
	free(casestext);
	buf_release(&capbuf);
	json_decref(b);
	return reply_err(rq, &e);
}
