/* .config difference as the kernel's scripts/diffconfig prints it (kconfigdiff.h). */
#include "kconfigdiff.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define SET_PREFIX "CONFIG_"
#define UNSET_PREFIX "# CONFIG_"
#define UNSET_SUFFIX " is not set"

static void add_opt(struct kconfig *k, const char *name, size_t name_len, const char *value,
		    size_t value_len, size_t line)
{
	struct kconfig_opt *o;

	ALLOC_GROW(k->opts, k->nr + 1, k->alloc);
	o = &k->opts[k->nr++];
	o->name = xstrndup(name, name_len);
	o->value = xstrndup(value, value_len);
	o->line = line;
}

/* one line without its '\n' (and without a trailing '\r') */
static void parse_line(struct kconfig *k, const char *s, size_t n, size_t line)
{
	const size_t sp = sizeof(SET_PREFIX) - 1, up = sizeof(UNSET_PREFIX) - 1;
	const size_t us = sizeof(UNSET_SUFFIX) - 1;

	if (n > sp && !memcmp(s, SET_PREFIX, sp)) {
		const char *eq = memchr(s + sp, '=', n - sp);

		if (eq && eq > s + sp)
			add_opt(k, s + sp, (size_t)(eq - s) - sp, eq + 1, n - (size_t)(eq + 1 - s),
				line);
		return;
	}
	if (n > up + us && !memcmp(s, UNSET_PREFIX, up) && !memcmp(s + n - us, UNSET_SUFFIX, us))
		add_opt(k, s + up, n - up - us, "n", 1, line);
}

/* by name, then by line: the last definition of a name ends its run */
static int opt_cmp(const void *a, const void *b)
{
	const struct kconfig_opt *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

void kconfig_parse(struct kconfig *k, const char *text, size_t len)
{
	size_t pos = 0, line = 0, out = 0;

	while (pos < len) {
		size_t end = pos, n;

		while (end < len && text[end] != '\n' && text[end] != '\0')
			end++;
		n = end - pos;
		if (n && text[pos + n - 1] == '\r')
			n--;
		parse_line(k, text + pos, n, ++line);
		pos = end + 1;
	}
	if (k->nr > 1)
		qsort(k->opts, k->nr, sizeof(k->opts[0]), opt_cmp);
	/* keep the last definition of each name */
	for (size_t i = 0; i < k->nr; i++) {
		if (i + 1 < k->nr && !strcmp(k->opts[i].name, k->opts[i + 1].name)) {
			free(k->opts[i].name);
			free(k->opts[i].value);
			continue;
		}
		k->opts[out++] = k->opts[i];
	}
	k->nr = out;
}

const char *kconfig_get(const struct kconfig *k, const char *name)
{
	size_t lo = 0, hi = k->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(k->opts[mid].name, name);

		if (!c)
			return k->opts[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void kconfig_release(struct kconfig *k)
{
	for (size_t i = 0; i < k->nr; i++) {
		free(k->opts[i].name);
		free(k->opts[i].value);
	}
	free(k->opts);
	k->opts = NULL;
	k->nr = k->alloc = 0;
}

static void add_entry(struct kconfigdiff *d, enum kconfigdiff_op op, const char *name,
		      const char *old_value, const char *new_value)
{
	struct kconfigdiff_entry *e;

	ALLOC_GROW(d->entries, d->nr + 1, d->alloc);
	e = &d->entries[d->nr++];
	e->op = op;
	e->name = name;
	e->old_value = old_value;
	e->new_value = new_value;
}

void kconfigdiff_compute(struct kconfigdiff *d, const struct kconfig *base,
			 const struct kconfig *head)
{
	size_t i, j;

	/* three merge walks over the two sorted lists, one per section */
	for (i = j = 0; i < base->nr; i++) {
		int c = 1;

		while (j < head->nr && (c = strcmp(head->opts[j].name, base->opts[i].name)) < 0)
			j++;
		if (j == head->nr || c) {
			add_entry(d, KCONFIGDIFF_REMOVED, base->opts[i].name, base->opts[i].value,
				  NULL);
			d->nr_removed++;
		}
	}
	for (i = j = 0; i < base->nr && j < head->nr;) {
		int c = strcmp(base->opts[i].name, head->opts[j].name);

		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			if (strcmp(base->opts[i].value, head->opts[j].value)) {
				add_entry(d, KCONFIGDIFF_CHANGED, base->opts[i].name,
					  base->opts[i].value, head->opts[j].value);
				d->nr_changed++;
			}
			i++;
			j++;
		}
	}
	for (j = i = 0; j < head->nr; j++) {
		int c = 1;

		while (i < base->nr && (c = strcmp(base->opts[i].name, head->opts[j].name)) < 0)
			i++;
		if (i == base->nr || c) {
			add_entry(d, KCONFIGDIFF_ADDED, head->opts[j].name, NULL,
				  head->opts[j].value);
			d->nr_added++;
		}
	}
}

int kconfigdiff_format_entry(const struct kconfigdiff_entry *e, struct buf *out)
{
	switch (e->op) {
	case KCONFIGDIFF_REMOVED:
		return buf_addf(out, "-%s %s", e->name, e->old_value);
	case KCONFIGDIFF_CHANGED:
		return buf_addf(out, " %s %s -> %s", e->name, e->old_value, e->new_value);
	case KCONFIGDIFF_ADDED:
		return buf_addf(out, "+%s %s", e->name, e->new_value);
	}
	return -1;
}

int kconfigdiff_format(const struct kconfigdiff *d, struct buf *out)
{
	for (size_t i = 0; i < d->nr; i++)
		if (kconfigdiff_format_entry(&d->entries[i], out) || buf_addch(out, '\n'))
			return -1;
	return 0;
}

void kconfigdiff_release(struct kconfigdiff *d)
{
	free(d->entries);
	d->entries = NULL;
	d->nr = d->alloc = 0;
	d->nr_removed = d->nr_changed = d->nr_added = 0;
}
