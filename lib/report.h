#ifndef REGTRACK_REPORT_H
#define REGTRACK_REPORT_H

#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "err.h"
#include "lkptext.h"

/*
 * Regression report mails, modelled on the 0-day kernel test robot's
 * performance reports (our own wording). Two pure steps:
 *
 *   report_render()   report_input -> subject + body text (UTF-8, LF)
 *   report_compose()  addresses, subject, ids, body -> one RFC 5322
 *                     message (CRLF), every header checked or encoded
 *
 * Nothing here touches the database or the network (server/mailer.c does).
 *
 * Header safety: text that came from git or from users (commit subjects,
 * metric names, tree names) never reaches a header raw. report_compose()
 * turns every control character (CR and LF included) in the subject into a
 * space and encodes a subject with non-ASCII bytes as RFC 2047 encoded
 * words (UTF-8, base64), folded; addresses and message ids are checked
 * (report_addr_ok, report_msgid_ok) and rejected, not repaired.
 */

enum report_kind {
	REPORT_BISECT,  /* a bisect named the first bad commit (culprit_* set) */
	REPORT_RANGE,   /* detected between good_sha and bad_sha, not bisected */
	REPORT_FIXED,   /* follow-up: the regression was marked fixed */
};

struct report_param {
	const char *name, *value;
};

/* One file the culprit touched; insertions/deletions -1 for a binary file. */
struct report_file {
	const char *path;
	long insertions, deletions;
};

/* At most this many files of the culprit are listed in the body. */
#define REPORT_MAX_FILES 20

/* One bisect step, in the order tested. */
struct report_step {
	const char *sha;        /* full sha */
	const char *subject;    /* may be NULL */
	const char *verdict;    /* "good", "bad", "skip", … */
	double mean;            /* mean of the step's samples; NAN = none */
	int nr_samples;
};

/*
 * Everything a report says. Every pointer is borrowed for the duration of
 * report_render(); NULL strings are left out of the text (a NULL tree or
 * metric is an error). Sizes: nr_cpus/memory_mb <= 0 = unknown.
 */
struct report_input {
	enum report_kind kind;
	const char *tree, *branch;              /* branch may be NULL */
	/* REPORT_BISECT: the first bad commit and its parent (the table's base) */
	const char *culprit_sha, *culprit_subject, *culprit_author, *culprit_email;
	const char *parent_sha, *parent_subject;
	/* REPORT_RANGE (and as context in BISECT): last good and first bad tested */
	const char *good_sha, *good_subject, *bad_sha, *bad_subject;
	const char *testcase, *kconfig, *compiler, *tbox_group, *mode;
	const struct report_param *params;
	size_t nr_params;
	const char *machine_arch, *cpu_model;
	long nr_cpus;
	long long memory_mb;
	/*
	 * The test machine when the benchmark ran in a qemu guest (accel "kvm"
	 * or "tcg"; NULL or anything else = on the host itself, described by
	 * nr_cpus/memory_mb/machine_arch above). Then the machine line shows
	 * the guest (guest_cpus vCPUs, guest_memory_mb, guest_arch or else
	 * machine_arch, accel, icount) "on" cpu_model, the host's CPU model.
	 * guest_cpus/guest_memory_mb <= 0 = unknown (left out).
	 */
	const char *accel, *guest_arch;
	long guest_cpus;
	long long guest_memory_mb;
	int icount;
	/*
	 * The culprit's diffstat (has_diffstat 0 = not known; REPORT_RANGE:
	 * of bad_sha, shown when the range is that one commit):
	 * totals as `git diff --shortstat` and the files (the first
	 * REPORT_MAX_FILES are listed, with how many more there are).
	 */
	int has_diffstat;
	long long files_changed, insertions, deletions;
	const struct report_file *files;
	size_t nr_files;
	const char *metric;
	double change_pct;                      /* head vs base, signed, in % */
	int is_regression;                      /* 1 regression, 0 improvement */
	const struct lkp_row *rows;             /* the comparison table (may be 0 rows) */
	size_t nr_rows;
	size_t nr_rows_omitted;                 /* metrics compared but not in rows (said under the table) */
	const struct report_step *steps;
	size_t nr_steps;
	const char *reproduce;                  /* one command, shown verbatim */
	const char *public_url;                 /* base of links, no trailing '/' needed */
	long long regression_id, bisect_id;     /* <= 0 = none */
	const char *mail_from;                  /* "Name <addr>" or "addr" */
	/* REPORT_FIXED: what the original report said, and the fix if known */
	const char *orig_subject;               /* the thread's first subject */
	const char *fix_sha, *fix_subject;
};

