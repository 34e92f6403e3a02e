#include "profile.h"
#include "parse/perf_fold.h"
#include "arena.h"
#include "buf.h"
#include "stats/ranktest.h"
#include "xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The profile diff of lib/profile.h (struct profdiff). */

/* --- the diff's tables ------------------------------------------------------ */

/* a string -> index table (open addressing, FNV-1a, at most half full) */
struct strtab {
	uint32_t *slots; /* index + 1; 0 = empty */
	size_t cap;
	const char **keys; /* by index, NUL-terminated, in the arena */
	size_t *lens;
	size_t nr, alloc;
};

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static void strtab_grow(struct strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	uint32_t *s = xcalloc(cap, sizeof(*s));

	for (size_t i = 0; i < t->nr; i++) {
		size_t at = fnv1a(t->keys[i], t->lens[i]) & (cap - 1);

		while (s[at])
			at = (at + 1) & (cap - 1);
		s[at] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = s;
	t->cap = cap;
}

/* the index of key[0..n), added (copied into a) when new; *added = 1 then */
static size_t strtab_intern(struct strtab *t, struct arena *a, const char *key, size_t n,
			    int *added)
{
	size_t at;

	if ((t->nr + 1) * 2 > t->cap)
		strtab_grow(t);
	at = fnv1a(key, n) & (t->cap - 1);
	while (t->slots[at]) {
		size_t i = t->slots[at] - 1;

		if (t->lens[i] == n && !memcmp(t->keys[i], key, n)) {
			*added = 0;
			return i;
		}
		at = (at + 1) & (t->cap - 1);
	}
	if (t->nr >= UINT32_MAX - 1)
		abort(); /* bounded far below by the profiles' sizes */
	if (t->nr == t->alloc) {
		t->alloc = t->alloc ? t->alloc * 2 : 1024;
		t->keys = xrealloc(t->keys, t->alloc * sizeof(*t->keys));
		t->lens = xrealloc(t->lens, t->alloc * sizeof(*t->lens));
	}
	t->keys[t->nr] = arena_strndup(a, key, n);
	t->lens[t->nr] = n;
	t->slots[at] = (uint32_t)(t->nr + 1);
	*added = 1;
	return t->nr++;
}

static void strtab_release(struct strtab *t)
{
	free(t->slots);
	free(t->keys);
	free(t->lens);
	memset(t, 0, sizeof(*t));
}

/* one run: its samples per symbol (dense, by symbol index; past cap = 0) */
struct prun {
	int head;
	double total;
	double work; /* > 0, or NAN */
	double *child, *self;
	size_t cap;
};

struct profdiff_state {
	struct arena *a;
	struct strtab syms;
	size_t *seen; /* by symbol: the stack (line) that last counted it */
	size_t seen_cap, stamp;
	struct prun *runs;
	size_t nr_runs, runs_alloc;
	int want_folded;
	size_t top_stacks, top_bytes; /* profdiff_set_top()'s; SIZE_MAX: all */
	struct strtab stacks[2];      /* merged folded: stack -> index */
	double *stack_count[2];
	size_t stack_alloc[2];
	/* the run being added */
	struct prun *cur;
	struct err *e;
};

void profdiff_init(struct profdiff *d, int want_folded)
{
	memset(d, 0, sizeof(*d));
	d->st_ = xcalloc(1, sizeof(*d->st_));
	d->st_->a = arena_new();
	d->st_->want_folded = want_folded;
	d->st_->top_stacks = SIZE_MAX;
	d->st_->top_bytes = SIZE_MAX;
	d->status = "ok";
	d->alpha = NAN;
	d->min_p = NAN;
	d->per_work = 1;
}

void profdiff_set_top(struct profdiff *d, size_t max_stacks, size_t max_bytes)
{
	d->st_->top_stacks = max_stacks;
	d->st_->top_bytes = max_bytes;
}

static void run_fit(struct prun *r, size_t n)
{
	size_t cap;

	if (n <= r->cap)
		return;
	cap = r->cap ? r->cap : 256;
	while (cap < n)
		cap *= 2;
	r->child = xrealloc(r->child, cap * sizeof(double));
	r->self = xrealloc(r->self, cap * sizeof(double));
	memset(r->child + r->cap, 0, (cap - r->cap) * sizeof(double));
	memset(r->self + r->cap, 0, (cap - r->cap) * sizeof(double));
	r->cap = cap;
}

static int add_line(void *ctx, const char *frames, size_t n, long long count)
{
	struct profdiff_state *s = ctx;
	struct prun *r = s->cur;
	size_t at = 0, sym = 0;

	s->stamp++;
	while (at < n) {
		const char *semi = memchr(frames + at, ';', n - at);
		size_t fl = semi ? (size_t)(semi - (frames + at)) : n - at;
		int added;

		/* one symbol per function, however GCC cloned it (as the perf-profile.* metrics) */
		sym = strtab_intern(&s->syms, s->a, frames + at, perf_fold_sym_len(frames + at, fl),
				    &added);
		if (sym >= s->seen_cap) {
			size_t cap = s->seen_cap ? s->seen_cap * 2 : 1024;

			while (cap <= sym)
				cap *= 2;
			s->seen = xrealloc(s->seen, cap * sizeof(*s->seen));
			memset(s->seen + s->seen_cap, 0, (cap - s->seen_cap) * sizeof(*s->seen));
			s->seen_cap = cap;
		}
		run_fit(r, sym + 1);
		/* a recursive stack holds a symbol more than once: its samples count once */
		if (s->seen[sym] != s->stamp) {
			s->seen[sym] = s->stamp;
			r->child[sym] += (double)count;
		}
		at += fl + 1;
	}
	r->self[sym] += (double)count;
	r->total += (double)count;
	if (s->want_folded) {
		int h = r->head, added;
		size_t i = strtab_intern(&s->stacks[h], s->a, frames, n, &added);

		if (added) {
			ALLOC_GROW(s->stack_count[h], i + 1, s->stack_alloc[h]);
			s->stack_count[h][i] = 0;
		}
		s->stack_count[h][i] += (double)count;
	}
	return 0;
}

int profdiff_add_run(struct profdiff *d, int head, const char *text, size_t len, double work,
		     struct err *e)
{
	struct profdiff_state *s = d->st_;
	struct profdiff_side *side;
	long long samples;

	/* checked first, so a bad text leaves the tables as they were */
	if (folded_check(text, len, "folded", &samples, e))
		return -1;
	if (!samples)
		return 0;
	ALLOC_GROW(s->runs, s->nr_runs + 1, s->runs_alloc);
	s->cur = &s->runs[s->nr_runs++];
	memset(s->cur, 0, sizeof(*s->cur));
	s->cur->head = head != 0;
	s->cur->work = work > 0 && isfinite(work) ? work : NAN;
	if (folded_each_line(text, len, "folded", add_line, s, NULL, e))
		abort(); /* checked above */
	side = head ? &d->head : &d->base;
	side->runs++;
	side->samples += samples;
	side->work = side->runs == 1 ? s->cur->work : side->work + s->cur->work;
	if (isnan(s->cur->work))
		d->per_work = 0;
	return 0;
}

/*
 * Sizes compared at 10^-9 percentage points: two changes that are equal
 * in exact arithmetic (100 * 410/510 - 100 * 310/510 and 100 * 150/510 -
 * 100 * 50/510) differ in their last bits as doubles, and the order of
 * equal sizes is the next key's, not rounding's.
 */
static double size_key(double change)
{
	return round(fabs(change) * 1e9);
}

static int cmp_change(const void *pa, const void *pb)
{
	const struct profdiff_symbol *a = pa, *b = pb;
	double x = size_key(a->children_change), y = size_key(b->children_change);

	if (x != y)
		return x > y ? -1 : 1;
	x = size_key(a->self_change);
	y = size_key(b->self_change);
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->symbol, b->symbol);
}

