/* The 0-day kernel test robot's report mails, read back (see robotmail.h). */
#include "robotmail.h"
#include "buf.h"
#include "textline.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_MAIL (16 * 1024 * 1024) /* a robot mail with its attachments is ~0.5 MB */

/* the line without leading and trailing blanks */
static struct line trim(struct line l)
{
	while (l.n && isspace((unsigned char)l.p[0])) {
		l.p++;
		l.n--;
	}
	while (l.n && isspace((unsigned char)l.p[l.n - 1]))
		l.n--;
	return l;
}

/* 1 when l starts with prefix; *rest: what follows, trimmed */
static int after(struct line l, const char *prefix, struct line *rest)
{
	size_t n = strlen(prefix);

	if (l.n < n || memcmp(l.p, prefix, n))
		return 0;
	rest->p = l.p + n;
	rest->n = l.n - n;
	*rest = trim(*rest);
	return 1;
}

static void copy(char *dst, size_t size, const char *p, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

/* the length of the run of hex digits at p[0..n) */
static size_t hex_run(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && isxdigit((unsigned char)p[i]))
		i++;
	return i;
}

/* a sha (7..40 hex) filling all of word[0..n): copied lowercase into out[41] */
static int sha_word(const char *p, size_t n, char out[41])
{
	if (n < 7 || n > 40 || hex_run(p, n) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)p[i]);
	out[n] = '\0';
	return 1;
}

/* the first blank-separated word of l, *rest after it (trimmed) */
static struct line first_word(struct line l, struct line *rest)
{
	struct line w = { l.p, 0 };

	while (w.n < l.n && !isspace((unsigned char)l.p[w.n]))
		w.n++;
	if (rest) {
		rest->p = l.p + w.n;
		rest->n = l.n - w.n;
		*rest = trim(*rest);
	}
	return w;
}

/* ---- headers and MIME ---------------------------------------------------- */

/* the unfolded value of header name in the header block text[0..len) into out ("" when absent) */
static void header_value(const char *text, size_t len, const char *name, char *out, size_t size)
{
	size_t pos = 0, n = strlen(name), used = 0;
	struct line l;
	int in = 0;

	out[0] = '\0';
	while (next_line(text, len, &pos, &l) && l.n) {
		if (in && (l.p[0] == ' ' || l.p[0] == '\t')) {
			struct line t = trim(l);

			if (used + 1 + t.n < size) {
				out[used++] = ' ';
				memcpy(out + used, t.p, t.n);
				used += t.n;
				out[used] = '\0';
			}
			continue;
		}
		if (in)
			return;
		if (l.n > n && !strncasecmp(l.p, name, n) && l.p[n] == ':') {
			struct line v = { l.p + n + 1, l.n - n - 1 };

			v = trim(v);
			copy(out, size, v.p, v.n);
			used = strlen(out);
			in = 1;
		}
	}
}

/* 1 when text starts with a header block (a "Name: value" line, or mbox's "From ") */
static int has_headers(const char *text, size_t len)
{
	size_t pos = 0, i;
	struct line l;

	if (!next_line(text, len, &pos, &l))
		return 0;
	if (l.n > 5 && !memcmp(l.p, "From ", 5))
		return 1;
	for (i = 0; i < l.n && (isalnum((unsigned char)l.p[i]) || l.p[i] == '-'); i++)
		;
	return i > 0 && i < l.n && l.p[i] == ':';
}

/* where the body starts: after the first empty line (len when there is none) */
static size_t body_start(const char *text, size_t len)
{
	size_t pos = 0;
	struct line l;

	while (next_line(text, len, &pos, &l))
		if (!l.n)
			return pos;
	return len;
}

/* the boundary="..." (or unquoted) parameter of a Content-Type value into out */
static int boundary_of(const char *ctype, char *out, size_t size)
{
	const char *b = strcasestr(ctype, "boundary=");
	size_t n = 0;

	if (!b)
		return 0;
	b += strlen("boundary=");
	if (*b == '"') {
		b++;
		while (b[n] && b[n] != '"')
			n++;
	} else {
		while (b[n] && b[n] != ';' && !isspace((unsigned char)b[n]))
			n++;
	}
	if (!n || n + 1 > size)
		return 0;
	copy(out, size, b, n);
	return 1;
}

