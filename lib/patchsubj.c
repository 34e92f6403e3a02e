/* A patch mail's subject; see patchsubj.h. */
#include "patchsubj.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* a reply's marker at s ("Re:", "RE:", "Aw:", "Antw:", "Sv:"): its length, else 0 */
static size_t reply_marker(const char *s)
{
	static const char *const m[] = { "re:", "aw:", "antw:", "sv:", "fwd:", NULL };

	for (size_t i = 0; m[i]; i++)
		if (!strncasecmp(s, m[i], strlen(m[i])))
			return strlen(m[i]);
	return 0;
}

/* word w (len n) of the bracket: vN, m/n, RESEND, RFC, or part of the prefix */
static void bracket_word(const char *w, size_t n, struct patchsubj *out, size_t *plen)
{
	char t[64];
	const char *slash;

	if (!n || n >= sizeof(t))
		return;
	memcpy(t, w, n);
	t[n] = '\0';
	if ((t[0] == 'v' || t[0] == 'V') && n > 1 && strspn(t + 1, "0123456789") == n - 1) {
		out->version = (int)strtol(t + 1, NULL, 10);
		return;
	}
	slash = strchr(t, '/');
	if (slash && slash > t && strspn(t, "0123456789") == (size_t)(slash - t) && slash[1] &&
	    strspn(slash + 1, "0123456789") == strlen(slash + 1)) {
		out->part = (int)strtol(t, NULL, 10);
		out->total = (int)strtol(slash + 1, NULL, 10);
		return;
	}
	if (!strcasecmp(t, "RESEND")) {
		out->resend = 1;
		return;
	}
	if (!strcasecmp(t, "RFC"))
		out->rfc = 1;
	if (!strcasecmp(t, "PATCH"))
		out->is_patch = 1;
	if (*plen + n + 2 < sizeof(out->prefix)) {
		if (*plen)
			out->prefix[(*plen)++] = ' ';
		memcpy(out->prefix + *plen, t, n);
		*plen += n;
		out->prefix[*plen] = '\0';
	}
}

int patchsubj_parse(const char *subject, struct patchsubj *out)
{
	const char *s = skip_blanks(subject), *close;
	size_t m, plen = 0;

	memset(out, 0, sizeof(*out));
	out->version = 1;
	out->part = out->total = 1;
	while ((m = reply_marker(s))) {
		out->is_reply = 1;
		s = skip_blanks(s + m);
	}
	if (*s != '[' || !(close = strchr(s, ']')))
		return 0;
	for (const char *w = s + 1; w < close;) {
		const char *e = w;

		while (e < close && *e != ' ' && *e != '\t' && *e != ',')
			e++;
		bracket_word(w, (size_t)(e - w), out, &plen);
		w = e < close ? e + 1 : close;
	}
	snprintf(out->title, sizeof(out->title), "%s", skip_blanks(close + 1));
	for (size_t n = strlen(out->title); n && isspace((unsigned char)out->title[n - 1]); n--)
		out->title[n - 1] = '\0';
	if (out->total < 1 || out->part > out->total || out->version < 1)
		out->is_patch = 0;
	return out->is_patch && !out->is_reply;
}

int patchsubj_prefix_match(const char *prefix, const char *const *words, size_t n)
{
	if (!n) {
		for (const char *p = prefix; (p = strcasestr(p, "PATCH")); p += 5)
			if ((p == prefix || p[-1] == ' ') && (!p[5] || p[5] == ' '))
				return 1;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(words[i]);

		if (l && !strncasecmp(prefix, words[i], l) && (!prefix[l] || prefix[l] == ' '))
			return 1;
	}
	return 0;
}
