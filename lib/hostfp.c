/* Which host fingerprint fields differ between two sides (see hostfp.h). */
#include "hostfp.h"
#include "buf.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* the set of the field's values over the side's fingerprints, as an object VALUE -> true */
static json_t *values_of(const json_t *side, const char *field)
{
	json_t *set = json_object(), *fp;
	size_t i;

	json_array_foreach (side, i, fp) {
		const json_t *v = json_object_get(fp, field);
		const char *s = json_is_string(v) ? json_string_value(v) : "\x01null";

		json_object_set_new(set, s, json_true());
	}
	return set;
}

/* 1 when every fingerprint of side has field (its value may be null) */
static int carried_by_all(const json_t *side, const char *field)
{
	json_t *fp;
	size_t i;

	json_array_foreach (side, i, fp)
		if (!json_object_get(fp, field))
			return 0;
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *hostfp_diff(const json_t *base, const json_t *head)
{
	json_t *out = json_array(), *keys = json_object(), *fp;
	const char **names;
	const char *k;
	json_t *v;
	size_t i, n = 0;

	if (!json_is_array(base) || !json_is_array(head) || !json_array_size(base) ||
	    !json_array_size(head)) {
		json_decref(keys);
		return out;
	}
	json_array_foreach (base, i, fp)
		json_object_foreach ((json_t *)fp, k, v)
			json_object_set_new(keys, k, json_true());
	json_array_foreach (head, i, fp)
		json_object_foreach ((json_t *)fp, k, v)
			json_object_set_new(keys, k, json_true());
	names = xcalloc(json_object_size(keys) + 1, sizeof(*names));
	json_object_foreach (keys, k, v) {
		json_t *a, *b;

		if (!carried_by_all(base, k) || !carried_by_all(head, k))
			continue; /* a field newer workers added: older runs say nothing of it */
		a = values_of(base, k);
		b = values_of(head, k);
		if (!json_equal(a, b))
			names[n++] = k;
		json_decref(a);
		json_decref(b);
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++)
		json_array_append_new(out, json_string(names[i]));
	free(names);
	json_decref(keys);
	return out;
}

/* the names people read, for the fields the worker sends (worker/fingerprint.c) */
static const struct {
	const char *field, *label;
} labels[] = {
	{ "cpu_model", "CPU model" },	    { "microcode", "microcode" },
	{ "cpufreq_governor", "governor" }, { "kernel_release", "host kernel" },
	{ "cmdline", "host cmdline" },	    { "numa_nodes", "host NUMA nodes" },
	{ "accel", "accelerator" },
};

static const char *label_of(const char *field)
{
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(labels[i].field, field))
			return labels[i].label;
	return field;
}

/* v on one line (control characters as spaces), cut at HOSTFP_NOTE_VALUE_MAX */
static int add_value(struct buf *b, const char *v)
{
	size_t n = strlen(v);
	int bad = 0;

	for (size_t i = 0; i < n && i < HOSTFP_NOTE_VALUE_MAX; i++)
		bad |= buf_addch(b, (unsigned char)v[i] < 0x20 || v[i] == 0x7f ? ' ' : v[i]);
	if (n > HOSTFP_NOTE_VALUE_MAX)
		bad |= buf_addstr(b, "...");
	return bad;
}

/* one side's distinct values of field, sorted, joined by "/" */
static int add_side(struct buf *b, const json_t *side, const char *field)
{
	json_t *set = values_of(side, field);
	const char **v = xcalloc(json_object_size(set) + 1, sizeof(*v));
	const char *k;
	json_t *x;
	size_t n = 0;
	int bad = 0;

	json_object_foreach (set, k, x)
		v[n++] = k;
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		bad |= (i && buf_addch(b, '/')) ||
		       add_value(b, strcmp(v[i], "\x01null") ? v[i] : "unknown");
	free(v);
	json_decref(set);
	return bad;
}

char *hostfp_note(const json_t *base, const json_t *head)
{
	json_t *fields = hostfp_diff(base, head), *f;
	struct buf b = BUF_INIT(0);
	size_t i;
	int bad = 0;

	if (!json_array_size(fields)) {
		json_decref(fields);
		return NULL;
	}
	bad |= buf_addstr(&b, "base and head ran on hosts that differ in ");
	json_array_foreach (fields, i, f) {
		const char *name = json_string_value(f);

		bad |= (i && buf_addstr(&b, ", ")) || buf_addstr(&b, label_of(name)) ||
		       buf_addstr(&b, " (") || add_side(&b, base, name) || buf_addstr(&b, " vs ") ||
		       add_side(&b, head, name) || buf_addch(&b, ')');
	}
	(void)bad; /* no cap: appends cannot fail */
	json_decref(fields);
	return buf_detach(&b, NULL);
}
