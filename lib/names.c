#include "names.h"

#include <string.h>

static int is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int is_hex(char c)
{
	return is_lower_hex(c) || (c >= 'A' && c <= 'F');
}

static int is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int names_full_sha(const char *s)
{
	size_t i;

	if (!s)
		return 0;
	for (i = 0; s[i]; i++)
		if (!is_lower_hex(s[i]))
			return 0;
	return i == 40;
}

int names_abbrev_sha(const char *s)
{
	size_t i;

	if (!s)
		return 0;
	for (i = 0; s[i]; i++)
		if (!is_hex(s[i]))
			return 0;
	return i >= 7 && i <= 40;
}

/* One component of a ref (between slashes): p[0..n), n > 0. */
static int ref_component_ok(const char *p, size_t n)
{
	if (p[0] == '.')
		return 0;
	if (n >= 5 && !memcmp(p + n - 5, ".lock", 5))
		return 0;
	return 1;
}

int names_ref(const char *s)
{
	size_t n, start = 0;

	if (!s)
		return 0;
	n = strlen(s);
	if (!n || n > NAMES_REF_MAX || s[0] == '-' || s[0] == '/' || s[n - 1] == '/' ||
	    s[n - 1] == '.' || !strcmp(s, "@"))
		return 0;
	if (strstr(s, "..") || strstr(s, "@{") || strstr(s, "//"))
		return 0;
	for (size_t i = 0; i <= n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '/' || c == '\0') {
			if (!ref_component_ok(s + start, i - start))
				return 0;
			start = i + 1;
			continue;
		}
		if (c < 0x20 || c == 0x7f || strchr(" ~^:?*[\\", c))
			return 0;
	}
	return 1;
}

int names_plain(const char *s, size_t max)
{
	size_t n;

	if (!s)
		return 0;
	n = strlen(s);
	if (!n || n > max || !(is_alnum(s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!is_alnum(s[i]) && !strchr("._+-", s[i]))
			return 0;
	return 1;
}
