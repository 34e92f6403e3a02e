#include "server/jsonout.h"
#include "dtoa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int jsonout_str(struct buf *b, const char *s)
{
	return jsonout_strn(b, s, strlen(s));
}

int jsonout_strn(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	const char *run = s, *end = s + n;
	int r = buf_addch(b, '"');

	for (; s < end; s++) {
		unsigned char ch = (unsigned char)*s;
		char esc[6] = { '\\', 'u', '0', '0', 0, 0 };

		if (ch >= 0x20 && ch != '"' && ch != '\\')
			continue;
		r |= buf_add(b, run, (size_t)(s - run));
		run = s + 1;
		switch (ch) {
		case '"':
			r |= buf_add(b, "\\\"", 2);
			break;
		case '\\':
			r |= buf_add(b, "\\\\", 2);
			break;
		/* jansson's short escapes */
		case '\b':
			r |= buf_add(b, "\\b", 2);
			break;
		case '\f':
			r |= buf_add(b, "\\f", 2);
			break;
		case '\n':
			r |= buf_add(b, "\\n", 2);
			break;
		case '\r':
			r |= buf_add(b, "\\r", 2);
			break;
		case '\t':
			r |= buf_add(b, "\\t", 2);
			break;
		default:
			esc[4] = hex[ch >> 4];
			esc[5] = hex[ch & 15];
			r |= buf_add(b, esc, 6);
		}
	}
	r |= buf_add(b, run, (size_t)(s - run));
	return r | buf_addch(b, '"');
}

int jsonout_str_or_null(struct buf *b, const char *s)
{
	return s ? jsonout_str(b, s) : buf_add(b, "null", 4);
}

int jsonout_real(struct buf *b, double v)
{
	char t[DTOA_BUFSZ];
	size_t n = dtoa_shortest(v, t);

	return n ? buf_add(b, t, n) : buf_add(b, "null", 4);
}

char *jsonout_put_real(char *p, double v)
{
	size_t n = dtoa_shortest(v, p);

	if (n)
		return p + n;
	memcpy(p, "null", 4);
	return p + 4;
}

char *jsonout_put_uint(char *p, unsigned long long v)
{
	char t[24], *q = t + sizeof(t);
	size_t n;

	do
		*--q = (char)('0' + v % 10);
	while (v /= 10);
	n = (size_t)(t + sizeof(t) - q);
	memcpy(p, q, n);
	return p + n;
}

char *jsonout_put_int(char *p, long long v)
{
	if (v >= 0)
		return jsonout_put_uint(p, (unsigned long long)v);
	*p++ = '-';
	return jsonout_put_uint(p, 0ULL - (unsigned long long)v);
}

int jsonout_pg_float(struct buf *b, const char *s, int isnull)
{
	size_t n = strlen(s);

	if (isnull || !n || strspn(s, "-0123456789.e+") != n)
		return buf_add(b, "null", 4);
	if (strspn(s, "-0123456789") == n)
		return buf_add(b, s, n) | buf_add(b, ".0", 2);
	return buf_add(b, s, n);
}

int jsonout_json(struct buf *b, const json_t *j)
{
	int r = 0;

	if (!j)
		return -1;
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		const char *key;
		json_t *v;
		int first = 1;

		r |= buf_addch(b, '{');
		/* insertion order, as json_dumps() without JSON_SORT_KEYS */
		json_object_foreach ((json_t *)j, key, v) {
			r |= (!first && buf_addch(b, ',')) || jsonout_str(b, key) ||
			     buf_addch(b, ':') || jsonout_json(b, v);
			first = 0;
		}
		return r | buf_addch(b, '}');
	}
	case JSON_ARRAY:
		r |= buf_addch(b, '[');
		for (size_t i = 0; i < json_array_size(j); i++)
			r |= (i && buf_addch(b, ',')) || jsonout_json(b, json_array_get(j, i));
		return r | buf_addch(b, ']');
	case JSON_STRING:
		return jsonout_strn(b, json_string_value(j), json_string_length(j));
	case JSON_INTEGER:
		return buf_addf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
	case JSON_REAL:
		return jsonout_real(b, json_real_value(j));
	case JSON_TRUE:
		return buf_add(b, "true", 4);
	case JSON_FALSE:
		return buf_add(b, "false", 5);
	case JSON_NULL:
		return buf_add(b, "null", 4);
	}
	return -1;
}

json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}