/* appends quoted-printable text[0..len) decoded to out */
static int qp_decode(struct buf *out, const char *p, size_t len)
{
	int bad = 0;

	for (size_t i = 0; i < len; i++) {
		if (p[i] != '=') {
			bad |= buf_addch(out, p[i]);
		} else if (i + 1 < len && p[i + 1] == '\n') {
			i++; /* soft line break */
		} else if (i + 2 < len && p[i + 1] == '\r' && p[i + 2] == '\n') {
			i += 2;
		} else if (i + 2 < len && isxdigit((unsigned char)p[i + 1]) &&
			   isxdigit((unsigned char)p[i + 2])) {
			char h[3] = { p[i + 1], p[i + 2], 0 };

			bad |= buf_addch(out, (char)strtol(h, NULL, 16));
			i += 2;
		} else {
			bad |= buf_addch(out, p[i]);
		}
	}
	return bad;
}

/*
 * The text to read into body: the mail's body, or of a multipart mail the
 * first text/plain part; quoted-printable decoded. Headers' Message-ID and
 * Subject into m.
 */
static int mail_body(const char *text, size_t len, struct robotmail *m, struct buf *body)
{
	char ctype[512], cte[64], boundary[200];
	size_t start = 0, end = len;

	ctype[0] = cte[0] = '\0';
	if (has_headers(text, len)) {
		start = body_start(text, len);
		header_value(text, start, "Message-ID", m->message_id, sizeof(m->message_id));
		header_value(text, start, "Subject", m->subject, sizeof(m->subject));
		header_value(text, start, "Content-Type", ctype, sizeof(ctype));
		header_value(text, start, "Content-Transfer-Encoding", cte, sizeof(cte));
	}
	if (!strncasecmp(ctype, "multipart/", 10) &&
	    boundary_of(ctype, boundary, sizeof(boundary))) {
		size_t pos = start, bn = strlen(boundary), part = 0;
		struct line l;

		end = start; /* no text/plain part: an empty body */
		while (next_line(text, len, &pos, &l)) {
			int delim = l.n >= bn + 2 && !memcmp(l.p, "--", 2) &&
				    !memcmp(l.p + 2, boundary, bn);

			if (!delim)
				continue;
			if (part) { /* the end of the part chosen */
				end = (size_t)(l.p - text);
				break;
			}
			if (l.n >= bn + 4 && !memcmp(l.p + 2 + bn, "--", 2))
				break;
			{
				size_t hs = pos, he = hs + body_start(text + hs, len - hs);
				char pt[256];

				header_value(text + hs, he - hs, "Content-Type", pt, sizeof(pt));
				if (!pt[0] || !strncasecmp(pt, "text/plain", 10)) {
					header_value(text + hs, he - hs,
						     "Content-Transfer-Encoding", cte, sizeof(cte));
					start = he;
					end = len;
					part = 1;
				}
				pos = he;
			}
		}
		if (!part)
			start = end;
	}
	if (start > end)
		start = end;
	if (!strncasecmp(cte, "quoted-printable", 16))
		return qp_decode(body, text + start, end - start);
	return buf_add(body, text + start, end - start);
}

/* ---- the body ------------------------------------------------------------ */

/* "noticed a -7.1% regression of M on:" / "FYI, we noticed a 385.1% improvement of M due to" */
static void headline(struct line l, const char *what, struct robotmail *m)
{
	const char *at = memmem(l.p, l.n, what, strlen(what));
	struct line r, w, kind, of;

	if (!at)
		return;
	r.p = at + strlen(what);
	r.n = l.n - (size_t)(r.p - l.p);
	r = trim(r);
	w = first_word(r, &r);
	if (!w.n || w.p[w.n - 1] != '%')
		return;
	kind = first_word(r, &r);
	of = first_word(r, &r);
	if (of.n != 2 || memcmp(of.p, "of", 2))
		return;
	if (!(kind.n == 10 && !memcmp(kind.p, "regression", 10)) &&
	    !(kind.n == 11 && !memcmp(kind.p, "improvement", 11)))
		return;
	copy(m->change_pct, sizeof(m->change_pct), w.p, w.n - 1);
	copy(m->change_kind, sizeof(m->change_kind), kind.p, kind.n);
	w = first_word(r, NULL);
	copy(m->metric, sizeof(m->metric), w.p, w.n);
}

