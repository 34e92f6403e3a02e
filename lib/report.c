#include "report.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADDR_MAX 254
#define MSGID_MAX 250
#define LINE_MAX_BYTES 998
#define FOLD_AT 76

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int add_base64(struct buf *out, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		char q[4];

		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		q[0] = b64[(v >> 18) & 63];
		q[1] = b64[(v >> 12) & 63];
		q[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		q[3] = i + 2 < n ? b64[v & 63] : '=';
		if (buf_add(out, q, 4))
			return -1;
	}
	return 0;
}

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

/* New string: s with control characters as spaces, space runs collapsed, trimmed. */
static char *clean_text(const char *s)
{
	size_t n = strlen(s), k = 0;
	char *t = xmalloc(n + 1);

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch < 0x20 || ch == 0x7f)
			ch = ' ';
		if (ch == ' ' && (k == 0 || t[k - 1] == ' '))
			continue;
		t[k++] = (char)ch;
	}
	while (k && t[k - 1] == ' ')
		k--;
	t[k] = '\0';
	return t;
}

static int has_8bit(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 1;
	return 0;
}

/* RFC 2047 words for clean text t, each on its own (continuation) line. */
static int add_encoded_words(struct buf *out, const char *t)
{
	const unsigned char *p = (const unsigned char *)t;
	size_t n = strlen(t), i = 0;

	while (i < n) {
		/* 45 raw bytes = 60 base64 chars; with "=?UTF-8?B?" "?=" a word is 72 */
		size_t take = n - i > 45 ? 45 : n - i;

		while (i + take < n && take > 1 && (p[i + take] & 0xc0) == 0x80)
			take--;
		if (i > 0 && buf_addstr(out, "\r\n "))
			return -1;
		if (buf_addstr(out, "=?UTF-8?B?") || add_base64(out, p + i, take) ||
		    buf_addstr(out, "?="))
			return -1;
		i += take;
	}
	return 0;
}

/* ASCII text folded at spaces near FOLD_AT; a longer word is cut at 900 bytes. */
static int add_folded_ascii(struct buf *out, const char *t, size_t col)
{
	while (*t) {
		size_t w = strcspn(t, " "), full = w;

		if (w > 900)
			w = 900;
		if (col > 1 && col + 1 + w > FOLD_AT) {
			if (buf_addstr(out, "\r\n"))
				return -1;
			col = 0;
		}
		/* a space after the colon, between words, and to start a continuation line */
		if (buf_addch(out, ' ') || buf_add(out, t, w))
			return -1;
		col += 1 + w;
		t += full;
		while (*t == ' ')
			t++;
	}
	return 0;
}

int report_header_text(struct buf *out, const char *name, const char *value)
{
	char *t = clean_text(value ? value : "");
	size_t col = strlen(name) + 1;
	int rc;

	if (buf_addf(out, "%s:", name)) {
		free(t);
		return -1;
	}
	if (has_8bit(t))
		rc = buf_addch(out, ' ') || add_encoded_words(out, t);
	else
		rc = add_folded_ascii(out, t, col);
	free(t);
	if (rc)
		return -1;
	return buf_addstr(out, "\r\n");
}

int report_addr_ok(const char *addr)
{
	const char *at;
	size_t n = strlen(addr);

	if (n == 0 || n > ADDR_MAX)
		return 0;
	for (const char *s = addr; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch <= 0x20 || ch >= 0x7f || strchr("<>()[],;:\"\\", ch))
			return 0;
	}
	at = strchr(addr, '@');
	if (!at || at == addr || !at[1] || strchr(at + 1, '@'))
		return 0;
	return 1;
}

int report_msgid_ok(const char *id)
{
	size_t n = strlen(id);
	const char *at;

	if (n < 5 || n > MSGID_MAX || id[0] != '<' || id[n - 1] != '>')
		return 0;
	for (size_t i = 1; i + 1 < n; i++) {
		unsigned char ch = (unsigned char)id[i];
		if (ch <= 0x20 || ch >= 0x7f || ch == '<' || ch == '>')
			return 0;
	}
	at = strchr(id, '@');
	return at && at > id + 1 && at < id + n - 2 && !strchr(at + 1, '@');
}

