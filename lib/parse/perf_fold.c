/*
 * perf_fold: `perf script` to folded stacks, folded stacks to per-symbol
 * shares (see perf_fold.h). The folding follows FlameGraph's
 * stackcollapse-perf.pl (comm first, frames root first, offsets dropped);
 * the bound and the shares are ours.
 */
#include "parse/perf_fold.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

#define MIN_BOUND 64

/* --- a string -> count table (open addressing, FNV-1a) ------------------- */

struct fold_entry {
	char *key; /* new; NULL = empty slot */
	size_t len;
	long long count;
};

struct fold_table {
	struct fold_entry *slot;
	size_t cap, n; /* cap: a power of two */
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

static void table_grow(struct fold_table *t);

/* Adds count to key[0..len) (copied when new). */
static void table_add(struct fold_table *t, const char *key, size_t len, long long count)
{
	size_t i;

	if ((t->n + 1) * 2 > t->cap)
		table_grow(t);
	for (i = hash_bytes(key, len) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct fold_entry *e = &t->slot[i];

		if (!e->key) {
			e->key = xstrndup(key, len);
			e->len = len;
			e->count = count;
			t->n++;
			return;
		}
		if (e->len == len && !memcmp(e->key, key, len)) {
			e->count += count;
			return;
		}
	}
}

static void table_grow(struct fold_table *t)
{
	struct fold_table bigger = { NULL, t->cap ? t->cap * 2 : 256, 0 };
	size_t i;

	bigger.slot = xcalloc(bigger.cap, sizeof(*bigger.slot));
	for (i = 0; i < t->cap; i++) {
		struct fold_entry *e = &t->slot[i];
		size_t j;

		if (!e->key)
			continue;
		for (j = hash_bytes(e->key, e->len) & (bigger.cap - 1); bigger.slot[j].key;
		     j = (j + 1) & (bigger.cap - 1))
			;
		bigger.slot[j] = *e;
		bigger.n++;
	}
	free(t->slot);
	*t = bigger;
}

static void table_release(struct fold_table *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->slot[i].key);
	free(t->slot);
	t->slot = NULL;
	t->cap = t->n = 0;
}

/* The table's entries, packed (borrowed from t). */
static struct fold_entry *table_entries(const struct fold_table *t)
{
	struct fold_entry *v = xcalloc(t->n ? t->n : 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < t->cap; i++)
		if (t->slot[i].key)
			v[n++] = t->slot[i];
	return v;
}

static int cmp_key(const void *a, const void *b)
{
	const struct fold_entry *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int cmp_heavy(const void *a, const void *b)
{
	const struct fold_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return cmp_key(a, b);
}

/* --- perf script ---------------------------------------------------------- */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * The comm of a sample's first line "COMM PID[/TID] ...": its length, or 0
 * when the line has no " PID" word (not a sample: a warning, a header).
 * The comm may hold spaces; it ends before the first all-digits word.
 */
static size_t comm_len(const char *p, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++) {
		size_t j, end;

		if (!is_space(p[i]) || is_space(p[i - 1]))
			continue;
		for (j = i; j < n && is_space(p[j]); j++)
			;
		if (j >= n || !is_digit(p[j]))
			continue;
		for (end = j; end < n && is_digit(p[end]); end++)
			;
		if (end < n && p[end] == '/')
			for (end++; end < n && is_digit(p[end]); end++)
				;
		if (end == n || is_space(p[end]))
			return i;
	}
	return 0;
}

/* Appends s[0..n) to b with ';' written ':' and white space '_'. */
static void add_clean(struct buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == ';')
			c = ':';
		else if (is_space(c) || c == '\n')
			c = '_';
		if (buf_addch(b, c))
			abort(); /* uncapped */
	}
}

/* One frame line's parts: "ADDR SYM+0xOFF (DSO)" (the dso optional). */
struct frame_line {
	const char *sym, *dso; /* sym: the name without offset and dso */
	size_t symlen, dsolen;
	unsigned long long addr;
};

