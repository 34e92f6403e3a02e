#ifndef REGTRACK_REPORT_H
#define REGTRACK_REPORT_H

#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "err.h"
#include "evidence.h"
#include "lkptext.h"
#include "mailmsg.h"

/*
 * Regression report mails, modelled on the 0-day kernel test robot's
 * performance reports (our own wording). Two pure steps in two modules:
 *
 *   report_render()   report_input -> subject + body text (UTF-8, LF); here
 *   report_compose()  addresses, subject, ids, body -> one RFC 5322
 *                     message (CRLF), every header checked or encoded;
 *                     lib/mailmsg.h (included here for the callers of both)
 *
 * Nothing here touches the database or the network (server/mail/mailer.c does).
 * Text that came from git or from users is put on one line (control
 * characters as spaces) in the subject and the body; mailmsg.h says how
 * headers are made safe.
 */

enum report_kind {
	REPORT_BISECT, /* a bisect named the first bad commit (culprit_* set) */
	REPORT_RANGE,  /* detected between good_sha and bad_sha, not bisected */
	REPORT_FIXED,  /* follow-up: the regression was marked fixed */
};

struct report_param {
	const char *name, *value;
};

/* One file the culprit touched; insertions/deletions -1 for a binary file. */
struct report_file {
	const char *path;
	long insertions, deletions;
};

/*
 * The same change seen on another arch (server/db/regressions.h says when):
 * printed under the opening sentence as "also seen on arm64: -62.0%" with
 * the link to its page when regression_id > 0.
 */
struct report_also_seen {
	const char *arch; /* the kernel's name: "x86_64", "arm64" */
	double pct;	  /* its size in %: the HL shift, else the means' %change; NAN = unknown */
	long long regression_id;
};

/* A command shown in the body under a comment line: "  # LABEL\n  COMMAND". */
struct report_command {
	const char *label, *command;
};

/* At most this many files of the culprit are listed in the body. */
#define REPORT_MAX_FILES 20

/* One bisect step, in the order tested. */
struct report_step {
	const char *sha;     /* full sha */
	const char *subject; /* may be NULL */
	const char *verdict; /* "good", "bad", "skip", … */
	double mean;	     /* mean of the step's samples; NAN = none */
	int nr_samples;
};

/*
 * Everything a report says. Every pointer is borrowed for the duration of
 * report_render(); NULL strings are left out of the text (a NULL tree or
 * metric is an error). Sizes: nr_cpus/memory_mb <= 0 = unknown.
 */