int report_addr_spec(const char *from, char *out, size_t len)
{
	const char *lt = strrchr(from, '<'), *s = from, *end;
	size_t n;

	if (lt) {
		s = lt + 1;
		end = strchr(s, '>');
		if (!end)
			return -1;
	} else {
		while (*s == ' ')
			s++;
		end = s + strlen(s);
		while (end > s && end[-1] == ' ')
			end--;
	}
	n = (size_t)(end - s);
	if (n + 1 > len)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return report_addr_ok(out) ? 0 : -1;
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

/* "Name <addr>" with Name made safe (RFC 2047 when not plain). */
static int add_from(struct buf *out, const char *from, struct err *e)
{
	char addr[ADDR_MAX + 1];
	const char *lt = strrchr(from, '<');
	char *name;
	int plain = 1, rc;

	if (report_addr_spec(from, addr, sizeof(addr)))
		return err_set(e, 400, "invalid_mail", from, "invalid sender address");
	if (!lt)
		return buf_addf(out, "From: %s\r\n", addr) ? -1 : 0;
	name = xstrdup(from);
	name[lt - from] = '\0';
	{
		char *t = clean_text(name);
		free(name);
		name = t;
	}
	for (const char *s = name; *s; s++)
		if (!(((unsigned char)*s < 0x80 && (strchr(" .-_", *s) ||
						    (*s >= 'a' && *s <= 'z') ||
						    (*s >= 'A' && *s <= 'Z') ||
						    (*s >= '0' && *s <= '9')))))
			plain = 0;
	if (!*name)
		rc = buf_addf(out, "From: %s\r\n", addr);
	else if (plain)
		rc = buf_addf(out, "From: %s <%s>\r\n", name, addr);
	else
		rc = buf_addstr(out, "From: ") || add_encoded_words(out, name) ||
		     buf_addf(out, " <%s>\r\n", addr);
	free(name);
	return rc ? -1 : 0;
}

static int add_addr_list(struct buf *out, const char *hdr, const char *const *a, size_t n,
			 struct err *e)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!report_addr_ok(a[i]))
			return err_set(e, 400, "invalid_mail", a[i], "invalid recipient address");
	if (buf_addf(out, "%s: %s", hdr, a[0]))
		return -1;
	for (size_t i = 1; i < n; i++)
		if (buf_addf(out, ",\r\n %s", a[i]))
			return -1;
	return buf_addstr(out, "\r\n");
}

static int add_body(struct buf *out, const char *body)
{
	size_t col = 0;

	for (const char *s = body; *s; s++) {
		if (*s == '\r')
			continue;
		if (*s == '\n') {
			if (buf_addstr(out, "\r\n"))
				return -1;
			col = 0;
			continue;
		}
		if (col == LINE_MAX_BYTES) {
			if (buf_addstr(out, "\r\n"))
				return -1;
			col = 0;
		}
		if (buf_addch(out, *s))
			return -1;
		col++;
	}
	if (col && buf_addstr(out, "\r\n"))
		return -1;
	return 0;
}

