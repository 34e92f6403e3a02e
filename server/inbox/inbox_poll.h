#ifndef REGTRACK_SERVER_INBOX_POLL_H
#define REGTRACK_SERVER_INBOX_POLL_H

/*
 * The inbox poller: a background thread (bgthread.h) that
 * follows each registered public-inbox v2 archive (sql/0031) as the tree
 * poller follows trees (poller.h):
 *
 *  1. one server polls an inbox at a time: a session advisory lock on the
 *     inbox's id, taken without waiting (a killed server's lock goes with
 *     its connection);
 *  2. each epoch is mirrored under data_dir/inboxes/NAME/N.git (git clone
 *     --mirror, then fetch): from URL/N for an http(s) URL (as lore serves
 *     them), from PATH/git/N.git for a path; epochs are tried from 0 up
 *     until one does not exist (for a URL: one past the last known that
 *     cannot be cloned);
 *  3. the commits of an epoch after the newest one read (inbox_epochs) are
 *     read oldest first, one message each (blob `m`), and each is stored
 *     with the epoch's new position in one transaction: a server killed
 *     mid-poll loses no message and stores none twice (a message is kept
 *     once per Message-ID, whichever epoch holds it);
 *  4. a poll that fails (the inbox unreachable, git's error) is stored on
 *     the inbox (poll_error, GET /api/v1/inboxes) and the next one backed
 *     off; the other inboxes go on. Each message stored is handed to
 *     series assembly.
 *
 * Config: poll_tick_ms (how often due inboxes are looked for),
 * poll_timeout_s (each git command), data_dir.
 */
struct server;
struct inbox_poller;

/* Starts the thread; NULL (logged) when it cannot start. */
struct inbox_poller *inbox_poller_start(struct server *srv);
/* Looks for due inboxes now (one was registered). NULL is a no-op. */
void inbox_poller_kick(struct inbox_poller *p);
/* Stops the thread after the inbox in hand and frees p. NULL is a no-op. */
void inbox_poller_stop(struct inbox_poller *p);

#endif
