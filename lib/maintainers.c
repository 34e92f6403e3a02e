/* MAINTAINERS entries' F:/N:/X: patterns (see maintainers.h). */
#include "maintainers.h"
#include "xalloc.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* a field line: one capital letter, ':', a tab (prose indents its examples) */
static int is_field(const char *l, size_t n)
{
	return n >= 3 && l[0] >= 'A' && l[0] <= 'Z' && l[1] == ':' && (l[2] == '\t' || l[2] == ' ');
}

static void add(char ***v, size_t *n, const char *s, size_t len)
{
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	if (!len)
		return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrndup(s, len);
}

/* an N: line's expression compiled into m (left out when it does not compile) */
static void add_regex(struct maintainers *m, const char *s, size_t len)
{
	char **one = NULL;
	size_t n = 0;

	add(&one, &n, s, len);
	if (!n)
		return;
	m->nre = xrealloc(m->nre, (m->nn + 1) * sizeof(*m->nre));
	if (!regcomp(&m->nre[m->nn], one[0], REG_EXTENDED | REG_NOSUB))
		m->nn++;
	free(one[0]);
	free(one);
}

static int named(const char *title, size_t len, const char *const *names, size_t n, size_t *which)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncasecmp(names[i], title, len)) {
			*which = i;
			return 1;
		}
	return 0;
}

size_t maintainers_read(const char *text, size_t len, const char *const *names, size_t n,
			struct maintainers *out)
{
	const char *p = text, *end = text + len, *prev = NULL;
	size_t prev_len = 0, which;
	unsigned char *seen = n ? xcalloc(n, 1) : NULL;
	int in = 0; /* in a named entry's fields */

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (is_field(p, l)) {
			/* the first field line after a title starts an entry */
			if (prev) {
				in = named(prev, prev_len, names, n, &which);
				if (in)
					seen[which] = 1;
			}
			if (in && p[0] == 'F')
				add(&out->f, &out->nf, p + 3, l - 3);
			else if (in && p[0] == 'X')
				add(&out->x, &out->nx, p + 3, l - 3);
			else if (in && p[0] == 'N')
				add_regex(out, p + 3, l - 3);
			prev = NULL;
		} else {
			in = 0;
			prev = l ? p : NULL;
			prev_len = l;
		}
		p += l + 1;
	}
	for (size_t i = 0; i < n; i++)
		out->found += seen[i];
	free(seen);
	return n - out->found;
}

/* one pattern against path, as MAINTAINERS reads it */
static int pattern_match(const char *pat, const char *path)
{
	size_t pl = strlen(pat);

	if (pl && pat[pl - 1] == '/') {
		if (!strpbrk(pat, "*?["))
			return !strncmp(path, pat, pl);
		/* a directory with wildcards: its components matched, then anything below */
		for (const char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
			char *head = xstrndup(path, (size_t)(s - path) + 1);
			int ok = !fnmatch(pat, head, FNM_PATHNAME);

			free(head);
			if (ok)
				return 1;
		}
		return 0;
	}
	if (strpbrk(pat, "*?["))
		return !fnmatch(pat, path, FNM_PATHNAME);
	return !strcmp(path, pat) || (!strncmp(path, pat, pl) && path[pl] == '/');
}

int maintainers_match(const struct maintainers *m, const char *path)
{
	int in = 0;

	for (size_t i = 0; i < m->nf && !in; i++)
		in = pattern_match(m->f[i], path);
	for (size_t i = 0; i < m->nn && !in; i++)
		in = !regexec(&m->nre[i], path, 0, NULL, 0);
	for (size_t i = 0; i < m->nx && in; i++)
		in = !pattern_match(m->x[i], path);
	return in;
}

void maintainers_release(struct maintainers *m)
{
	for (size_t i = 0; i < m->nf; i++)
		free(m->f[i]);
	for (size_t i = 0; i < m->nx; i++)
		free(m->x[i]);
	for (size_t i = 0; i < m->nn; i++)
		regfree(&m->nre[i]);
	free(m->f);
	free(m->x);
	free(m->nre);
	memset(m, 0, sizeof(*m));
}