/* Parses one frame line (indented) into f; 0 when the line is no frame. */
static int frame_parse(const char *p, size_t n, struct frame_line *f)
{
	size_t i = 0, start, end;

	memset(f, 0, sizeof(*f));
	while (i < n && is_space(p[i]))
		i++;
	start = i;
	while (i < n && is_hex(p[i])) {
		char c = p[i];

		f->addr = f->addr * 16 + (unsigned)(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
		i++;
	}
	if (i == start || (i < n && !is_space(p[i])))
		return 0;
	while (i < n && is_space(p[i]))
		i++;
	end = n;
	while (end > i && is_space(p[end - 1]))
		end--;
	if (end > i && p[end - 1] == ')') {
		size_t k;

		for (k = end - 1; k > i; k--)
			if (p[k] == '(' && is_space(p[k - 1]))
				break;
		if (k > i) {
			f->dso = p + k + 1;
			f->dsolen = end - 1 - (k + 1);
			end = k;
			while (end > i && is_space(p[end - 1]))
				end--;
		}
	}
	/* "+0x1f" at the end: the offset into the symbol */
	{
		size_t k = end;

		while (k > i && is_hex(p[k - 1]))
			k--;
		if (k < end && k >= i + 3 && p[k - 1] == 'x' && p[k - 2] == '0' && p[k - 3] == '+')
			end = k - 3;
	}
	if (end == i) {
		f->sym = "[unknown]";
		f->symlen = 9;
	} else {
		f->sym = p + i;
		f->symlen = end - i;
	}
	return 1;
}

/* --- user symbols --------------------------------------------------------- */

static int cmp_dso_off(const char *d1, size_t l1, unsigned long long o1, const char *d2, size_t l2,
		       unsigned long long o2)
{
	size_t n = l1 < l2 ? l1 : l2;
	int c = memcmp(d1, d2, n);

	if (c)
		return c;
	if (l1 != l2)
		return l1 < l2 ? -1 : 1;
	return (o1 > o2) - (o1 < o2);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct perf_fold_sym *x = a, *y = b;

	return cmp_dso_off(x->dso, x->dsolen, x->off, y->dso, y->dsolen, y->off);
}

/* Reads a hex number of p[0..n) at *i (then past its digits); 0 when none. */
static int hex_word(const char *p, size_t n, size_t *i, unsigned long long *v)
{
	size_t k = *i;

	*v = 0;
	while (k < n && is_hex(p[k])) {
		char c = p[k];

		*v = *v * 16 + (unsigned)(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
		k++;
	}
	if (k == *i || k - *i > 16 || (k < n && !is_space(p[k])))
		return 0;
	*i = k;
	return 1;
}

void perf_fold_syms_parse(struct perf_fold_syms *s, const char *text, size_t len)
{
	const char *p, *end, *dso = NULL;
	size_t dsolen = 0;

	memset(s, 0, sizeof(*s));
	s->text = xstrndup(text, len);
	p = s->text;
	end = s->text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), i = 0;
		unsigned long long off, size;

		while (n && is_space(p[n - 1]))
			n--;
		if (n > 4 && !memcmp(p, "dso ", 4)) {
			dso = p + 4;
			dsolen = n - 4;
		} else if (dso && hex_word(p, n, &i, &off) && i < n &&
			   (i++, hex_word(p, n, &i, &size)) && i + 1 < n && size > 0) {
			struct perf_fold_sym *e;

			ALLOC_GROW(s->v, s->n + 1, s->alloc);
			e = &s->v[s->n++];
			e->dso = dso;
			e->dsolen = dsolen;
			e->off = off;
			e->size = size;
			e->name = p + i + 1;
			e->namelen = n - i - 1;
		}
		p += n;
		while (p < end && *p != '\n')
			p++;
		p++;
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_sym);
}