int report_compose(struct buf *out, const struct report_mail *m, struct err *e)
{
	struct tm tm;
	char date[64];
	char *refs;
	int rc;

	if (!m->nr_to && !m->nr_cc)
		return err_set(e, 400, "invalid_mail", "to", "mail has no recipient");
	if (!m->message_id || !report_msgid_ok(m->message_id))
		return err_set(e, 400, "invalid_mail", "message_id", "invalid message id");
	if (m->in_reply_to && !report_msgid_ok(m->in_reply_to))
		return err_set(e, 400, "invalid_mail", "in_reply_to", "invalid message id");
	if (m->references) {
		char *t = xstrdup(m->references), *save = NULL;
		for (char *w = strtok_r(t, " ", &save); w; w = strtok_r(NULL, " ", &save))
			if (!report_msgid_ok(w)) {
				free(t);
				return err_set(e, 400, "invalid_mail", "references",
					       "invalid message id in references");
			}
		free(t);
	}
	if (add_from(out, m->from, e))
		return -1;
	if (add_addr_list(out, "To", m->to, m->nr_to, e) ||
	    add_addr_list(out, "Cc", m->cc, m->nr_cc, e))
		return -1;
	gmtime_r(&m->date, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	refs = m->references ? clean_text(m->references) : NULL;
	rc = report_header_text(out, "Subject", m->subject) ||
	     buf_addf(out, "Date: %s\r\nMessage-ID: %s\r\n", date, m->message_id) ||
	     (m->in_reply_to && buf_addf(out, "In-Reply-To: %s\r\n", m->in_reply_to)) ||
	     (refs && buf_addf(out, "References: %s\r\n", refs)) ||
	     buf_addstr(out, "MIME-Version: 1.0\r\n"
			     "Content-Type: text/plain; charset=utf-8\r\n"
			     "Content-Transfer-Encoding: 8bit\r\n"
			     "Auto-Submitted: auto-generated\r\n"
			     "\r\n") ||
	     add_body(out, m->body);
	free(refs);
	if (rc)
		return err_set(e, 500, "invalid_mail", "", "mail larger than the buffer cap");
	return 0;
}

/* ---- rendering ------------------------------------------------------ */

static int fail(struct err *e, const char *detail, const char *msg)
{
	return err_set(e, 500, "report_invalid", detail, "%s", msg);
}

static const char *word(const struct report_input *in)
{
	return in->is_regression ? "regression" : "improvement";
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
		if (*prefix && (buf_addstr(b, " [") || add_oneline(b, prefix) || buf_addstr(b, "]")))
			return -1;
		if (buf_addf(b, " %.12s:", in->culprit_sha))
			return -1;
	} else if (buf_addf(b, " %.12s..%.12s:", in->good_sha ? in->good_sha : "?", in->bad_sha)) {
		return -1;
	}
	return buf_addch(b, ' ') || add_oneline(b, in->metric) ||
	       buf_addf(b, " %+.1f%% %s", in->change_pct, word(in));
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

static int render_fixed(const struct report_input *in, struct buf *b)
{
	if (buf_addstr(b, "Hello,\n\nthe ") || buf_addstr(b, word(in)) ||
	    buf_addstr(b, " reported in this thread, ") || add_oneline(b, in->metric) ||
	    buf_addf(b, " %+.1f%%", in->change_pct))
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
	return mb % 1024 == 0 ? buf_addf(b, "%s%lldG memory", sep, mb / 1024)
			      : buf_addf(b, "%s%lldM memory", sep, mb);
}

/* 1 when the benchmark ran in a qemu guest */
static int in_guest(const struct report_input *in)
{
	return in->accel && (!strcmp(in->accel, "kvm") || !strcmp(in->accel, "tcg"));
}

/*
 * "machine:  TBOX - 2 vCPUs, 2G memory, arm64 qemu guest (tcg, icount) on HOST_CPU":
 * the guest the benchmark ran in, and the host's CPU model.
 */
static int render_guest(const struct report_input *in, struct buf *b)
{
	const char *arch = in->guest_arch && *in->guest_arch ? in->guest_arch : in->machine_arch;
	const char *sep = " ";

	if (buf_addf(b, "%-10s", "machine:"))
		return -1;
	if (in->tbox_group && (add_oneline(b, in->tbox_group) || buf_addstr(b, " -")))
		return -1;
	if (in->guest_cpus > 0) {
		if (buf_addf(b, " %ld vCPU%s", in->guest_cpus, in->guest_cpus == 1 ? "" : "s"))
			return -1;
		sep = ", ";
	}
	if (in->guest_memory_mb > 0) {
		if (add_memory(b, sep, in->guest_memory_mb))
			return -1;
		sep = ", ";
	}
	if (buf_addstr(b, sep) || (arch && (add_oneline(b, arch) || buf_addch(b, ' '))) ||
	    buf_addf(b, "qemu guest (%s%s)", in->accel, in->icount ? ", icount" : ""))
		return -1;
	if (in->cpu_model && *in->cpu_model &&
	    (buf_addstr(b, " on ") || add_oneline(b, in->cpu_model)))
		return -1;
	return buf_addch(b, '\n');
}

static int render_machine(const struct report_input *in, struct buf *b)
{
	int sep = 0;

	if (in_guest(in))
		return render_guest(in, b);
	if (!in->tbox_group && !in->machine_arch && in->nr_cpus <= 0 && in->memory_mb <= 0)
		return 0;
	if (buf_addf(b, "%-10s", "machine:"))
		return -1;
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
	if (in->machine_arch && (buf_addstr(b, sep ? ", " : " ") || add_oneline(b, in->machine_arch)))
		return -1;
	if (in->cpu_model && *in->cpu_model &&
	    (buf_addstr(b, " (") || add_oneline(b, in->cpu_model) || buf_addch(b, ')')))
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
	if (in->insertions && buf_addf(b, ", %lld insertion%s(+)", in->insertions,
				       in->insertions == 1 ? "" : "s"))
		return -1;
	if (in->deletions && buf_addf(b, ", %lld deletion%s(-)", in->deletions,
				      in->deletions == 1 ? "" : "s"))
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
	if (in->nr_files > shown &&
	    buf_addf(b, "  ... and %zu more file%s\n", in->nr_files - shown,
		     in->nr_files - shown == 1 ? "" : "s"))
		return -1;
	return 0;
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
	const char *base = in->kind == REPORT_BISECT ? in->parent_sha : in->good_sha;
	const char *base_subj = in->kind == REPORT_BISECT ? in->parent_subject : in->good_subject;
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
	free(axes);
	if (!rc && in->nr_rows_omitted) {
		const char *url = in->public_url ? in->public_url : "";
		size_t len = strlen(url);

		while (len && url[len - 1] == '/')
			len--;
		rc = buf_addf(b, "\n%zu %smetric%s of both commits left out (no significant "
			      "change, or beyond the table's size); all of them:\n  %.*s/api/v1/"
			      "compare?base=%s&head=%s&format=text\n", in->nr_rows_omitted,
			      in->nr_rows ? "more " : "", in->nr_rows_omitted == 1 ? "" : "s",
			      (int)len, url, base, head);
	}
	return rc ? -1 : 0;
}

static int render_report(const struct report_input *in, struct buf *b)
{
	char from[ADDR_MAX + 1];

	if (report_addr_spec(in->mail_from ? in->mail_from : "", from, sizeof(from)))
		snprintf(from, sizeof(from), "regtrack@localhost");

	if (buf_addstr(b, "Hello,\n\nregtrack measured a ") ||
	    buf_addf(b, "%+.1f%% %s of ", in->change_pct, word(in)) || add_oneline(b, in->metric))
		return -1;
	if (in->kind == REPORT_BISECT) {
		if (buf_addf(b, " and bisected it to commit %.12s.\n\n", in->culprit_sha))
			return -1;
	} else if (buf_addf(b, " between %.12s and %.12s (not bisected).\n\n",
			    in->good_sha ? in->good_sha : "?", in->bad_sha)) {
		return -1;
	}
	if (in->kind == REPORT_BISECT) {
		if (commit_line(b, "commit:", in->culprit_sha, in->culprit_subject))
			return -1;
		if (in->culprit_author) {
			if (buf_addf(b, "%-10s", "author:") || add_oneline(b, in->culprit_author))
				return -1;
			if (in->culprit_email && (buf_addstr(b, " <") || add_oneline(b, in->culprit_email) ||
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
		   commit_line(b, "bad:", in->bad_sha, in->bad_subject) ||
		   render_diffstat(in, b)) {
		return -1;
	}
	if (buf_addf(b, "%-10s", "tree:") || add_oneline(b, in->tree) ||
	    (in->branch && (buf_addch(b, ' ') || add_oneline(b, in->branch))) || buf_addch(b, '\n'))
		return -1;
	if (buf_addch(b, '\n') || field(b, "testcase:", in->testcase) ||
	    field(b, "config:", in->kconfig) || field(b, "compiler:", in->compiler) ||
	    render_machine(in, b) || field(b, "mode:", in->mode))
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
	if (in->kind == REPORT_BISECT && buf_addf(b, "\n#regzbot introduced: %s\n", in->culprit_sha))
		return -1;
	if (render_table(in, b) || render_steps(in, b))
		return -1;
	if (in->reproduce && (buf_addstr(b, "\nto reproduce one data point:\n\n  ") ||
			      add_oneline(b, in->reproduce) || buf_addch(b, '\n')))
		return -1;
	if (buf_addch(b, '\n') || links(b, in) ||
	    buf_addstr(b, "\nThis mail was sent automatically; replies reach the regtrack maintainers.\n"
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
		return fail(e, "tree", "report without a tree");
	if (!in->metric || !*in->metric)
		return fail(e, "metric", "report without a metric");
	if (in->kind == REPORT_BISECT && (!in->culprit_sha || strlen(in->culprit_sha) < 12))
		return fail(e, "culprit_sha", "bisect report without a first bad commit");
	if (in->kind == REPORT_RANGE && (!in->bad_sha || strlen(in->bad_sha) < 12))
		return fail(e, "bad_sha", "range report without a bad commit");
	if (in->kind == REPORT_FIXED && !in->orig_subject)
		return fail(e, "orig_subject", "follow-up without the original subject");
	if (render_subject(in, &subj)) {
		buf_release(&subj);
		return fail(e, "subject", "subject too long");
	}
	out->subject = buf_detach(&subj, NULL);
	if (in->kind == REPORT_FIXED ? render_fixed(in, &out->body) : render_report(in, &out->body))
		return fail(e, "body", "report larger than 1 MiB");
	return 0;
}

void report_release(struct report *r)
{
	free(r->subject);
	r->subject = NULL;
	buf_release(&r->body);
}
