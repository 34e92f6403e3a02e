#ifndef REGTRACK_SERVER_RETENTION_H
#define REGTRACK_SERVER_RETENTION_H

struct server;
struct config;
struct retention;

/*
 * The retention thread: at start and then every RETENTION_PERIOD_S (six
 * hours) it keeps the month partitions of run_values and run_means made
 * ahead and, when the config's retention_raw_days is above 0, drops
 * the months of raw values older than that (server/db/retention.h). A
 * failed pass is logged and tried again at the next period. srv is
 * borrowed until retention_stop(). Returns a new handle, or NULL (logged)
 * when the thread could not start.
 */
struct retention *retention_start(struct server *srv);
/* Stops the thread (waits for a pass under way) and frees r. NULL is a no-op. */
void retention_stop(struct retention *r);

/*
 * `regtrack-server retention`: one pass now against cfg->db, its counts
 * printed on stdout. Returns the exit code: 0, 1 when the pass failed.
 */
int retention_cli(const struct config *cfg);

#endif
