#ifndef REGTRACK_SERVER_CONFIG_H
#define REGTRACK_SERVER_CONFIG_H

#include <stddef.h>

#include "err.h"

/*
 * Server configuration: one declarative table of keys (config.c,
 * `config_keys[]`) with type, default and bounds, read from a `key = value`
 * file (`#` comments) and then overridden by command-line flags. One struct
 * is passed down; there are no config globals.
 */
struct config {
	char *listen;	/* "ADDR:PORT"; port 0 = pick one */
	char *db;	/* libpq conninfo; env REGTRACK_DB */
	char *web_dir;	/* static dashboard files; "" = next to the binary */
	char *smtp_url; /* e.g. smtp://127.0.0.1:2525; "" = mail off */
	char *mail_from;
	char *public_url; /* base of links in mails */
	/* mail (mailer.h) */
	char *smtp_user; /* "" = no SMTP AUTH */
	char *smtp_password;
	char *smtp_starttls;	       /* none | try | required */
	char *mail_dry_run_dir;	       /* non-empty: write DIR/ID.eml instead of sending */
	char *mail_cc;		       /* comma-separated addresses copied on every report */
	char *notify_domains;	       /* comma-separated mail domains an A/B notify may name */
	long mail_to_author;	       /* 1 = the culprit's author gets the report */
	long mail_report_improvements; /* 1 = bisected improvements are mailed too */
	long mail_report_fixed;	       /* 1 = a follow-up when a regression is marked fixed */
	long mail_retry_max_s;	       /* cap of the exponential retry backoff */
	long mail_poll_ms;	       /* outbox poll when not kicked */
	long threads;		       /* HTTP thread pool size */
	long max_connections;	       /* HTTP connections held at once, parked long polls included
					* (lowered to the open-file limit less 64 at start) */
	long max_connections_per_ip;   /* connections one client address may hold; 0 = no limit
					* (behind a proxy every connection has its address) */
	long header_timeout_s; /* a request's headers complete within this of the connection's
				* start or of the end of its previous request */
	long body_timeout_s;   /* a request's body complete within this of its headers */
	long body_limit;       /* bytes; larger request bodies get 413 */
	long public_read;      /* 1 = reads need no token */
	long access_log;       /* 1 = a log line per request (http.c access_line) */
	long lease_timeout_s;  /* job lease without heartbeat */
	long max_attempts;     /* job attempts before it fails for good */
	long db_timeout_ms;    /* statement_timeout per connection */
	char *db_replica;      /* libpq conninfo of a hot standby for lag-tolerant reads; "" = none
				* (replica.h) */
	long db_replica_max_lag; /* seconds: a standby further behind is bypassed */
	/* bare metal (powercycle.h) */
	char *power_cycle;	    /* "" or the program run as PROG HOST MACHINE_ID JOB_ID */
	long power_cycle_timeout_s; /* its time limit */
	long image_limit;	    /* bytes; a larger kernel image upload gets 413 */
	/* change detection (detect_thread.h) */
	long detect_enabled;	      /* 1 = run the detection thread */
	double detect_min_change_pct; /* smallest |%change| a change point needs (monitors: >= 5) */
	double detect_p_max;	      /* window p the detector needs to accept a split */
	long detect_window;	      /* commits per detector window */
	long detect_confirm_commits;  /* commits after a change that confirm it (regressions.h) */
	long detect_poll_ms;	      /* queue poll when no NOTIFY arrives */
	double detect_tip_z;	      /* a tracked tip this many robust sigmas off its window asks
				       * for more runs (detect.h); 0 = off */
	long detect_tip_runs;	      /* runs of each such extra job (tip and the one before) */
	/* bisect (bisect.h, gitmirror.h) */
	char *data_dir;	  /* server data: DATA_DIR/mirrors/TREE.git; relative to the cwd */
	long auto_bisect; /* 1 = bisect confirmed regressions by themselves */
	double auto_bisect_min_pct; /* ... when |size| (the HL shift, %) is at least this */
	long bisect_max_k;	    /* most probes of one bisect in one round */
	long bisect_share_pct;	    /* most of the matching workers one bisect may use */
	long bisect_priority;	    /* job priority of bisect jobs (tracking jobs: 0) */
	long bisect_reuse_runs;	    /* 1 = runs already stored at a commit count as samples */
	long bisect_max_runs;	    /* cap of runs on one commit */
	double bisect_probe_z;	    /* noisy probes: runs for a mean this many standard errors from
				     * the midpoint (lib/bisect/plan.h probe_z; 3: decisive alone);
				     * 0 = runs_per_step (5) a probe: fewer runs, more rounds */
	long bisect_poll_ms;	    /* coordinator poll */
	long git_timeout_s;	    /* each git command of the mirror */
	long resolve_timeout_s;	    /* each git command resolving an A/B request's refs */
	long resolve_threads;	    /* threads resolving A/B requests (resolver.h) */
	/* tracking (poller.h, plan.h) */
	long poll_tick_ms;	     /* how often the poller looks for trees due */
	long poll_timeout_s;	     /* each git command of a poll (fetch, log) */
	long plan_max_jobs_per_push; /* a plan's max_per_push x matrix may not exceed this */
	long track_priority;	     /* tracking jobs: this + the plan's priority, kept below
				      * bisect_priority */
	long track_queue_limit;	     /* a target's queued tracking jobs past this: a push's new
				      * head supersedes the branch's older queued ones; 0 = never */
	long submit_priority_max;    /* highest priority a submit token may give a job */
	long submit_queue_max;	     /* most queued jobs of one submit token; 0 = no limit */
	long profile_diff_max;	     /* profile diffs computed at once; past it 503 */
	long profile_diff_max_mb;    /* folded text one profile diff may read, MiB; past it 413 */
	long profile_diff_cache_mb;  /* profile diff replies kept (replycache.h), MiB; 0 = none */
	long retention_raw_days; /* raw values kept this many days, then dropped (retention.h); 0 = all */
	int public_url_given; /* public_url came from the file or a flag */
};

/* Fills c with the defaults. Strings are new; release with config_release(). */
void config_init(struct config *c);
void config_release(struct config *c);

/*
 * Reads `path` (key = value lines) into c. Errors (-1, e filled, status 400):
 * unreadable file (code "config_io"), unknown key, bad number or out of
 * bounds (code "config_invalid", detail = "FILE:LINE key").
 */
int config_load_file(struct config *c, const char *path, struct err *e)
	__attribute__((warn_unused_result));

/*
 * After the file and the flags: a public_url nobody gave follows listen
 * ("http://HOST:PORT", a wildcard host 0.0.0.0 or [::] written as
 * 127.0.0.1), so that a second server's links and reproduce commands point
 * at itself, not at the first server's :8080. Left as it is when listen's
 * port is 0 (chosen at bind time: give public_url then). Never fails.
 */
void config_derive(struct config *c);

/*
 * 1 when `addr` is a mail address ("local@domain": one '@', no space,
 * control character, comma, angle bracket or quote) whose domain is one
 * of `domains` (comma-separated, spaces around them ignored, compared
 * without case; "" allows none); 0 otherwise. Both borrowed.
 */
int config_mail_domain_ok(const char *domains, const char *addr);

/* Sets one key from text (flags use this too). Errors as config_load_file. */
int config_set(struct config *c, const char *key, const char *value, struct err *e)
	__attribute__((warn_unused_result));

#endif
