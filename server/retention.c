#include "server/retention.h"
#include "server/bgthread.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/db/migrate.h"
#include "server/db/retention.h"
#include "server/log.h"
#include "server/server.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>

/* partitions are made two months ahead: four passes a day leave a wide margin */
#define RETENTION_PERIOD_S (6 * 3600)

struct retention {
	struct server *srv;
	struct bgthread *thread;
};

static long retention_step(void *arg, int *fd)
{
	struct retention *r = arg;
	long long made = 0, dropped = 0;
	struct err e;
	struct db_conn *c = db_conn(r->srv->db, &e);

	(void)fd;
	if (!c || db_retention(c, r->srv->cfg->retention_raw_days, &made, &dropped, &e))
		slog_warn("%s", e.message);
	else if (made || dropped)
		slog_info("retention: %lld partitions made, %lld months of raw values dropped",
			  made, dropped);
	return RETENTION_PERIOD_S * 1000L;
}

struct retention *retention_start(struct server *srv)
{
	struct retention *r = xcalloc(1, sizeof(*r));
	struct err e;

	r->srv = srv;
	r->thread = bgthread_start("retention", retention_step, r, &e);
	if (!r->thread) {
		slog_error("%s", e.message);
		free(r);
		return NULL;
	}
	return r;
}

void retention_stop(struct retention *r)
{
	if (!r)
		return;
	bgthread_stop(r->thread);
	free(r);
}

int retention_cli(const struct config *cfg)
{
	long long made = 0, dropped = 0;
	struct err e;
	struct db_conn *c = db_connect_once(cfg->db, &e);

	if (!c || migrate_apply(c, NULL, &e) ||
	    db_retention(c, cfg->retention_raw_days, &made, &dropped, &e)) {
		slog_error("%s", e.message);
		db_close(c);
		return 1;
	}
	db_close(c);
	printf("partitions made: %lld, months dropped: %lld (retention_raw_days %ld)\n", made,
	       dropped, cfg->retention_raw_days);
	return 0;
}
