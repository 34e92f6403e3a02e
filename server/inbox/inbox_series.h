#ifndef REGTRACK_SERVER_INBOX_SERIES_H
#define REGTRACK_SERVER_INBOX_SERIES_H

#include <signal.h>

struct db_conn;

/*
 * Series assembly, run by the inbox poller after each
 * poll of an inbox, with the inbox's lock held (one server at a time):
 *
 *  1. each new message is read by its subject (lib/patchsubj.h): a patch
 *     or cover letter ("[PATCH vN m/n]", RESEND, RFC) sent to one of the
 *     inbox's lists and with one of its subject prefixes joins a series;
 *     replies ("Re:", review tags) and anything else join none. A series
 *     is anchored at its cover letter (0/n), else at its patch 1: the
 *     first of a part's References that is (or, not stored yet, may be)
 *     part 0 or 1 of the same version, else the part itself;
 *  2. a series waits for its parts 1..n until its deadline (first part +
 *     the inbox's parts_wait_s), then is `incomplete`;
 *  3. a complete one: `b4 am` (Debian's b4, offline, a child with a
 *     timeout, its own HOME) makes the am-ready mbox from the thread's
 *     messages (parts in order, review tags of replies added as b4 does);
 *     a series touching none of the inbox's paths is `filtered`; the base
 *     is its `base-commit:` when the plan's tree mirror has it, else the
 *     plan's first branch head; `git am` on a throwaway shared clone of
 *     the server's mirror (a child with a timeout, no shell) either
 *     applies it or makes it `not-applying` with git's message; the
 *     patch-ids (`git patch-id --stable`, sorted) of a series already
 *     queued make it a `duplicate` (a RESEND is not tested again); else
 *     it is queued as an A/B request by the inbox's plan (label: its
 *     anchor's Message-ID) and `queued`; an am-ready mbox past what a
 *     request takes (MBOX_MAX_BYTES) is `filtered`, one that is not UTF-8
 *     text (a request's patches are) `failed`. A vN series links to the
 *     newest lower version of its title (previous_id).
 *
 * A failure that may pass (b4 or git am timing out, the mirror, a git
 * command or the database failing, the request submission refusing for
 * now: overloaded, quota, busy) leaves the series `waiting` and backs it
 * off (db_inbox_series_retry): INBOX_SERIES_TRIES of them end it `failed`
 * with the last reason. Each series' move is one statement, so a server
 * killed in the middle of a step loses none; the request is stored in its own
 * transaction, and one a killed server stored before it recorded it (same
 * label, same patches, no series) is taken rather than queued again.
 */
struct server;
struct err;

/* tries of a series' check before a failure that may pass ends it `failed` */
#define INBOX_SERIES_TRIES 6

/*
 * One pass over inbox inbox_id (see above); c is the poller's connection.
 * stop (borrowed, not NULL) becoming non-zero kills the running child (b4,
 * git am) and ends the pass; the series cut short is not counted a try.
 * 0, or -1 with e when the inbox's messages or series could not be read
 * (the poller shows it on the inbox and backs the inbox off).
 */
int inbox_series_step(struct server *srv, struct db_conn *c, long long inbox_id,
		      volatile sig_atomic_t *stop, struct err *e);

#endif
