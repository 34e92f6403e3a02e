#include "mbox.h"
#include "textline.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int starts(const struct line *l, const char *s)
{
	size_t n = strlen(s);

	return l->n >= n && !memcmp(l->p, s, n);
}

static int header_is(const struct line *l, const char *name)
{
	size_t n = strlen(name);

	return l->n > n && !strncasecmp(l->p, name, n) && l->p[n] == ':';
}

/* appends [p, p+n) trimmed to dst (cap bytes, NUL-terminated), one space between parts */
static void field_add(char *dst, size_t cap, const char *p, size_t n)
{
	size_t have = strlen(dst);

	while (n && isspace((unsigned char)*p))
		p++, n--;
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (!n)
		return;
	if (have && have + 1 < cap)
		dst[have++] = ' ';
	if (have + n >= cap)
		n = cap - 1 - have;
	memcpy(dst + have, p, n);
	dst[have + n] = '\0';
}

/* splits a From: value into display name and address: "A B" <a@b>, A B <a@b>, a@b (A B), a@b */
static void split_from(const char *from, struct mbox_info *out)
{
	const char *lt = strchr(from, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	char tmp[256] = "";

	if (lt && gt) {
		field_add(out->email, sizeof(out->email), lt + 1, (size_t)(gt - lt - 1));
		field_add(tmp, sizeof(tmp), from, (size_t)(lt - from));
	} else {
		const char *paren = strchr(from, '(');
		const char *close = paren ? strchr(paren, ')') : NULL;

		field_add(out->email, sizeof(out->email), from,
			  paren ? (size_t)(paren - from) : strlen(from));
		if (paren && close)
			field_add(tmp, sizeof(tmp), paren + 1, (size_t)(close - paren - 1));
	}
	{
		size_t n = strlen(tmp);
		const char *p = tmp;

		if (n >= 2 && tmp[0] == '"' && tmp[n - 1] == '"')
			p++, n -= 2;
		field_add(out->name, sizeof(out->name), p, n);
	}
}

size_t mbox_scan(const char *text, size_t len, struct mbox_info *out)
{
	enum { HEAD, BODY } where = BODY;
	struct line l;
	size_t pos = 0;
	int blank_before = 1, first_patch_pending = 0, this_is_patch = 0, minus_seen = 0;
	/* headers of the message being read, copied to out when it turns out a patch */
	char from[2048] = "";
	struct mbox_info cur;
	enum { NONE, FROM, DATE, SUBJECT } last = NONE;

	memset(out, 0, sizeof(*out));
	memset(&cur, 0, sizeof(cur));
	while (next_line(text, len, &pos, &l)) {
		if (blank_before && starts(&l, "From ")) {
			if (this_is_patch)
				out->nr_patches++;
			out->nr_messages++;
			where = HEAD;
			this_is_patch = minus_seen = 0;
			memset(&cur, 0, sizeof(cur));
			from[0] = '\0';
			last = NONE;
			first_patch_pending = out->nr_patches == 0;
			blank_before = 0;
			continue;
		}
		blank_before = l.n == 0;
		if (where == HEAD) {
			if (!l.n) {
				where = BODY;
				if (from[0])
					split_from(from, &cur);
				continue;
			}
			if ((l.p[0] == ' ' || l.p[0] == '\t') && last != NONE) {
				if (last == FROM)
					field_add(from, sizeof(from), l.p, l.n);
				else if (last == DATE)
					field_add(cur.date, sizeof(cur.date), l.p, l.n);
				else
					field_add(cur.subject, sizeof(cur.subject), l.p, l.n);
				continue;
			}
			last = NONE;
			if (header_is(&l, "From")) {
				field_add(from, sizeof(from), l.p + 5, l.n - 5);
				last = FROM;
			} else if (header_is(&l, "Date")) {
				field_add(cur.date, sizeof(cur.date), l.p + 5, l.n - 5);
				last = DATE;
			} else if (header_is(&l, "Subject")) {
				field_add(cur.subject, sizeof(cur.subject), l.p + 8, l.n - 8);
				last = SUBJECT;
			}
			continue;
		}
		if (this_is_patch)
			continue;
		if (starts(&l, "diff --git ")) {
			this_is_patch = 1;
		} else if (starts(&l, "--- ") && l.n > 4) {
			minus_seen = 1;
			continue;
		} else if (minus_seen && starts(&l, "+++ ")) {
			this_is_patch = 1;
		}
		minus_seen = 0;
		if (this_is_patch && first_patch_pending) {
			memcpy(out->name, cur.name, sizeof(out->name));
			memcpy(out->email, cur.email, sizeof(out->email));
			memcpy(out->date, cur.date, sizeof(out->date));
			memcpy(out->subject, cur.subject, sizeof(out->subject));
			first_patch_pending = 0;
		}
	}
	if (this_is_patch)
		out->nr_patches++;
	return out->nr_patches;
}
