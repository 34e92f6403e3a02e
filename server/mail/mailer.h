#ifndef REGTRACK_SERVER_MAILER_H
#define REGTRACK_SERVER_MAILER_H

#include "err.h"
#include "server/config.h"

struct db_conn;

struct server;

/*
 * The mailer thread (bgthread.h): sends the outbox (outbox.h) through
 * smtp.h, with each report's input gathered by mail_gather.h.
 *
 * One row at a time, in id order: BEGIN; claim the oldest due queued row
 * (FOR UPDATE SKIP LOCKED, so several servers never take the same row);
 * render it if it was never rendered (subject, body, recipients, a new
 * Message-ID "<uuid@domain of mail_from>", In-Reply-To for follow-ups:
 * fixed then); send; mark it 'sent' (or 'dry_run') or, when sending
 * failed, keep it queued with attempts + 1 and next_attempt_at = now +
 * min(2^attempts s, mail_retry_max_s); COMMIT. A mail server outage thus
 * delays mail and never drops it; the only way a mail goes out twice is a
 * crash between the server's "250 OK" and our COMMIT.
 *
 * A row claimed while mailer_hold_reason() holds mail is set 'held' with
 * that reason as last_error (and a log line), unrendered; a server that
 * starts with a configuration that can mail queues held rows again.
 *
 * Rows the mailer does not send: no recipient after matching (state
 * 'skipped'), an improvement when mail_report_improvements = 0 or a
 * follow-up when mail_report_fixed = 0 ('skipped'), a follow-up of a
 * regression never reported or a row whose regression is gone ('failed').
 * A follow-up waits (1 s steps) until its thread's first mail is rendered.
 *
 * Recipients: every subscription whose tree and testcase match (NULL =
 * any), whose metric glob matches (fnmatch) and, when it lists paths,
 * one of whose globs matches a file the culprit touched (unknown files =
 * no match); the culprit's author when mail_to_author = 1; mail_cc (comma
 * separated) always. Duplicates are dropped; addresses that fail
 * report_addr_ok() are left out.
 *
 * Config: smtp_url ("" = do not send), smtp_user, smtp_password,
 * smtp_starttls (none|try|required), mail_from, public_url,
 * mail_dry_run_dir (non-empty: write DIR/<outbox id>.eml and mark the row
 * 'dry_run' instead of sending), mail_to_author, mail_cc,
 * mail_report_improvements, mail_report_fixed, mail_retry_max_s,
 * mail_poll_ms.
 */
struct mailer;

/* mail_from's address and public_url by default (config.c): no reader can reach them */
#define MAILER_DEFAULT_FROM "regtrack@localhost"
#define MAILER_DEFAULT_PUBLIC_URL "http://127.0.0.1:8080"

/*
 * Whether cfg keeps mail from going out, and why: 1 with out = "held:
 * smtp_url not set" (neither smtp_url nor mail_dry_run_dir); when mail is
 * sent through smtp_url, "held: " and what is still the default: "mail_from
 * is the default (regtrack@localhost)" (that address, whatever the name),
 * "public_url not set" (neither in the file nor a flag: following listen
 * counts as not set), "public_url is the default (http://127.0.0.1:8080)"
 * (given as that, a trailing '/' aside), the two joined by " and ": a
 * report's Reported-by and Closes tags end up in upstream commits, and
 * those reach nobody. 0 when mail can go out (a dry run always can: its
 * files reach no reader). Pure; out[size] is always NUL-terminated.
 */
int mailer_hold_reason(const struct config *cfg, char *out, size_t size);

/* Checks the mail keys of cfg (smtp_starttls value, mail_from address). -1 with e (ERR_CONFIG, 400). */
int mailer_check_config(const struct config *cfg, struct err *e)
	__attribute__((warn_unused_result));

/*
 * 1 when a subscription's path pattern `pat` matches `file`, a path the
 * culprit touched (as git prints it, relative to the tree's root):
 *  - a pattern with a glob character (* ? [) is matched by fnmatch(3)
 *    without FNM_PATHNAME, so '*' crosses '/': "mm*.c" matches mm/mmap.c
 *    and mm/kasan/common.c, "*.h" every header;
 *  - any other pattern is a prefix ending on a '/' boundary: "mm/" and
 *    "mm" match mm/mmap.c, "mm" does not match mmx/a.c, "mm/mmap.c"
 *    matches only itself.
 * An empty pattern matches nothing. A subscription's paths are a list:
 * one matching file of the culprit is enough. A report without a culprit
 * (a range report), or whose culprit's files are not known, matches no
 * subscription that has paths.
 */
int mailer_path_match(const char *pat, const char *file);

/*
 * 1 when one of `pats` (patterns separated by '\n', as db_mail_subs_match()
 * returns them) matches one of `files` (NULL-terminated; NULL = not
 * known, which matches nothing). Pure.
 */
int mailer_paths_match(const char *pats, const char *const *files);

/*
 * 1 when a subscription with metric glob `metric_glob` and path patterns
 * `paths` ("" for either = any) wants the report of `metric` whose
 * culprit touched `files` (as mailer_paths_match()). Pure.
 */
int mailer_sub_match(const char *metric_glob, const char *paths, const char *metric,
		     const char *const *files);

/*
 * Starts the thread (NULL when it cannot start: logged). Its first step
 * logs what holds mail (mailer_hold_reason()) and what to set, or, when
 * nothing does, queues the held rows again (and logs how many). It handles up to 50 due rows at
 * once, then sleeps mail_poll_ms or until mailer_kick().
 */
struct mailer *mailer_start(struct server *srv);
/* Stops the thread (after the row in hand) and frees m; NULL is a no-op. */
void mailer_stop(struct mailer *m);
/* Wakes the thread now (a row was queued); NULL is a no-op. */
void mailer_kick(struct mailer *m);

/*
 * One round on connection c: handles the oldest due row. Returns 1 when a
 * row was handled (sent, dry-run, skipped, failed or put back for a
 * retry), 0 when none was due, -1 with e on a database error.
 */
int mailer_run_once(struct db_conn *c, const struct config *cfg, struct err *e)
	__attribute__((warn_unused_result));

#endif