/* `SHA ("subject")` after commit: */
static void commit_line(struct line v, struct robotmail *m)
{
	struct line rest, w = first_word(v, &rest);

	if (!sha_word(w.p, w.n, m->commit))
		return;
	if (rest.n >= 4 && rest.p[0] == '(' && rest.p[1] == '"' && rest.p[rest.n - 1] == ')' &&
	    rest.p[rest.n - 2] == '"')
		copy(m->commit_subject, sizeof(m->commit_subject), rest.p + 2, rest.n - 4);
}

/*
 * `base: SHA`, `base-commit: SHA`, or a patch report's `base: URL SHA` /
 * `base: URL BRANCH`: the first such line wins
 */
static void base_line(struct line v, struct robotmail *m)
{
	struct line rest, w = first_word(v, &rest);

	if (m->base[0] || m->base_url[0])
		return;
	if (w.n >= 4 && !memcmp(w.p, "http", 4)) {
		copy(m->base_url, sizeof(m->base_url), w.p, w.n);
		w = first_word(rest, NULL);
		if (!sha_word(w.p, w.n, m->base))
			copy(m->base_branch, sizeof(m->base_branch), w.p, w.n);
		return;
	}
	sha_word(w.p, w.n, m->base);
}

/* "FYI, we noticed the following commit (built with gcc-9):" */
static void built_with(struct line l, char *compiler, size_t size)
{
	const char *at = memmem(l.p, l.n, "(built with ", 12);
	struct line w;

	if (!at)
		return;
	w.p = at + 12;
	w.n = l.n - (size_t)(w.p - l.p);
	w = first_word(w, NULL);
	while (w.n && (w.p[w.n - 1] == ')' || w.p[w.n - 1] == ':'))
		w.n--;
	copy(compiler, size, w.p, w.n);
}

/* the axis line ("compiler/cpufreq_governor/.../testcase:"): names joined by '/' */
static int axis_line(struct line l)
{
	if (l.n < 3 || l.p[l.n - 1] != ':' || !memchr(l.p, '/', l.n))
		return 0;
	for (size_t i = 0; i + 1 < l.n; i++)
		if (!islower((unsigned char)l.p[i]) && !isdigit((unsigned char)l.p[i]) &&
		    l.p[i] != '_' && l.p[i] != '/')
			return 0;
	return 1;
}

/* value of name in the axis names[0..nn) / vals[0..nv) (both '/'-joined) into out */
static int axis_get(struct line names, struct line vals, const char *name, char *out, size_t size)
{
	size_t ni = 0, vi = 0, nlen = strlen(name);

	for (;;) {
		size_t ne = ni, ve = vi;

		while (ne < names.n && names.p[ne] != '/')
			ne++;
		while (ve < vals.n && vals.p[ve] != '/')
			ve++;
		if (ne - ni == nlen && !memcmp(names.p + ni, name, nlen)) {
			copy(out, size, vals.p + vi, ve - vi);
			return 1;
		}
		if (ne >= names.n || ve >= vals.n)
			return 0;
		ni = ne + 1;
		vi = ve + 1;
	}
}

static size_t count_char(struct line l, char c)
{
	size_t k = 0;

	for (size_t i = 0; i < l.n; i++)
		k += l.p[i] == c;
	return k;
}

/* kconfig, compiler, tbox_group from one axis block (names, values) */
static void axis_block(struct line names, struct line vals, struct robotmail *m, int *taken)
{
	char tc[128], kconfig[128], compiler[64], tbox[128];

	names.n--; /* the ':' */
	if (count_char(names, '/') != count_char(vals, '/'))
		return; /* a value with a '/': the columns cannot be told apart */
	if (*taken == 2 || !axis_get(names, vals, "testcase", tc, sizeof(tc)))
		return;
	if (*taken == 1 && strcmp(tc, m->testcase))
		return;
	kconfig[0] = compiler[0] = tbox[0] = '\0';
	axis_get(names, vals, "kconfig", kconfig, sizeof(kconfig));
	axis_get(names, vals, "compiler", compiler, sizeof(compiler));
	axis_get(names, vals, "tbox_group", tbox, sizeof(tbox));
	*taken = !strcmp(tc, m->testcase) ? 2 : 1;
	if (kconfig[0] && !m->kconfig[0])
		snprintf(m->kconfig, sizeof(m->kconfig), "%s", kconfig);
	if (compiler[0] && !m->compiler[0])
		snprintf(m->compiler, sizeof(m->compiler), "%s", compiler);
	if (tbox[0])
		snprintf(m->tbox_group, sizeof(m->tbox_group), "%s", tbox);
}