struct stack_ref {
	const char *s;
	double count;
};

static int cmp_stack(const void *pa, const void *pb)
{
	return strcmp(((const struct stack_ref *)pa)->s, ((const struct stack_ref *)pb)->s);
}

/* the larger count first, ties by text: which stacks a trimmed text keeps */
static int cmp_stack_count(const void *pa, const void *pb)
{
	const struct stack_ref *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->s, b->s);
}

/* side h's merged text: its largest stacks as profdiff_set_top() says, in text order */
static char *merged_text(struct profdiff_state *s, int h)
{
	struct strtab *t = &s->stacks[h];
	struct stack_ref *v = xcalloc(t->nr + 1, sizeof(*v));
	struct buf b = BUF_INIT(0);
	int bad = buf_addstr(&b, "");
	size_t n = t->nr, bytes = 0;
	double other = 0;

	for (size_t i = 0; i < t->nr; i++) {
		v[i].s = t->keys[i];
		v[i].count = s->stack_count[h][i];
	}
	if (n > s->top_stacks || s->top_bytes != SIZE_MAX) {
		qsort(v, t->nr, sizeof(*v), cmp_stack_count);
		for (n = 0; n < t->nr && n < s->top_stacks; n++) {
			/* the line: the stack, ' ', at most 20 digits, '\n' */
			size_t line = strlen(v[n].s) + 22;

			if (n && bytes + line > s->top_bytes)
				break;
			bytes += line;
		}
		for (size_t i = n; i < t->nr; i++)
			other += v[i].count;
		if (n < t->nr)
			v[n++] = (struct stack_ref){ PROFDIFF_OTHER_STACKS, other };
	}
	qsort(v, n, sizeof(*v), cmp_stack);
	for (size_t i = 0; i < n; i++)
		bad |= buf_addf(&b, "%s %.0f\n", v[i].s, v[i].count);
	free(v);
	if (bad)
		abort(); /* uncapped */
	return buf_detach(&b, NULL);
}

/* 100 * x / total, 0 for an empty side */
static double pct(double x, double total)
{
	return total > 0 ? 100.0 * x / total : 0.0;
}

