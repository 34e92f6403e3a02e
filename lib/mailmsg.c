#include "mailmsg.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADDR_MAX REPORT_ADDR_MAX
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

/* "Name <addr>" with Name made safe (RFC 2047 when not plain). */
static int add_from(struct buf *out, const char *from, struct err *e)
{
	char addr[ADDR_MAX + 1];
	const char *lt = strrchr(from, '<');
	char *name;
	int plain = 1, rc;

	if (report_addr_spec(from, addr, sizeof(addr)))
		return err_setc(e, ERR_INVALID_FIELD, from, "invalid sender address");
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
		if (!(((unsigned char)*s < 0x80 &&
		       (strchr(" .-_", *s) || (*s >= 'a' && *s <= 'z') ||
			(*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))))
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
			return err_setc(e, ERR_INVALID_FIELD, a[i], "invalid recipient address");
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
		return err_setc(e, ERR_INVALID_FIELD, "to", "mail has no recipient");
	if (!m->message_id || !report_msgid_ok(m->message_id))
		return err_setc(e, ERR_INVALID_FIELD, "message_id", "invalid message id");
	if (m->in_reply_to && !report_msgid_ok(m->in_reply_to))
		return err_setc(e, ERR_INVALID_FIELD, "in_reply_to", "invalid message id");
	if (m->references) {
		char *t = xstrdup(m->references), *save = NULL;
		for (char *w = strtok_r(t, " ", &save); w; w = strtok_r(NULL, " ", &save))
			if (!report_msgid_ok(w)) {
				free(t);
				return err_setc(e, ERR_INVALID_FIELD, "references",
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
		return err_setc(e, ERR_TOO_LARGE, "", "mail larger than the buffer cap");
	return 0;
}
