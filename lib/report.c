#include "report.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADDR_MAX REPORT_ADDR_MAX

/* Appends s on one line: control characters become spaces. */
static int add_oneline(struct buf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (buf_addch(out, ch < 0x20 || ch == 0x7f ? ' ' : (char)ch))
			return -1;
	}
	return 0;
}

void report_subject_prefix(const char *subject, char *out, size_t len)
{
	const char *colon = subject ? strrchr(subject, ':') : NULL;
	const char *s = subject;
	size_t n;

	if (!len)
		return;
	out[0] = '\0';
	if (!colon)
		return;
	while (s < colon && *s == ' ')
		s++;
	n = (size_t)(colon - s);
	while (n && s[n - 1] == ' ')
		n--;
	if (n + 1 > len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

static const char *word(const struct report_input *in)
{
	return in->is_regression ? "regression" : "improvement";
}

/*
 * A % for a person: 1 decimal, 3 significant digits from 1e9 on (a base
 * near zero, where LKP's %change has a hundred digits)
 */
static void pct_text(double x, char out[40])
{
	snprintf(out, 40, fabs(x) < 1e9 ? "%+.1f%%" : "%+.3g%%", x);
}

/*
 * 1 when the headline says the levels, not a %: a change from a base of
 * zero (evidence_base_zero()) whose %change is that of LKP's 1e-100 base
 * (a bisect's finite HL shift of its own pair keeps its %)
 */
static int base_zero(const struct report_input *in)
{
	return evidence_base_zero(&in->evidence) && !(fabs(in->change_pct) < 1e9);
}

/* the headline's size: "+3.0%", or for a base of zero "from 0 to 5" */
static int add_size(struct buf *b, const struct report_input *in)
{
	char x[40];

	if (base_zero(in)) {
		evidence_level(in->evidence.after, x);
		return buf_addf(b, "from 0 to %s", x);
	}
	pct_text(in->change_pct, x);
	return buf_addstr(b, x);
}

static int add_tag(struct buf *b, const struct report_input *in)
{
	if (in->branch && *in->branch)
		return buf_addstr(b, "[") || add_oneline(b, in->tree) || buf_addstr(b, ":") ||
		       add_oneline(b, in->branch) || buf_addstr(b, "]");
	return buf_addstr(b, "[") || add_oneline(b, in->tree) || buf_addstr(b, "]");
}

static int render_subject(const struct report_input *in, struct buf *b)
{
	char prefix[256];

	if (in->kind == REPORT_FIXED)
		return buf_addstr(b, "Re: ") || add_oneline(b, in->orig_subject);
	if (add_tag(b, in))
		return -1;
	if (in->kind == REPORT_BISECT) {
		report_subject_prefix(in->culprit_subject, prefix, sizeof(prefix));
		if (*prefix &&
		    (buf_addstr(b, " [") || add_oneline(b, prefix) || buf_addstr(b, "]")))
			return -1;
		if (buf_addf(b, " %.12s:", in->culprit_sha))
			return -1;
	} else if (buf_addf(b, " %.12s..%.12s:", in->good_sha ? in->good_sha : "?", in->bad_sha)) {
		return -1;
	}
	if (base_zero(in))
		return buf_addch(b, ' ') || add_oneline(b, in->metric) ||
		       buf_addf(b, " %s ", word(in)) || add_size(b, in);
	return buf_addch(b, ' ') || add_oneline(b, in->metric) || buf_addch(b, ' ') ||
	       add_size(b, in) || buf_addf(b, " %s", word(in));
}

/* "  LABEL SHA ("subject")\n" */
static int commit_line(struct buf *b, const char *label, const char *sha, const char *subject)
{
	if (!sha)
		return 0;
	if (buf_addf(b, "%-10s%s", label, sha))
		return -1;
	if (subject && (buf_addstr(b, " (\"") || add_oneline(b, subject) || buf_addstr(b, "\")")))
		return -1;
	return buf_addch(b, '\n');
}

static int field(struct buf *b, const char *label, const char *v)
{
	if (!v || !*v)
		return 0;
	return buf_addf(b, "%-10s", label) || add_oneline(b, v) || buf_addch(b, '\n');
}

static int links(struct buf *b, const struct report_input *in)
{
	const char *base = in->public_url ? in->public_url : "";
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	if (in->regression_id > 0 &&
	    buf_addf(b, "dashboard: %.*s/regressions/%lld\n", (int)n, base, in->regression_id))
		return -1;
	if (in->bisect_id > 0 &&
	    buf_addf(b, "bisect:    %.*s/bisects/%lld\n", (int)n, base, in->bisect_id))
		return -1;
	return 0;
}

/*
 * The one step to call the alert a false alarm: the page, where
 * an admin token has a button, and the CLI command that does the same
 * (POST /api/v1/regressions/{id}/invalid); nothing without a record.
 */
static int invalid_step(struct buf *b, const struct report_input *in)
{
	const char *base = in->public_url ? in->public_url : "";
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	if (in->regression_id <= 0)
		return 0;
	if (buf_addf(b,
		     "\nnot a real change? an admin marks it invalid in one step, on "
		     "%.*s/regressions/%lld or with:\n  regtrack ",
		     (int)n, base, in->regression_id))
		return -1;
	if (n && buf_addf(b, "--server %.*s ", (int)n, base))
		return -1;
	return buf_addf(b, "regression invalid %lld --reason \"...\"\n", in->regression_id);
}

static int render_fixed(const struct report_input *in, struct buf *b)
{
	if (buf_addstr(b, "Hello,\n\nthe ") || buf_addstr(b, word(in)) ||
	    buf_addstr(b, " reported in this thread, ") || add_oneline(b, in->metric) ||
	    buf_addch(b, ' ') || add_size(b, in))
		return -1;
	if (in->culprit_sha && buf_addf(b, " at %.12s", in->culprit_sha))
		return -1;
	if (buf_addstr(b, ", is now marked fixed"))
		return -1;
	if (in->fix_sha) {
		if (buf_addf(b, " by commit %s", in->fix_sha))
			return -1;
		if (in->fix_subject && (buf_addstr(b, " (\"") || add_oneline(b, in->fix_subject) ||
					buf_addstr(b, "\")")))
			return -1;
	}
	if (buf_addstr(b, ".\n\n") || links(b, in) ||
	    buf_addstr(b, "\nThank you.\n\n-- \nregtrack\n"))
		return -1;
	return 0;
}

static int add_memory(struct buf *b, const char *sep, long long mb)
{
	return mb % 1024 == 0 ? buf_addf(b, "%s%lldG memory", sep, mb / 1024) :
				buf_addf(b, "%s%lldM memory", sep, mb);
}

/* 1 when the benchmark ran in a qemu guest */
static int in_guest(const struct report_input *in)
{
	return in->accel && (!strcmp(in->accel, "kvm") || !strcmp(in->accel, "tcg"));
}

/*
 * "TBOX - 2 vCPUs, 2G memory, arm64 qemu guest (tcg, icount) on HOST_CPU":
 * the guest the benchmark ran in, and the host's CPU model.
 */
static int guest_text(const struct report_input *in, struct buf *b)
{
	const char *arch = in->guest_arch && *in->guest_arch ? in->guest_arch : in->machine_arch;
	const char *sep = " ";

	if (in->tbox_group && (add_oneline(b, in->tbox_group) || buf_addstr(b, " -")))
		return -1;
	if (in->guest_cpus > 0) {
		if (buf_addf(b, " %ld vCPU%s%s", in->guest_cpus, in->guest_cpus == 1 ? "" : "s",
			     in->guest_pinned ? " pinned" : ""))
			return -1;
		sep = ", ";
	}
	if (in->guest_numa_nodes > 0) {
		if (buf_addf(b, "%s%ld NUMA node%s", sep, in->guest_numa_nodes,
			     in->guest_numa_nodes == 1 ? "" : "s"))
			return -1;
		sep = ", ";
	}
	if (in->guest_memory_mb > 0) {
		if (add_memory(b, sep, in->guest_memory_mb))
			return -1;
		sep = ", ";
	}
	if (in->guest_hugepages && *in->guest_hugepages &&
	    (buf_addstr(b, in->guest_memory_mb > 0 ? " on " : sep) ||
	     add_oneline(b, in->guest_hugepages) || buf_addstr(b, " hugepages")))
		return -1;
	if (buf_addstr(b, sep) || (arch && (add_oneline(b, arch) || buf_addch(b, ' '))) ||
	    buf_addf(b, "qemu guest (%s%s%s)", in->accel, in->icount ? ", icount" : "",
		     in->guest_cpu_model && !strcmp(in->guest_cpu_model, "host") ? ", cpu host" :
										   ""))
		return -1;
	if (in->cpu_model && *in->cpu_model &&
	    (buf_addstr(b, " on ") || add_oneline(b, in->cpu_model)))
		return -1;
	return 0;
}

int report_machine_text(const struct report_input *in, struct buf *b)
{
	int sep = 0;

	if (in_guest(in))
		return guest_text(in, b);
	if (!in->tbox_group && !in->machine_arch && in->nr_cpus <= 0 && in->memory_mb <= 0)
		return 0;
	if (in->tbox_group && (add_oneline(b, in->tbox_group) || buf_addstr(b, " -")))
		return -1;
	if (in->nr_cpus > 0) {
		if (buf_addf(b, " %ld CPUs", in->nr_cpus))
			return -1;
		sep = 1;
	}
	if (in->memory_mb > 0) {
		if (add_memory(b, sep ? ", " : " ", in->memory_mb))
			return -1;
		sep = 1;
	}
	if (in->machine_arch &&
	    (buf_addstr(b, sep ? ", " : " ") || add_oneline(b, in->machine_arch)))
		return -1;
	if (in->cpu_model && *in->cpu_model &&
	    (buf_addstr(b, " (") || add_oneline(b, in->cpu_model) || buf_addch(b, ')')))
		return -1;
	return 0;
}

/* "machine:  " and report_machine_text(), a line; nothing when nothing is known */
static int render_machine(const struct report_input *in, struct buf *b)
{
	if (!in_guest(in) && !in->tbox_group && !in->machine_arch && in->nr_cpus <= 0 &&
	    in->memory_mb <= 0)
		return 0;
	if (buf_addf(b, "%-10s", "machine:") || report_machine_text(in, b))
		return -1;
	return buf_addch(b, '\n');
}

/*
 * "diffstat: 2 files changed, 12 insertions(+), 3 deletions(-)" in the words
 * of `git diff --shortstat` (zero counts left out as git does), then the
 * first REPORT_MAX_FILES files with their counts.
 */
static int render_diffstat(const struct report_input *in, struct buf *b)
{
	size_t shown = in->nr_files < REPORT_MAX_FILES ? in->nr_files : REPORT_MAX_FILES;

	if (!in->has_diffstat)
		return 0;
	if (buf_addf(b, "%-10s%lld file%s changed", "diffstat:", in->files_changed,
		     in->files_changed == 1 ? "" : "s"))
		return -1;
	if (in->insertions &&
	    buf_addf(b, ", %lld insertion%s(+)", in->insertions, in->insertions == 1 ? "" : "s"))
		return -1;
	if (in->deletions &&
	    buf_addf(b, ", %lld deletion%s(-)", in->deletions, in->deletions == 1 ? "" : "s"))
		return -1;
	if (buf_addch(b, '\n'))
		return -1;
	for (size_t i = 0; i < shown; i++) {
		const struct report_file *f = &in->files[i];
		char num[48];

		if (f->insertions < 0 || f->deletions < 0)
			snprintf(num, sizeof(num), "binary");
		else
			snprintf(num, sizeof(num), "+%ld -%ld", f->insertions, f->deletions);
		if (buf_addf(b, "  %13s  ", num))
			return -1;
		if (add_oneline(b, f->path) || buf_addch(b, '\n'))
			return -1;
	}
	if (in->nr_files > shown && buf_addf(b, "  ... and %zu more file%s\n", in->nr_files - shown,
					     in->nr_files - shown == 1 ? "" : "s"))
		return -1;
	if (in->kind == REPORT_BISECT) {
		char areas[256];

		if (report_outside_build(in->files, in->nr_files, in->kconfig, areas,
					 sizeof(areas)) &&
		    buf_addf(b,
			     "note:     this commit touches only %s, which the %s kernel does not "
			     "build: it is unlikely to be the cause; suspect the environment or a "
			     "neighbouring commit\n",
			     areas, in->kconfig ? in->kconfig : "measured"))
			return -1;
	}
	return 0;
}

/* "x86" or "arm64" from a kconfig name ("x86_64-tiny-mm", "arm64-defconfig"); NULL otherwise */
static const char *karch_of(const char *kconfig)
{
	if (kconfig && !strncmp(kconfig, "x86_64-", 7))
		return "x86";
	if (kconfig && !strncmp(kconfig, "arm64-", 6))
		return "arm64";
	return NULL;
}

int report_outside_build(const struct report_file *files, size_t n, const char *kconfig,
			 char *areas, size_t size)
{
	const char *karch = karch_of(kconfig);
	size_t len = 0;

	if (size)
		areas[0] = '\0';
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *p = files[i].path;
		char area[96];

		if (!strncmp(p, "Documentation/", 14))
			snprintf(area, sizeof(area), "Documentation/");
		else if (!strncmp(p, "tools/", 6))
			snprintf(area, sizeof(area), "tools/");
		else if (karch && !strncmp(p, "arch/", 5) && strchr(p + 5, '/') &&
			 (strncmp(p + 5, karch, strlen(karch)) || p[5 + strlen(karch)] != '/'))
			snprintf(area, sizeof(area), "arch/%.*s/",
				 (int)(strchr(p + 5, '/') - (p + 5)), p + 5);
		else
			return 0;
		if (!strstr(areas, area) && len + strlen(area) + 3 < size)
			len += (size_t)snprintf(areas + len, size - len, "%s%s", len ? ", " : "",
						area);
	}
	return 1;
}

static int render_steps(const struct report_input *in, struct buf *b)
{
	if (!in->nr_steps)
		return 0;
	if (buf_addf(b, "\nbisect steps (%zu commits tested):\n", in->nr_steps))
		return -1;
	for (size_t i = 0; i < in->nr_steps; i++) {
		const struct report_step *s = &in->steps[i];
		char num[32];

		lkp_format_number(s->mean, num);
		if (buf_addf(b, "  %2zu  %-5s %.12s  ", i + 1, s->verdict ? s->verdict : "?",
			     s->sha ? s->sha : "?"))
			return -1;
		if (!isnan(s->mean) && buf_addf(b, "%10s (%d runs)  ", num, s->nr_samples))
			return -1;
		if (s->subject && add_oneline(b, s->subject))
			return -1;
		if (buf_addch(b, '\n'))
			return -1;
	}
	return 0;
}

static int render_table(const struct report_input *in, struct buf *b)
{
	struct lkp_axis *axes;
	size_t n = 0;
	int stand_in = in->kind == REPORT_BISECT && in->table_base_sha;
	const char *base = stand_in		     ? in->table_base_sha :
			   in->kind == REPORT_BISECT ? in->parent_sha :
						       in->good_sha;
	const char *base_subj = stand_in		  ? in->table_base_subject :
				in->kind == REPORT_BISECT ? in->parent_subject :
							    in->good_subject;
	const char *head = in->kind == REPORT_BISECT ? in->culprit_sha : in->bad_sha;
	const char *head_subj = in->kind == REPORT_BISECT ? in->culprit_subject : in->bad_subject;
	int rc = 0;

	if ((!in->nr_rows && !in->nr_rows_omitted) || !base || !head)
		return 0;
	axes = xcalloc(in->nr_params + 5, sizeof(*axes));
	if (in->compiler)
		axes[n++] = (struct lkp_axis){ "compiler", in->compiler };
	if (in->kconfig)
		axes[n++] = (struct lkp_axis){ "kconfig", in->kconfig };
	if (in->tbox_group)
		axes[n++] = (struct lkp_axis){ "tbox_group", in->tbox_group };
	if (in->testcase)
		axes[n++] = (struct lkp_axis){ "testcase", in->testcase };
	for (size_t i = 0; i < in->nr_params; i++)
		axes[n++] = (struct lkp_axis){ in->params[i].name, in->params[i].value };
	if (in->nr_rows)
		rc = buf_addstr(b, "\n") || lkp_render(b, axes, n, base, base_subj, head, head_subj,
						       in->rows, in->nr_rows);
	if (!rc && in->nr_rows && stand_in)
		rc = buf_addf(b, "\n%.12s stands for the parent %.12s: the same kernel image\n",
			      base, in->parent_sha ? in->parent_sha : "");
	free(axes);
	if (!rc && in->nr_rows_omitted) {
		const char *url = in->public_url ? in->public_url : "";
		size_t len = strlen(url);

		while (len && url[len - 1] == '/')
			len--;
		rc = buf_addf(b,
			      "\n%zu %smetric%s of both commits left out (no significant "
			      "change, or beyond the table's size); all of them:\n  %.*s/api/v1/"
			      "compare?base=%s&head=%s&format=text\n",
			      in->nr_rows_omitted, in->nr_rows ? "more " : "",
			      in->nr_rows_omitted == 1 ? "" : "s", (int)len, url, base, head);
	}
	return rc ? -1 : 0;
}

/* "also seen on arm64: -62.0% (URL/regressions/8)", one line per arch */
static int render_also_seen(const struct report_input *in, struct buf *b)
{
	const char *base = in->public_url ? in->public_url : "";
	char x[40];
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	for (size_t i = 0; i < in->nr_also_seen; i++) {
		const struct report_also_seen *a = &in->also_seen[i];

		if (!a->arch)
			continue;
		if (buf_addstr(b, "also seen on ") || add_oneline(b, a->arch) || buf_addch(b, ':'))
			return -1;
		pct_text(a->pct, x);
		if (isfinite(a->pct) && buf_addf(b, " %s", x))
			return -1;
		if (a->regression_id > 0 &&
		    buf_addf(b, " (%.*s/regressions/%lld)", (int)n, base, a->regression_id))
			return -1;
		if (buf_addch(b, '\n'))
			return -1;
	}
	return 0;
}

/* "evidence: the 12 tested commits after moved by ...; p 1.2e-20" (report.h) */
static int render_evidence(const struct report_input *in, struct buf *b)
{
	struct buf t = BUF_INIT(1024);
	int rc = evidence_text(&in->evidence, &t);

	if (!rc && t.len)
		rc = buf_addstr(b, "evidence: ") || buf_add(b, t.data, t.len) ||
		     (isfinite(in->evidence_p) && buf_addf(b, "; p %.2g", in->evidence_p)) ||
		     buf_addch(b, '\n');
	buf_release(&t);
	return rc ? -1 : 0;
}

/* the token-free commands and the .config link (report.h) */
static int render_local(const struct report_input *in, struct buf *b)
{
	if (in->nr_reproduce_local &&
	    buf_addstr(b, "\nto run the data points on your own machine, inside a kernel tree "
			  "(no server, no token):\n"))
		return -1;
	for (size_t i = 0; i < in->nr_reproduce_local; i++) {
		const struct report_command *c = &in->reproduce_local[i];

		if (buf_addstr(b, "\n  # ") || add_oneline(b, c->label ? c->label : "") ||
		    buf_addstr(b, "\n  ") || add_oneline(b, c->command) || buf_addch(b, '\n'))
			return -1;
	}
	if (in->config_url && (buf_addstr(b, "\nkernel .config: ") ||
			       add_oneline(b, in->config_url) || buf_addch(b, '\n')))
		return -1;
	return 0;
}

static int render_report(const struct report_input *in, struct buf *b)
{
	char from[ADDR_MAX + 1];

	if (report_addr_spec(in->mail_from ? in->mail_from : "", from, sizeof(from)))
		snprintf(from, sizeof(from), "regtrack@localhost");

	if (buf_addstr(b, "Hello,\n\nregtrack measured a "))
		return -1;
	if (base_zero(in)) {
		if (buf_addf(b, "%s of ", word(in)) || add_oneline(b, in->metric) ||
		    buf_addch(b, ' ') || add_size(b, in) ||
		    buf_addstr(b, " (the base is 0: no %change)"))
			return -1;
	} else if (add_size(b, in) || buf_addf(b, " %s of ", word(in)) ||
		   add_oneline(b, in->metric)) {
		return -1;
	}
	if (in->kind == REPORT_BISECT) {
		if (buf_addf(b, " and bisected it to commit %.12s.\n", in->culprit_sha))
			return -1;
	} else if (buf_addf(b, " between %.12s and %.12s (not bisected).\n",
			    in->good_sha ? in->good_sha : "?", in->bad_sha)) {
		return -1;
	}
	if (render_also_seen(in, b) || render_evidence(in, b) || buf_addch(b, '\n'))
		return -1;
	if (in->kind == REPORT_BISECT) {
		if (commit_line(b, "commit:", in->culprit_sha, in->culprit_subject))
			return -1;
		if (in->culprit_author) {
			if (buf_addf(b, "%-10s", "author:") || add_oneline(b, in->culprit_author))
				return -1;
			if (in->culprit_email &&
			    (buf_addstr(b, " <") || add_oneline(b, in->culprit_email) ||
			     buf_addch(b, '>')))
				return -1;
			if (buf_addch(b, '\n'))
				return -1;
		}
		if (commit_line(b, "parent:", in->parent_sha, in->parent_subject))
			return -1;
		if (render_diffstat(in, b))
			return -1;
	} else if (commit_line(b, "good:", in->good_sha, in->good_subject) ||
		   commit_line(b, "bad:", in->bad_sha, in->bad_subject) || render_diffstat(in, b)) {
		return -1;
	}
	if (buf_addf(b, "%-10s", "tree:") || add_oneline(b, in->tree) ||
	    (in->branch && (buf_addch(b, ' ') || add_oneline(b, in->branch))) || buf_addch(b, '\n'))
		return -1;
	if (buf_addch(b, '\n') || field(b, "testcase:", in->testcase) ||
	    field(b, "config:", in->kconfig) || field(b, "compiler:", in->compiler) ||
	    render_machine(in, b) || field(b, "note:", in->host_note) ||
	    field(b, "mode:", in->mode))
		return -1;
	if (in->nr_params) {
		if (buf_addstr(b, "parameters:\n"))
			return -1;
		for (size_t i = 0; i < in->nr_params; i++)
			if (buf_addstr(b, "  ") || add_oneline(b, in->params[i].name) ||
			    buf_addstr(b, ": ") || add_oneline(b, in->params[i].value) ||
			    buf_addch(b, '\n'))
				return -1;
	}
	if (buf_addstr(b, "\nIf you fix the issue in a separate commit, please add these tags:\n"
			  "Reported-by: regtrack <") ||
	    buf_addstr(b, from) || buf_addstr(b, ">\n"))
		return -1;
	if (in->regression_id > 0) {
		const char *base = in->public_url ? in->public_url : "";
		size_t n = strlen(base);
		while (n && base[n - 1] == '/')
			n--;
		if (buf_addf(b, "Closes: %.*s/regressions/%lld\n", (int)n, base, in->regression_id))
			return -1;
	}
	if (in->kind == REPORT_BISECT &&
	    buf_addf(b, "\n#regzbot introduced: %s\n", in->culprit_sha))
		return -1;
	if (render_table(in, b) || render_steps(in, b))
		return -1;
	if (in->reproduce && (buf_addstr(b, "\nto reproduce one data point:\n\n  ") ||
			      add_oneline(b, in->reproduce) || buf_addch(b, '\n')))
		return -1;
	if (render_local(in, b))
		return -1;
	if (buf_addch(b, '\n') || links(b, in) || invalid_step(b, in) ||
	    buf_addstr(b,
		       "\nThis mail was sent automatically; replies reach the regtrack maintainers.\n"
		       "\n-- \nregtrack\n"))
		return -1;
	return 0;
}

int report_render(const struct report_input *in, struct report *out, struct err *e)
{
	struct buf subj = BUF_INIT(4096);

	out->subject = NULL;
	buf_init(&out->body, 1 << 20);
	if (!in->tree || !*in->tree)
		return err_setc(e, ERR_MISSING_FIELD, "tree", "report without a tree");
	if (!in->metric || !*in->metric)
		return err_setc(e, ERR_MISSING_FIELD, "metric", "report without a metric");
	if (in->kind == REPORT_BISECT && (!in->culprit_sha || strlen(in->culprit_sha) < 12))
		return err_setc(e, ERR_MISSING_FIELD, "culprit_sha",
				"bisect report without a first bad commit");
	if (in->kind == REPORT_RANGE && (!in->bad_sha || strlen(in->bad_sha) < 12))
		return err_setc(e, ERR_MISSING_FIELD, "bad_sha",
				"range report without a bad commit");
	if (in->kind == REPORT_FIXED && !in->orig_subject)
		return err_setc(e, ERR_MISSING_FIELD, "orig_subject",
				"follow-up without the original subject");
	if (render_subject(in, &subj)) {
		buf_release(&subj);
		return err_setc(e, ERR_TOO_LARGE, "subject", "subject too long");
	}
	out->subject = buf_detach(&subj, NULL);
	if (in->kind == REPORT_FIXED ? render_fixed(in, &out->body) : render_report(in, &out->body))
		return err_setc(e, ERR_TOO_LARGE, "body", "report larger than 1 MiB");
	return 0;
}

void report_release(struct report *r)
{
	free(r->subject);
	r->subject = NULL;
	buf_release(&r->body);
}