void perf_fold_syms_release(struct perf_fold_syms *s)
{
	free(s->text);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

const struct perf_fold_sym *perf_fold_syms_find(const struct perf_fold_syms *s, const char *dso,
						size_t dsolen, unsigned long long off)
{
	size_t lo = 0, hi;
	const struct perf_fold_sym *e;

	if (!s || !s->n)
		return NULL;
	/* the last entry at or before (dso, off) */
	hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_dso_off(s->v[mid].dso, s->v[mid].dsolen, s->v[mid].off, dso, dsolen, off) <=
		    0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &s->v[lo - 1];
	if (e->dsolen != dsolen || memcmp(e->dso, dso, dsolen) || off - e->off >= e->size)
		return NULL;
	return e;
}

struct frame_ref {
	const char *p;
	size_t n;
};

struct fold_state {
	struct fold_table table;
	struct frame_ref *frames;
	size_t nframes, alloc;
	const char *comm;
	size_t commlen;
	int in_sample;
	long long samples;
	struct buf key;
};

static void end_sample(struct fold_state *s)
{
	size_t i;

	if (!s->in_sample)
		return;
	s->in_sample = 0;
	buf_reset(&s->key);
	add_clean(&s->key, s->comm, s->commlen);
	for (i = s->nframes; i-- > 0;) {
		if (buf_addch(&s->key, ';'))
			abort();
		add_clean(&s->key, s->frames[i].p, s->frames[i].n);
	}
	table_add(&s->table, s->key.data, s->key.len, 1);
	s->samples++;
	s->nframes = 0;
}

static void emit(struct buf *out, const struct fold_entry *e)
{
	if (buf_add(out, e->key, e->len) || buf_addf(out, " %lld\n", e->count))
		abort();
}

int perf_fold_script(const char *text, size_t len, size_t max_bytes,
		     const struct perf_fold_syms *syms, struct perf_fold_result *r)
{
	struct fold_state s;
	struct fold_entry *v;
	struct buf out = BUF_INIT(0);
	const char *p = text, *end = text + len;
	size_t i, total = 0;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	buf_init(&s.key, 0);
	if (max_bytes < MIN_BOUND)
		max_bytes = MIN_BOUND;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t k = 0;

		while (k < n && is_space(p[k]))
			k++;
		if (k == n) {
			end_sample(&s); /* blank: the sample is over */
		} else if (k == 0 && p[0] == '#') {
			end_sample(&s); /* a comment (perf script --header, a fixture's source) */
		} else if (k == 0) {
			size_t c = comm_len(p, n);

			end_sample(&s);
			if (c) {
				s.in_sample = 1;
				s.comm = p;
				s.commlen = c;
			}
		} else if (s.in_sample) {
			struct frame_line f;

			if (frame_parse(p, n, &f)) {
				if (f.symlen == 9 && !memcmp(f.sym, "[unknown]", 9)) {
					const struct perf_fold_sym *e =
						f.dso ? perf_fold_syms_find(syms, f.dso, f.dsolen,
									    f.addr) :
							NULL;

					if (e) {
						f.sym = e->name;
						f.symlen = e->namelen;
						r->frames_named++;
					} else {
						r->frames_unknown++;
					}
				}
				ALLOC_GROW(s.frames, s.nframes + 1, s.alloc);
				s.frames[s.nframes].p = f.sym;
				s.frames[s.nframes].n = f.symlen;
				s.nframes++;
			}
		}
		p += n + 1;
	}
	end_sample(&s);

	v = table_entries(&s.table);
	for (i = 0; i < s.table.n; i++)
		total += v[i].len + 24; /* " N\n": a count has at most 20 digits */
	r->samples = s.samples;
	r->stacks = (long long)s.table.n;
	if (total <= max_bytes) {
		qsort(v, s.table.n, sizeof(*v), cmp_key);
		for (i = 0; i < s.table.n; i++)
			emit(&out, &v[i]);
	} else {
		/* the heaviest stacks that fit beside a reserve for the "[other]" lines */
		struct fold_table other = { NULL, 0, 0 };
		struct fold_entry *o;
		size_t reserve = max_bytes / 16, used = 0, kept = 0, olen = 0;

		qsort(v, s.table.n, sizeof(*v), cmp_heavy);
		for (i = 0; i < s.table.n; i++) {
			size_t need = v[i].len + 24;

			if (used + need + reserve <= max_bytes) {
				v[kept++] = v[i];
				used += need;
				continue;
			}
			{
				const char *semi = memchr(v[i].key, ';', v[i].len);
				size_t cl = semi ? (size_t)(semi - v[i].key) : v[i].len;
				char *okey = xstrfmt("%.*s;[other]", (int)cl, v[i].key);

				table_add(&other, okey, strlen(okey), v[i].count);
				free(okey);
			}
			r->dropped++;
			r->dropped_samples += v[i].count;
		}
		o = table_entries(&other);
		for (i = 0; i < other.n; i++)
			olen += o[i].len + 24;
		if (olen > reserve) {
			/* too many comms for the reserve: one line for them all */
			for (i = 1; i < other.n; i++)
				o[0].count += o[i].count;
			o[0].key = (char *)"[other];[other]";
			o[0].len = strlen(o[0].key);
			other.n = other.n ? 1 : 0;
		}
		/* kept and other lines together, in byte order */
		v = xrealloc(v, (kept + other.n + 1) * sizeof(*v));
		memcpy(v + kept, o, other.n * sizeof(*o));
		qsort(v, kept + other.n, sizeof(*v), cmp_key);
		for (i = 0; i < kept + other.n; i++)
			emit(&out, &v[i]);
		free(o);
		table_release(&other); /* the "[other];[other]" literal was never in it */
	}
	free(v);
	table_release(&s.table);
	free(s.frames);
	buf_release(&s.key);
	r->folded = buf_detach(&out, &r->len);
	return 0;
}

