/* The request's body, JSON and query arguments (http_body.h). */
#include "server/http/http_body.h"
#include "server/config.h"
#include "server/http/request.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void body_start(struct request *rq)
{
	buf_init(&rq->body, (size_t)rq->srv->cfg->body_limit);
}

void body_add(struct request *rq, const char *data, size_t n)
{
	if (!rq->too_large && buf_add(&rq->body, data, n)) {
		rq->too_large = 1;
		buf_release(&rq->body);
	}
}

void body_release(struct request *rq)
{
	buf_release(&rq->body);
}

/*
 * Length of the UTF-8 sequence at s[0..n) as jansson accepts it (no
 * overlong forms, surrogates or code points past U+10FFFF), or 0 when
 * s does not start with one.
 */
size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* 1 when s[0..n) is UTF-8 without NUL bytes. */
int utf8_ok(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0, l; i < n; i += l)
		if (!u[i] || !(l = utf8_seq(u + i, n - i)))
			return 0;
	return 1;
}

const char *rq_arg(struct request *rq, const char *name)
{
	const char *v = MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, name);
	return v && *v ? v : NULL;
}

/* MHD_get_connection_values_n callback: stops at the first argument that is
 * not UTF-8 or holds a NUL byte, keeping its name in *cls. */
static enum MHD_Result find_bad_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				    size_t key_size, const char *value, size_t value_size)
{
	const char **bad = cls;

	(void)kind;
	if (utf8_ok(key, key_size) && (!value || utf8_ok(value, value_size)))
		return MHD_YES;
	*bad = key;
	return MHD_NO;
}

struct args_only {
	const char *const *names;
	unsigned char seen[64]; /* seen[i]: names[i] given already */
	const char *bad;
	int twice; /* bad is a known argument given a second time */
};

/* MHD_get_connection_values callback: stops at the first argument not in
 * names, or one of them given again */
static enum MHD_Result find_unknown_arg(void *cls, enum MHD_ValueKind kind, const char *key,
					const char *value)
{
	struct args_only *a = cls;

	(void)kind;
	(void)value;
	for (size_t i = 0; a->names[i]; i++) {
		if (strcmp(key, a->names[i]))
			continue;
		if (i < sizeof(a->seen) && a->seen[i]++) {
			a->bad = key;
			a->twice = 1;
			return MHD_NO;
		}
		return MHD_YES;
	}
	a->bad = key;
	return MHD_NO;
}

int rq_args_only(struct request *rq, const char *const *names, struct err *e)
{
	struct args_only a = { .names = names };
	char known[512];
	size_t len = 0;

	MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND, find_unknown_arg, &a);
	if (!a.bad)
		return 0;
	if (a.twice)
		return err_setc(e, ERR_INVALID_FIELD, a.bad,
				"query argument '%s' is given more than once", a.bad);
	if (!names[0])
		return err_setc(e, ERR_INVALID_FIELD, a.bad,
				"unknown query argument '%s': this endpoint takes none", a.bad);
	known[0] = '\0';
	for (size_t i = 0; names[i] && len < sizeof(known); i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", i ? ", " : "",
					names[i]);
	return err_setc(e, ERR_INVALID_FIELD, a.bad,
			"unknown query argument '%s' (this endpoint takes: %s)", a.bad, known);
}

int rq_text_ok(struct request *rq, const char **bad)
{
	*bad = NULL;
	MHD_get_connection_values_n(rq->conn, MHD_GET_ARGUMENT_KIND, find_bad_arg, bad);
	return !*bad && utf8_ok(rq->url, strlen(rq->url));
}

/*
 * The first number in j that would not come back the same from the
 * database, or NULL; path (size bytes) gets its JSON path ("metrics.m[2]",
 * "machine.nr_cpus"; cut short when longer), len = the length of the path
 * of j. PostgreSQL's jsonb prints a number in full, without an exponent
 * (1e300 as 301 digits), and jansson refuses an integer past int64 when
 * the stored JSON is read back: the field would silently vanish, a job
 * would not lease. Sums of such values also overflow float8 in SQL
 * (avg() of run_values). So reals must lie within +-2^63; integers are
 * int64 already (jansson refuses longer integer literals: rq_json).
 */
static json_t *bad_number(json_t *j, char *path, size_t size, size_t len)
{
	const char *k;
	json_t *v, *bad;
	size_t i;

	if (json_is_real(j))
		return fabs(json_real_value(j)) < 9223372036854775808.0 ? NULL : j;
	if (json_is_object(j)) {
		json_object_foreach (j, k, v) {
			snprintf(path + len, size - len, "%s%s", len ? "." : "", k);
			if ((bad = bad_number(v, path, size, strlen(path))))
				return bad;
		}
	} else if (json_is_array(j)) {
		json_array_foreach (j, i, v) {
			snprintf(path + len, size - len, "[%zu]", i);
			if ((bad = bad_number(v, path, size, strlen(path))))
				return bad;
		}
	}
	path[len] = '\0';
	return NULL;
}

/* one open object or array while number_path() reads a JSON text */
struct json_frame {
	size_t len;   /* length of the container's own path */
	size_t index; /* arrays: the element being read */
	int is_obj;
	int key_next; /* objects: the next string is a key */
};

