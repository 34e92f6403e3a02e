/*
 * GET /api/v1/requests/{id}/mbox: an A/B request's patches as submitted
 * (application/mbox), what its head jobs apply with `git am` (see requests.c).
 */
#include "server/api/api.h"
#include "server/api/args.h"
#include "server/db/requests.h"

#include <stdlib.h>
#include <string.h>

enum MHD_Result api_request_mbox(struct request *rq)
{
	struct err e;
	long long id;
	char idb[24], *text = NULL;
	struct db_conn *c;
	enum MHD_Result ret;
	int got;

	if (rq_path_id(rq, "request", &id, idb, &e))
		return reply_err(rq, &e);
	c = rq_db(rq, &e);
	got = c ? db_request_patches(c, id, &text, &e) : -1;
	if (got < 0)
		return reply_err(rq, &e);
	if (!got)
		err_setc(&e, ERR_NOT_FOUND, "id", "no request %lld", id);
	else if (!text)
		err_setc(&e, ERR_NOT_FOUND, "patches",
			 "request %lld tests a head commit: it has no patches", id);
	if (!got || !text)
		return reply_err(rq, &e);
	ret = reply_text(rq, 200, "application/mbox", text, strlen(text));
	free(text);
	return ret;
}
