#include "numlist.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t numlist_skip_comments(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r'))
			j++;
		if (j < len && text[j] == '\n') {
			i = j + 1;
			continue;
		}
		if (j < len && text[j] == '#') {
			while (j < len && text[j] != '\n')
				j++;
			i = j < len ? j + 1 : j;
			continue;
		}
		return j;
	}
	return i;
}

static int parse_json(const char *text, size_t len, double **out, size_t *n, struct err *e)
{
	json_error_t je;
	json_t *a = json_loadb(text, len, 0, &je);
	size_t i;
	json_t *v;

	if (!a)
		return err_setc(e, ERR_INVALID_JSON, "", "invalid JSON at line %d: %s", je.line,
				je.text);
	if (!json_is_array(a)) {
		json_decref(a);
		return err_setc(e, ERR_INVALID_FIELD, "", "expected a JSON array of numbers");
	}
	*n = json_array_size(a);
	*out = xmalloc((*n ? *n : 1) * sizeof(**out));
	json_array_foreach (a, i, v) {
		if (!json_is_number(v)) {
			json_decref(a);
			free(*out);
			*out = NULL;
			return err_setc(e, ERR_INVALID_FIELD, "", "element %zu is not a number", i);
		}
		(*out)[i] = json_number_value(v);
		if (fabs((*out)[i]) > NUMLIST_MAX_ABS) {
			json_decref(a);
			free(*out);
			*out = NULL;
			return err_setc(e, ERR_INVALID_FIELD, "",
					"element %zu is out of range (numbers must lie within +-2^63)",
					i);
		}
	}
	json_decref(a);
	return 0;
}

int numlist_parse(const char *text, size_t len, double **out, size_t *n, struct err *e)
{
	size_t start = numlist_skip_comments(text, len), alloc = 0, line = 1;
	const char *p, *end = text + len;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < start; i++)
		line += text[i] == '\n';
	if (start < len && text[start] == '[')
		return parse_json(text + start, len - start, out, n, e);
	for (p = text + start; p < end; line++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p, *stop;

		if (!eol)
			eol = end;
		stop = memchr(p, '#', (size_t)(eol - p));
		if (!stop)
			stop = eol;
		while (q < stop && isspace((unsigned char)*q))
			q++;
		while (stop > q && isspace((unsigned char)stop[-1]))
			stop--;
		if (q < stop) {
			size_t l = (size_t)(stop - q);
			char *tok = xstrndup(q, l), *after;
			double x;
			int bad;

			errno = 0;
			x = strtod(tok, &after);
			/*
			 * The whole token must be the number: a NUL inside it (a binary
			 * file) is not its end. An underflow (1e-400, 5e-324) is the
			 * nearest double, as the API's JSON parser takes it; an overflow
			 * is refused.
			 */
			bad = after == tok || after != tok + l || !isfinite(x) ||
			      (errno == ERANGE && fabs(x) >= 1);
			if (bad || fabs(x) > NUMLIST_MAX_ABS) {
				free(*out);
				*out = NULL;
				*n = 0;
				/* a message names at most 64 bytes of the token */
				if (strlen(tok) < l)
					err_setc(e, ERR_INVALID_FIELD, "",
						 "line %zu: a NUL byte after '%.64s': not a text file",
						 line, tok);
				else
					err_setc(e, ERR_INVALID_FIELD, "",
						 bad ? "line %zu: '%.64s%s' is not a number" :
						       "line %zu: '%.64s%s' is out of range (numbers "
						       "must lie within +-2^63)",
						 line, tok, l > 64 ? "..." : "");
				free(tok);
				return -1;
			}
			free(tok);
			ALLOC_GROW(*out, *n + 1, alloc);
			(*out)[(*n)++] = x;
		}
		p = eol + 1;
	}
	if (!*out)
		*out = xmalloc(sizeof(**out));
	return 0;
}

int numlist_read_file(const char *path, size_t max_bytes, char **text, size_t *len, struct err *e)
{
	FILE *f = fopen(path, "rb");
	size_t alloc = 0, got;
	char *buf = NULL;

	*text = NULL;
	*len = 0;
	if (!f)
		return err_setc(e, ERR_NOT_FOUND, path, "cannot open '%s': %s", path,
				strerror(errno));
	for (;;) {
		ALLOC_GROW(buf, *len + 65536 + 1, alloc);
		got = fread(buf + *len, 1, alloc - *len - 1, f);
		*len += got;
		if (*len > max_bytes) {
			fclose(f);
			free(buf);
			*len = 0;
			return err_setc(e, ERR_TOO_LARGE, path, "'%s' is larger than %zu bytes",
					path, max_bytes);
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int err = errno; /* fread sets it where it sets the error indicator (EISDIR) */

		fclose(f);
		free(buf);
		*len = 0;
		return err_setc(e, ERR_IO, path, "cannot read '%s': %s", path, strerror(err));
	}
	fclose(f);
	buf[*len] = '\0';
	/* a UTF-8 byte order mark (editors on Windows write one) is no number */
	if (*len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {
		*len -= 3;
		memmove(buf, buf + 3, *len + 1);
	}
	/* a lone CR ends a line too (old Mac files): else the file reads as one long line */
	for (size_t i = 0; i < *len; i++)
		if (buf[i] == '\r' && buf[i + 1] != '\n')
			buf[i] = '\n';
	*text = buf;
	return 0;
}

int numlist_load(const char *path, size_t max_bytes, double **out, size_t *n, struct err *e)
{
	char *text;
	size_t len;
	int rc;

	*out = NULL;
	*n = 0;
	if (numlist_read_file(path, max_bytes, &text, &len, e))
		return -1;
	rc = numlist_parse(text, len, out, n, e);
	free(text);
	return rc;
}