/* what the config:/compiler: lines said, so that the axis fills only what they did not */
struct named_lines {
	char kconfig[128], compiler[64];
};

static void body_fields(const char *text, size_t len, struct robotmail *m)
{
	size_t pos = 0;
	struct line l, v;
	int params = 0; /* 1: after "parameters:", 2: in the indented lines */
	int table_commits = 0, axis_taken = 0, want_repo = 0;
	struct named_lines ex = { "", "" };
	char abbrev[41] = "", built[64] = "";
	struct line axis = { NULL, 0 };

	while (next_line(text, len, &pos, &l)) {
		struct line t = trim(l);

		if (params) {
			const char *colon = memchr(t.p, ':', t.n);

			if (!t.n && params == 1)
				continue;
			if (t.n && l.n && isspace((unsigned char)l.p[0]) && colon && colon > t.p) {
				struct line k = { t.p, (size_t)(colon - t.p) }, val;
				char key[64], value[256];

				val.p = colon + 1;
				val.n = t.n - (size_t)(val.p - t.p);
				val = trim(val);
				k = trim(k);
				copy(key, sizeof(key), k.p, k.n);
				copy(value, sizeof(value), val.p, val.n);
				json_object_set_new(m->params, key, json_string(value));
				params = 2;
				continue;
			}
			params = 0;
		}
		if (want_repo) {
			if (!t.n)
				continue;
			want_repo = 0;
			if (t.n >= 4 && !strncmp(t.p, "http", 4)) {
				struct line rest, w = first_word(t, &rest);

				copy(m->repo_url, sizeof(m->repo_url), w.p, w.n);
				w = first_word(rest, NULL);
				copy(m->repo_branch, sizeof(m->repo_branch), w.p, w.n);
				continue;
			}
		}
		if (axis.p) {
			axis_block(axis, t, m, &axis_taken);
			axis.p = NULL;
		}
		if (table_commits) {
			struct line w = first_word(t, NULL);

			if (!t.n)
				continue;
			if (table_commits == 1 && !abbrev[0])
				sha_word(w.p, w.n, abbrev);
			table_commits = table_commits == 1 ? 2 : 0;
			continue;
		}
		if (!m->layout) {
			if (memmem(l.p, l.n, "kernel test robot noticed", 25)) {
				m->layout = ROBOTMAIL_NOTICED;
				headline(l, "noticed a", m);
			} else if (memmem(l.p, l.n, "FYI, we noticed", 15)) {
				m->layout = ROBOTMAIL_FYI;
				headline(l, "noticed a", m);
				built_with(l, built, sizeof(built));
			}
		}
		if (after(l, "commit:", &v)) {
			if (!v.n) {
				table_commits = 1;
			} else if (!m->commit[0]) {
				commit_line(v, m);
				want_repo = m->commit[0] != '\0';
			}
			continue;
		}
		if (after(l, "base:", &v) || after(l, "base-commit:", &v)) {
			base_line(v, m);
			continue;
		}
		if (after(l, "url:", &v) && !m->repo_url[0]) {
			struct line w = first_word(v, NULL);

			copy(m->repo_url, sizeof(m->repo_url), w.p, w.n);
			continue;
		}
		if (after(l, "patch link:", &v) && !m->patch_link[0]) {
			struct line w = first_word(v, NULL);

			copy(m->patch_link, sizeof(m->patch_link), w.p, w.n);
			continue;
		}
		if ((after(l, "testcase:", &v) || after(l, "in testcase:", &v)) &&
		    !m->testcase[0]) {
			copy(m->testcase, sizeof(m->testcase), v.p, v.n);
			continue;
		}
		if ((after(l, "test machine:", &v) || after(l, "on test machine:", &v)) &&
		    !m->machine[0]) {
			copy(m->machine, sizeof(m->machine), v.p, v.n);
			continue;
		}
		if (after(l, "config:", &v) && !ex.kconfig[0]) {
			copy(ex.kconfig, sizeof(ex.kconfig), v.p, v.n);
			continue;
		}
		if (after(l, "compiler:", &v) && !ex.compiler[0]) {
			copy(ex.compiler, sizeof(ex.compiler), v.p, v.n);
			continue;
		}
		if ((after(l, "parameters:", &v) || after(l, "with following parameters:", &v)) &&
		    !v.n && !json_object_size(m->params)) {
			params = 1;
			continue;
		}
		if (axis_line(l)) {
			axis = l;
			continue;
		}
		/* the table's header row: longer prefixes of base and head */
		if (abbrev[0] && !m->compared_base[0]) {
			struct line rest, w = first_word(t, &rest), w2 = first_word(rest, NULL);
			char s1[41], s2[41];

			if (sha_word(w.p, w.n, s1) && sha_word(w2.p, w2.n, s2) &&
			    !strncmp(s1, abbrev, strlen(abbrev)))
				memcpy(m->compared_base, s1, sizeof(s1));
		}
	}
	if (abbrev[0] && !m->compared_base[0])
		memcpy(m->compared_base, abbrev, sizeof(abbrev));
	if (ex.kconfig[0])
		memcpy(m->kconfig, ex.kconfig, sizeof(m->kconfig));
	if (ex.compiler[0])
		memcpy(m->compiler, ex.compiler, sizeof(m->compiler));
	if (!m->compiler[0] && built[0])
		memcpy(m->compiler, built, sizeof(m->compiler));
}