struct report {
	char *subject;          /* new, one line, UTF-8 (control chars as spaces) */
	struct buf body;        /* UTF-8 text, '\n' line ends */
};

/*
 * Renders in into out (which the function initialises; release with
 * report_release() whatever the result). Subject shapes:
 *   BISECT  "[TREE:BRANCH] [PREFIX] SHA12: METRIC -X.X% regression"
 *           PREFIX = the culprit subject up to its last ':' (left out when
 *           it has none); "improvement" for improvements
 *   RANGE   "[TREE:BRANCH] GOOD12..BAD12: METRIC -X.X% regression"
 *   FIXED   "Re: " + orig_subject
 * Errors (-1, e filled, status 500, code "report_invalid"): tree or metric
 * missing, BISECT without culprit_sha, RANGE without bad_sha, FIXED
 * without orig_subject.
 */
int report_render(const struct report_input *in, struct report *out, struct err *e)
	__attribute__((warn_unused_result));
void report_release(struct report *r);

/* The subject's PREFIX: subject up to its last ':' (trimmed), or "" (into out[len]). */
void report_subject_prefix(const char *subject, char *out, size_t len);

/*
 * Extracts the addr-spec from "Name <addr>" or "addr" into out[len].
 * Returns 0, or -1 when the result is not report_addr_ok().
 */
int report_addr_spec(const char *from, char *out, size_t len);

/*
 * 1 when addr is a plain addr-spec we are willing to put in a header or an
 * SMTP envelope: local@domain, printable ASCII only, no space, no
 * '<>()[],;:"\\', one '@', at most 254 bytes.
 */
int report_addr_ok(const char *addr);

/* 1 when id looks like "<local@host>" with only printable ASCII, no spaces, <= 250 bytes. */
int report_msgid_ok(const char *id);

/*
 * Appends "Name: value\r\n" with value made safe: control characters
 * become spaces, runs of spaces collapse, and a value with non-ASCII bytes
 * is encoded as RFC 2047 "=?UTF-8?B?…?=" words (<= 75 chars each, split
 * on UTF-8 character boundaries) folded onto continuation lines. Returns
 * 0, or -1 when out's cap was reached.
 */
int report_header_text(struct buf *out, const char *name, const char *value)
	__attribute__((warn_unused_result));

/* One mail, ready to compose. Borrowed pointers. */
struct report_mail {
	const char *from;               /* "Name <addr>" or "addr"; Name is encoded like text */
	const char *const *to;          /* addr-specs */
	size_t nr_to;
	const char *const *cc;
	size_t nr_cc;
	const char *subject;
	const char *message_id;         /* "<…@…>" */
	const char *in_reply_to;        /* NULL, or the parent's message id */
	const char *references;         /* NULL, or message ids separated by spaces */
	time_t date;
	const char *body;               /* UTF-8, '\n' or "\r\n" line ends */
};

/*
 * Appends the complete message (headers, blank line, body; CRLF line ends;
 * body lines longer than 998 bytes are broken) to out. Errors (-1, e
 * filled, status 400, code "invalid_mail"): no recipient, an address that
 * is not report_addr_ok() (detail: the address), a message id that is not
 * report_msgid_ok(), out's cap reached (status 500).
 */
int report_compose(struct buf *out, const struct report_mail *m, struct err *e)
	__attribute__((warn_unused_result));

#endif