/* appends the JSON string text[0..n) (quotes included), decoded, to path */
static void path_add_key(char *path, size_t size, size_t len, const char *text, size_t n)
{
	json_t *k = json_loadb(text, n, JSON_DECODE_ANY, NULL);

	snprintf(path + len, size - len, "%s%s", len ? "." : "",
		 json_is_string(k) ? json_string_value(k) : "?");
	json_decref(k);
}

/*
 * A number jansson cannot hold (an integer literal past int64, a real
 * past DBL_MAX) makes json_loadb() stop with only a line and column. This
 * names the number instead: the JSON path of the last number that starts
 * before byte pos of text (json_loadb() read text as valid JSON up to
 * there, the number included) goes to at (size bytes, cut short when
 * longer), its text to num (nsize bytes). 0, or -1 when there is none.
 */
static int number_path(const char *text, size_t pos, char *at, size_t size, char *num, size_t nsize)
{
	struct json_frame *st = NULL;
	size_t depth = 0, alloc = 0, i = 0, start;
	char *path = xcalloc(1, size);
	int found = -1;

	while (i < pos) {
		char c = text[i];
		struct json_frame *top = depth ? &st[depth - 1] : NULL;

		if (c == '"') {
			start = i++;
			while (i < pos && text[i] != '"')
				i += text[i] == '\\' ? 2 : 1;
			i++;
			if (top && top->key_next) {
				path_add_key(path, size, top->len, text + start, i - start);
				top->key_next = 0;
			}
		} else if (c == '{' || c == '[') {
			ALLOC_GROW(st, depth + 1, alloc);
			st[depth].len = strlen(path);
			st[depth].index = 0;
			st[depth].is_obj = st[depth].key_next = c == '{';
			if (c == '[')
				snprintf(path + st[depth].len, size - st[depth].len, "[0]");
			depth++;
			i++;
		} else if (c == '}' || c == ']' || c == ',') {
			if (top) {
				path[top->len] = '\0';
				if (c != ',')
					depth--;
				else if (top->is_obj)
					top->key_next = 1;
				else
					snprintf(path + top->len, size - top->len, "[%zu]",
						 ++top->index);
			}
			i++;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			start = i;
			while (i < pos &&
			       (strchr("+-.eE", text[i]) || (text[i] >= '0' && text[i] <= '9')))
				i++;
			snprintf(num, nsize, "%.*s", (int)(i - start), text + start);
			snprintf(at, size, "%s", path);
			found = 0;
		} else {
			i++;
		}
	}
	free(st);
	free(path);
	return found;
}

/*
 * An upper bound of the JSON values in text: one more than its commas
 * and opening brackets outside strings. jansson spends some 80 bytes on
 * each value, so a 16 MiB body of "[0,0,0,...]" would take ~700 MB to
 * parse; this count is taken before it.
 */
static size_t count_json_values(const char *text, size_t n)
{
	size_t values = 1;
	int in_string = 0;

	for (size_t i = 0; i < n; i++) {
		char c = text[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = 0;
		} else if (c == '"') {
			in_string = 1;
		} else if (c == ',' || c == '[' || c == '{') {
			values++;
		}
	}
	return values;
}

json_t *rq_json(struct request *rq, struct err *e)
{
	char path[sizeof(e->detail)] = "";
	json_error_t je;
	json_t *j, *bad;

	if (!rq->body.len) {
		err_setc(e, ERR_INVALID_JSON, "body", "the request body is empty; expected JSON");
		return NULL;
	}
	if (count_json_values(rq->body.data, rq->body.len) > RQ_JSON_MAX_VALUES) {
		err_setc(e, ERR_TOO_LARGE, "body",
			 "the request body holds more than %d JSON values", RQ_JSON_MAX_VALUES);
		return NULL;
	}
	j = json_loadb(rq->body.data, rq->body.len, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		char detail[64], num[48];

		if (json_error_code(&je) == json_error_numeric_overflow && je.position > 0 &&
		    !number_path(rq->body.data, (size_t)je.position, path, sizeof(path), num,
				 sizeof(num))) {
			err_setc(e, ERR_INVALID_FIELD, path,
				 "'%s' is out of range: %s (integers must fit in 64 bits, "
				 "other numbers lie within +-2^63)",
				 path, num);
			return NULL;
		}
		snprintf(detail, sizeof(detail), "line %d column %d", je.line, je.column);
		/* jansson's own words here name its flag (JSON_ALLOW_NUL): say what the body holds */
		if (json_error_code(&je) == json_error_null_character)
			err_setc(e, ERR_INVALID_JSON, detail,
				 "malformed JSON: a string holds \\u0000 (a NUL character), which no "
				 "field takes (%s)",
				 detail);
		else
			err_setc(e, ERR_INVALID_JSON, detail, "malformed JSON: %s", je.text);
		return NULL;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		err_setc(e, ERR_INVALID_FIELD, "", "the request body must be a JSON object");
		return NULL;
	}
	if ((bad = bad_number(j, path, sizeof(path), 0))) {
		err_setc(e, ERR_INVALID_FIELD, path,
			 "'%s' is out of range: %g (numbers must lie within +-2^63)", path,
			 json_real_value(bad));
		json_decref(j);
		return NULL;
	}
	return j;
}