void perf_fold_result_release(struct perf_fold_result *r)
{
	free(r->folded);
	memset(r, 0, sizeof(*r));
}

/* --- folded -> symbols ---------------------------------------------------- */

struct sym_count {
	long long children, self;
	long long last_line; /* the line that last counted children (recursion once) */
};

size_t perf_fold_sym_len(const char *s, size_t n)
{
	static const char *const sfx[] = { ".isra.", ".constprop.", ".part.", ".cold" };
	size_t i, cut = n;

	for (i = 0; i + 1 < n; i++) {
		size_t j;

		if (s[i] != '.')
			continue;
		for (j = 0; j < ARRAY_SIZE(sfx); j++) {
			size_t l = strlen(sfx[j]);

			if (i + l <= n && !memcmp(s + i, sfx[j], l) && i < cut)
				cut = i;
		}
	}
	return cut;
}

long long perf_fold_symbols(const char *text, size_t len, double min_pct,
			    void (*fn)(void *ctx, const char *sym, double children_pct,
				       double self_pct),
			    void *ctx)
{
	struct fold_table names = { NULL, 0, 0 };
	struct sym_count *counts = NULL;
	size_t ncounts = 0, alloc = 0, i;
	const char *p = text, *end = text + len;
	long long total = 0, line = 0;
	struct fold_entry *v;

	/* pass 1: every symbol gets an index (the table's count) */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *sp = NULL, *q, *f;
		long long cnt = 0;
		int first = 1;

		line++;
		for (q = p + n; q > p; q--)
			if (q[-1] == ' ') {
				sp = q - 1;
				break;
			}
		if (sp && sp + 1 < p + n) {
			char *e;
			char num[24];
			size_t nl2 = (size_t)(p + n - sp - 1);

			if (nl2 < sizeof(num)) {
				memcpy(num, sp + 1, nl2);
				num[nl2] = '\0';
				cnt = strtoll(num, &e, 10);
				if (*e || cnt <= 0)
					cnt = 0;
			}
		}
		if (!cnt) {
			p += n + 1;
			continue;
		}
		total += cnt;
		for (f = p; f < sp; first = 0) {
			const char *semi = memchr(f, ';', (size_t)(sp - f));
			const char *fe = semi ? semi : sp;
			size_t fl = perf_fold_sym_len(f, (size_t)(fe - f));
			int leaf = !semi;

			if (!first && fl && !(fl == 9 && !memcmp(f, "[unknown]", 9)) &&
			    !(fl == 7 && !memcmp(f, "[other]", 7))) {
				size_t before = names.n, idx;
				size_t h;

				table_add(&names, f, fl, 0);
				/* find the slot again for its index (count holds index + 1) */
				for (h = hash_bytes(f, fl) & (names.cap - 1);;
				     h = (h + 1) & (names.cap - 1))
					if (names.slot[h].len == fl &&
					    !memcmp(names.slot[h].key, f, fl))
						break;
				if (names.n != before) {
					ALLOC_GROW(counts, ncounts + 1, alloc);
					memset(&counts[ncounts], 0, sizeof(counts[0]));
					names.slot[h].count = (long long)++ncounts;
				}
				idx = (size_t)names.slot[h].count - 1;
				if (counts[idx].last_line != line) {
					counts[idx].children += cnt;
					counts[idx].last_line = line;
				}
				if (leaf)
					counts[idx].self += cnt;
			}
			f = fe + 1;
		}
		p += n + 1;
	}
	if (total > 0) {
		v = table_entries(&names);
		qsort(v, names.n, sizeof(*v), cmp_key);
		for (i = 0; i < names.n; i++) {
			const struct sym_count *c = &counts[v[i].count - 1];
			double ch = 100.0 * (double)c->children / (double)total;
			double se = 100.0 * (double)c->self / (double)total;

			if (ch >= min_pct || se >= min_pct)
				fn(ctx, v[i].key, ch, se);
		}
		free(v);
	}
	table_release(&names);
	free(counts);
	return total;
}