/* samples / work, NAN without per-work figures (or no run: work 0) */
static double per_work(double samples, double work, int have)
{
	return have && work > 0 ? samples / work : NAN;
}

/* 100 * (head / base - 1); NAN when base is 0 or NAN */
static double change_pct(double base, double head)
{
	return base > 0 ? 100.0 * (head / base - 1) : NAN;
}

void profdiff_finish(struct profdiff *d, double alpha, size_t limit)
{
	struct profdiff_state *s = d->st_;
	size_t n = s->syms.nr, nb = d->base.runs, nh = d->head.runs;
	double tot[2] = { (double)d->base.samples, (double)d->head.samples };
	double *child[2], *self[2], *va, *vb;
	struct profdiff_symbol *all;

	/* no run on a side: nothing to compare per work */
	if (!nb || !nh)
		d->per_work = 0;

	child[0] = xcalloc(n ? n : 1, sizeof(double));
	child[1] = xcalloc(n ? n : 1, sizeof(double));
	self[0] = xcalloc(n ? n : 1, sizeof(double));
	self[1] = xcalloc(n ? n : 1, sizeof(double));
	for (size_t r = 0; r < s->nr_runs; r++) {
		const struct prun *run = &s->runs[r];

		for (size_t i = 0; i < run->cap && i < n; i++) {
			child[run->head][i] += run->child[i];
			self[run->head][i] += run->self[i];
		}
	}
	all = xcalloc(n ? n : 1, sizeof(*all));
	for (size_t i = 0; i < n; i++) {
		struct profdiff_symbol *y = &all[i];

		y->symbol = s->syms.keys[i];
		y->base_children_pct = pct(child[0][i], tot[0]);
		y->head_children_pct = pct(child[1][i], tot[1]);
		y->children_change = y->head_children_pct - y->base_children_pct;
		y->base_self_pct = pct(self[0][i], tot[0]);
		y->head_self_pct = pct(self[1][i], tot[1]);
		y->self_change = y->head_self_pct - y->base_self_pct;
		y->base_children_per_work = per_work(child[0][i], d->base.work, d->per_work);
		y->head_children_per_work = per_work(child[1][i], d->head.work, d->per_work);
		y->per_work_change_pct = change_pct(y->base_children_per_work,
						    y->head_children_per_work);
		y->p = y->p_share = y->p_per_work = NAN;
	}
	free(child[0]);
	free(child[1]);
	free(self[0]);
	free(self[1]);
	qsort(all, n, sizeof(*all), cmp_change);
	d->nr_all = n;
	d->nr_symbols = n < limit ? n : limit;
	d->symbols = all;
	d->alpha = alpha;
	d->min_p = ranktest_min_p(nb, nh);
	d->status = d->min_p > alpha ? "need-more-runs" : "ok";
	va = xcalloc(nb ? nb : 1, sizeof(double));
	vb = xcalloc(nh ? nh : 1, sizeof(double));
	for (size_t k = 0; k < d->nr_symbols; k++) {
		struct profdiff_symbol *y = &all[k];
		int added;
		/* the symbol's index: interned already, so this only looks it up */
		size_t sym = strtab_intern(&s->syms, s->a, y->symbol, strlen(y->symbol), &added);

		y->verdict = "need-more-runs";
		if (d->min_p > alpha)
			continue;
		for (int w = 0; w < 1 + d->per_work; w++) {
			size_t ia = 0, ib = 0;

			for (size_t r = 0; r < s->nr_runs; r++) {
				const struct prun *run = &s->runs[r];
				double c = sym < run->cap ? run->child[sym] : 0;
				double v = w ? c / run->work : pct(c, run->total);

				if (run->head)
					vb[ib++] = v;
				else
					va[ia++] = v;
			}
			*(w ? &y->p_per_work : &y->p_share) = ranktest_mann_whitney(va, ia, vb, ib,
										    NULL);
		}
		y->p = d->per_work ? y->p_per_work : y->p_share;
		y->significant = y->p <= alpha;
		y->verdict = y->significant ? "different" : "same";
	}
	free(va);
	free(vb);
	if (s->want_folded) {
		d->base.folded = merged_text(s, 0);
		d->head.folded = merged_text(s, 1);
		d->base.stacks = s->stacks[0].nr;
		d->head.stacks = s->stacks[1].nr;
	}
}

void profdiff_release(struct profdiff *d)
{
	struct profdiff_state *s = d->st_;

	if (s) {
		for (size_t r = 0; r < s->nr_runs; r++) {
			free(s->runs[r].child);
			free(s->runs[r].self);
		}
		free(s->runs);
		free(s->seen);
		strtab_release(&s->syms);
		for (int h = 0; h < 2; h++) {
			strtab_release(&s->stacks[h]);
			free(s->stack_count[h]);
		}
		arena_free(s->a);
		free(s);
	}
	free(d->symbols);
	free(d->base.folded);
	free(d->head.folded);
	memset(d, 0, sizeof(*d));
}