struct report_input {
	enum report_kind kind;
	const char *tree, *branch; /* branch may be NULL */
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
	 * The guest's shape, each left out when NULL / 0:
	 * "16 vCPUs pinned, 2 NUMA nodes, 4G memory on 2M hugepages, x86_64
	 * qemu guest (kvm, cpu host)". guest_cpu_model is qemu's -cpu ("host",
	 * "max", "qemu64"); only "host" is named (the host's PMU and features).
	 */
	const char *guest_cpu_model, *guest_hugepages;
	int guest_pinned;
	long guest_numa_nodes;
	/*
	 * The table's two sides ran on hosts with different fingerprints:
	 * hostfp_note()'s text ("base and head ran on hosts that differ in
	 * microcode (0xf0 vs 0xf4)"), printed as "note:     TEXT" under the
	 * machine line; NULL = they agree (or are not known): no line.
	 */
	const char *host_note;
	/*
	 * REPORT_BISECT: the table's base when the parent has no runs of its
	 * own in the setup because its kernel image is identical to a tested
	 * commit's (the bisect took that commit's runs for it): that commit's
	 * sha and subject, shown as the base with a line saying so; NULL = the
	 * parent is the base.
	 */
	const char *table_base_sha, *table_base_subject;
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
	/*
	 * head vs base, signed, in % (1 decimal; 3 significant digits from
	 * 1e9 on). A change from a base of zero (evidence_base_zero() of
	 * `evidence` below, with a %change of 1e9 or more: LKP's 1e-100 base)
	 * is said as its levels instead: "regression from 0 to 5" in the
	 * subject, "... from 0 to 5 (the base is 0: no %change)" in the text.
	 */
	double change_pct;
	int is_regression;	    /* 1 regression, 0 improvement */
	const struct lkp_row *rows; /* the comparison table (may be 0 rows), perf-profile.* last */
	size_t nr_rows;
	size_t nr_rows_omitted; /* metrics compared but not in rows (said under the table) */
	const struct report_step *steps;
	size_t nr_steps;
	const char *reproduce; /* one command, shown verbatim */
	/*
	 * The token-free commands that run the data points on a developer's
	 * own box (regtrack-worker reproduce, inside a kernel tree), each
	 * under its label ("first bad commit", "parent"); and the URL of the
	 * .config the first bad commit (RANGE: the bad end) was built with.
	 * None / NULL: left out.
	 */
	const struct report_command *reproduce_local;
	size_t nr_reproduce_local;
	const char *config_url;
	const char *public_url;			  /* base of links, no trailing '/' needed */
	long long regression_id, bisect_id;	  /* <= 0 = none */
	const char *mail_from;			  /* "Name <addr>" or "addr" */
	const struct report_also_seen *also_seen; /* other arches, in the order given */
	size_t nr_also_seen;
	/*
	 * The record's evidence (BISECT and RANGE), printed under the opening
	 * sentence as "evidence: SENTENCE; p P" (evidence_text(), lib/evidence.h;
	 * p the record's Mann-Whitney p of its two sides, left out when NAN);
	 * nothing when evidence_text() has nothing to say (commits_after 0).
	 */
	struct evidence evidence;
	double evidence_p;
	/* REPORT_FIXED: what the original report said, and the fix if known */
	const char *orig_subject; /* the thread's first subject */
	const char *fix_sha, *fix_subject;
};

struct report {
	char *subject;	 /* new, one line, UTF-8 (control chars as spaces) */
	struct buf body; /* UTF-8 text, '\n' line ends */
};

/*
 * Renders in into out (which the function initialises; release with
 * report_release() whatever the result). Subject shapes:
 *   BISECT  "[TREE:BRANCH] [PREFIX] SHA12: METRIC -X.X% regression"
 *           PREFIX = the culprit subject up to its last ':' (left out when
 *           it has none); "improvement" for improvements
 *   RANGE   "[TREE:BRANCH] GOOD12..BAD12: METRIC -X.X% regression"
 *   FIXED   "Re: " + orig_subject
 * Errors (-1, e filled, detail the field): ERR_MISSING_FIELD when tree or
 * metric is missing, BISECT without culprit_sha, RANGE without bad_sha,
 * FIXED without orig_subject; ERR_TOO_LARGE when the subject or the body
 * (1 MiB) does not fit.
 */
int report_render(const struct report_input *in, struct report *out, struct err *e)
	__attribute__((warn_unused_result));
void report_release(struct report *r);

/*
 * The test machine of in as the report's "machine:" line says it, without
 * the label or the newline, appended to b: "TBOX - 2 vCPUs pinned, 2G memory,
 * x86_64 qemu guest (tcg) on HOST_CPU" for a run in a qemu guest (accel
 * "kvm" or "tcg"), else "TBOX - 8 CPUs, 16G memory, x86_64 (HOST_CPU)"; only
 * the machine fields of in are read. Appends nothing when none is known.
 * Returns 0, or -1 when b's cap was reached.
 */
int report_machine_text(const struct report_input *in, struct buf *b)
	__attribute__((warn_unused_result));

/* The subject's PREFIX: subject up to its last ':' (trimmed), or "" (into out[len]). */
void report_subject_prefix(const char *subject, char *out, size_t len);

/*
 * 1 when every one of files[0..n) lies outside what the kconfig's kernel
 * builds: Documentation/, tools/, or arch/OTHER/ for a kconfig named
 * "x86_64-…" (arch x86) or "arm64-…" (arch arm64; any other kconfig: no
 * arch is left out), with those areas listed in areas ("Documentation/,
 * arch/arm64/", cut to size); 0 otherwise (also for no files). A BISECT
 * report says so under the culprit's diffstat.
 */
int report_outside_build(const struct report_file *files, size_t n, const char *kconfig,
			 char *areas, size_t size);

#endif