/* the prefix ("> ", ">>> ") of the headline's line when the report is quoted; 0: none */
static size_t quote_prefix(const char *text, size_t len, char *prefix, size_t size)
{
	size_t pos = 0, n = 0;
	struct line l;

	while (next_line(text, len, &pos, &l)) {
		const char *at = memmem(l.p, l.n, "kernel test robot noticed", 25);

		if (!at)
			at = memmem(l.p, l.n, "FYI, we noticed", 15);
		if (!at)
			continue;
		while (l.p + n < at && (l.p[n] == '>' || l.p[n] == ' '))
			n++;
		if (!n || !memchr(l.p, '>', n) || n >= size)
			return 0;
		memcpy(prefix, l.p, n);
		prefix[n] = '\0';
		return n;
	}
	return 0;
}

/* text[0..len) with prefix[0..n) taken off each line (other lines blank) into out */
static int unquote(const char *text, size_t len, const char *prefix, size_t n, struct buf *out)
{
	size_t pos = 0;
	struct line l;
	int bad = 0;

	/* ">>>" alone is an empty quoted line: blank, as lines quoted less deeply */
	while (next_line(text, len, &pos, &l)) {
		if (l.n >= n && !memcmp(l.p, prefix, n))
			bad |= buf_add(out, l.p + n, l.n - n);
		bad |= buf_addch(out, '\n');
	}
	return bad;
}

int robotmail_parse(const char *text, size_t len, struct robotmail *out, struct err *e)
{
	struct buf body = BUF_INIT(MAX_MAIL);
	const char *missing = NULL, *what = NULL;

	memset(out, 0, sizeof(*out));
	out->params = json_object();
	if (len > MAX_MAIL) {
		robotmail_release(out);
		return err_setc(e, ERR_TOO_LARGE, "from_mail",
				"the mail holds %zu bytes, more than %d", len, MAX_MAIL);
	}
	if (mail_body(text, len, out, &body)) {
		buf_release(&body);
		robotmail_release(out);
		return err_setc(e, ERR_TOO_LARGE, "from_mail", "the mail is over %d bytes",
				MAX_MAIL);
	}
	{
		char prefix[64];
		size_t n = quote_prefix(body.data, body.len, prefix, sizeof(prefix));
		struct buf plain = BUF_INIT(MAX_MAIL);

		if (n && !unquote(body.data, body.len, prefix, n, &plain))
			body_fields(plain.data, plain.len, out);
		else
			body_fields(body.data, body.len, out);
		buf_release(&plain);
	}
	buf_release(&body);
	if (!out->layout) {
		robotmail_release(out);
		return err_setc(e, ERR_INVALID_FIELD, "from_mail",
				"not a kernel test robot report: no 'kernel test robot noticed' or "
				"'FYI, we noticed' line");
	}
	if (!out->commit[0]) {
		missing = "from_mail.commit";
		what = "no 'commit: SHA' line";
	} else if (!out->testcase[0]) {
		missing = "from_mail.testcase";
		what = "no 'testcase:' line";
	} else if (!out->machine[0] && !out->tbox_group[0]) {
		missing = "from_mail.machine";
		what = "no 'test machine:' line and no tbox_group in the table's axis";
	}
	if (missing) {
		robotmail_release(out);
		return err_setc(e, ERR_INVALID_FIELD, missing, "the robot's mail is incomplete: %s",
				what);
	}
	return 0;
}

void robotmail_release(struct robotmail *m)
{
	json_decref(m->params);
	m->params = NULL;
}
