/*
 * Longer than 700 lines because it is one parser of one format, perf
 * report's text, whose layouts (flat, --children, folded chains, the tree
 * form) share one entry and event state: a file per layout would publish
 * that state in a header for a single caller.
 *
 * perf-profile: `perf report --children --stdio` (with or without folded
 * call chains, `-g folded`, or perf's default graph/tree form), and plain
 * `perf report` (one Overhead column). Per event (from "# Samples: 8K of
 * event 'cpu-clock'"), values in percent, as LKP's stats/perf-profile
 * names them:
 *
 *   perf-profile.children.EVENT.SYM            Children column
 *   perf-profile.self.EVENT.SYM                Self (or Overhead) column
 *   perf-profile.calltrace.EVENT.S1.S2…S5      a call chain's first 5 frames
 *
 * EVENT is "cycles-pp" for the report's first sampling-time event (cycles,
 * cpu-cycles, cpu-clock, task-clock, any modifiers; perf's default cycles
 * when no header names one): LKP's column name whatever was sampled, as
 * the worker's profiles are named, so a report of a guest without a PMU
 * (cpu-clock) gives the robot's rows. Other events are named as LKP does,
 * ':' written '-' ("cache-misses", "mem-loads-pp").
 *
 * An address perf could not name ("[unknown]", "0x562aa7efa06a", the
 * entry "0000000000000000" and its frame "0") is never a metric name: its
 * entry gives no children or self, and a call trace's frames stop before
 * the first such frame (the callers past it are unknown); a trace whose
 * first frame is one is left out. Its graph is still read (in caller order
 * the tree of "0000000000000000" holds whole chains).
 *
 * SYM and frames have .isra.N, .constprop.N and .part.N stripped; entries
 * that become the same name are added up. As LKP, children and self below
 * 0.05% and call traces below 0.5% are left out.
 *
 * Folded chains ("P% S1;S2;…"): the key is the line's first 5 frames, the
 * value P; lines with the same key are added up (as LKP does). In callee
 * order (LKP's -g folded,…,callee) every chain starts with its entry's
 * symbol; an event with a chain that does not (caller order) gives no call
 * traces, and a note, rather than caller-first keys.
 *
 * Tree form (perf's `-g graph`, the default): the lines under an entry
 *
 *       ---S1                  the root node (no percent: the entry's own,
 *          S2                  i.e. its Children or Overhead value)
 *          |--P%--S3           a branch: a node whose frames start at S3,
 *          |          S4       P% of all samples pass through it
 *           --Q%--S5
 *
 * are read back into perf's call-chain tree by their columns (a branch's
 * "--" column orders the nesting, a frame without "--P%--" continues the
 * node above it). Keys are callee-first, as LKP's and the robot's
 * perf-profile.calltrace names. In callee order (LKP's -g …,callee: each
 * root starts with the entry's own symbol, then its callers) the frames
 * are taken as printed; a path of 5 or more frames gives key S1…S5 with
 * the percent of the node holding its 5th frame (the share of samples
 * whose chain starts with those 5 frames, as the folded lines with that
 * prefix add up to); a leaf path of fewer frames gives its frames with the
 * leaf's percent. Samples that end inside a node with children (folded
 * prints them as a line of their own) are not recovered: the tree shows
 * only cumulative percents. Within one entry equal keys are added up;
 * between entries of different symbols the larger value is kept.
 *
 * Caller order (perf's default with --children; told by an entry with a
 * root that does not start with its symbol) prints chains from the
 * outermost caller down, and an entry's callers only in part. The keys
 * then come from the trees of the entries that nothing calls (no frame of
 * any graph has them below another frame, e.g. "0" or ret_from_fork):
 * their roots hold whole chains, and every frame F there gives the key
 * "F.caller.caller…" (5 frames at most) with the percent of its node, the
 * share of samples through F under those callers: LKP's folded callee
 * line for F (the same perf.data gives the same keys as its callee tree,
 * and the same values but where perf's callee graph of an entry leaves
 * out a few of its samples: tests/unit/test_parse.c). Without --children
 * (one Overhead column) every chain ends at the entry: the key is read
 * upwards from its frame. An unresolved address is one symbol in its
 * padded and short forms (entry "0000000000000000", frame "0"; entry
 * "0x0000562aa7efa06a", frame "0x562aa7efa06a"); an unresolved entry's
 * graph tells no order (the entry "0x0000000000001185" of a self share has
 * the root "0x562aa7efa185"). A graph that the end of the file cuts short
 * (no blank line after it) gives no call traces.
 * Neither does a report sorted by symbol first (`--sort sym`, header
 * "# Children  Self  Symbol"): perf leaves the first frame out of its
 * graphs there, so their names would be wrong (folded chains keep it).
 * Value modes other than percent (`-g …,period` / `count`) are not read.
 */
#include "parse/parse_tool.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define PP_MIN_ENTRY 0.05
#define PP_MIN_TRACE 0.5
#define PP_MAX_FRAMES 5

struct pp_event {
	char *name;
	json_t *children, *self, *trace; /* name -> summed percent */
	json_t *owner;			 /* calltrace name -> symbol of the entry that gave it */
	/* caller-order trees (see the header comment) */
	int caller; /* a root of an entry did not start with its symbol */
	int children_mode;
	json_t *called;	   /* frames seen below another frame */
	json_t *roots;	   /* entry symbol -> {callee-first key -> percent} */
	json_t *ntrace;	   /* --no-children: callee-first keys at the entry's frame */
	int folded_caller; /* a folded chain did not start with its entry */
	int timer_named;   /* a sampling-time event is named cycles-pp already */
};

/* one node of a tree-form call graph being read (see the header comment) */
struct tr_node {
	size_t col;   /* column of its "--" (or "---" for the root) */
	size_t start; /* index in the path of its first frame */
	double pct;
	int leaf; /* no child seen (yet) */
};

/* the call graph under one entry */
struct tr_graph {
	int active;    /* an entry's graph lines may follow */
	int sym_first; /* sorted by symbol first: perf left out root frames */
	int sym_noted;
	char *sym; /* the entry's symbol (stripped), owner of its traces */
	double entry_pct;
	struct tr_node *st; /* the nodes of the current path, root first */
	size_t depth, alloc;
	char *path[PP_MAX_FRAMES]; /* the first frames of the current path */
	size_t npath;		   /* frames of the current path (may exceed 5) */
	json_t *traces;		   /* this entry's calltrace name -> summed percent */
	char **full;		   /* every frame of the current path, root first */
	size_t nfull, afull;
	int root_pending; /* the next frame is a root's first */
	int root_is_sym;  /* the current root starts with the entry's symbol */
	json_t *ckeys;	  /* callee-first keys of this entry's roots that start with it */
	json_t *nkeys;	  /* callee-first keys at frames that are the entry's symbol */
	struct pp_event *ev;
};

/* strips .isra.N / .constprop.N / .part.N in place */
static void strip_suffixes(char *s)
{
	static const char *const sfx[] = { ".isra.", ".constprop.", ".part." };

	for (size_t k = 0; k < ARRAY_SIZE(sfx); k++) {
		char *p = s;

		while ((p = strstr(p, sfx[k]))) {
			char *q = p + strlen(sfx[k]);

			if (!isdigit((unsigned char)*q)) {
				p++;
				continue;
			}
			while (isdigit((unsigned char)*q))
				q++;
			memmove(p, q, strlen(q) + 1);
		}
	}
}

/*
 * An address perf could not name: "[unknown]", "0x…" (a user ip, in an
 * entry zero-padded to 16 digits), and the 16-digit "0000000000000000"
 * entry whose frames print as "0". Never a metric name (see the header).
 */
static int unresolved(const char *s)
{
	size_t n = 0;
	int zeros = 1, hex = s[0] == '0' && s[1] == 'x';

	if (!strcmp(s, "[unknown]"))
		return 1;
	if (hex)
		s += 2;
	else if (!isxdigit((unsigned char)s[0]))
		return 0;
	for (; s[n]; n++) {
		if (!isxdigit((unsigned char)s[n]))
			return 0;
		zeros &= s[n] == '0';
	}
	/* a name of hex letters ("add", "face") is a name: only perf's own
	 * forms (after "0x", 16 digits, or all zeros) are addresses */
	return n && (hex || n == 16 || zeros);
}

/* perf prints an unresolved address zero-padded in an entry
 * ("0000000000000000", "0x0000562aa7efa06a") and short in a frame ("0",
 * "0x562aa7efa06a"): the same symbol. New, caller frees. */
static char *sym_norm(const char *s)
{
	const char *p;

	if (!unresolved(s) || !strcmp(s, "[unknown]"))
		return xstrdup(s);
	if (s[0] == '0' && s[1] == 'x')
		s += 2;
	p = s;
	while (p[0] == '0' && p[1])
		p++;
	return xstrdup(p);
}

static void sum_into(json_t *map, const char *key, double v)
{
	json_t *old = json_object_get(map, key);

	json_object_set_new(map, key, json_real(v + (old ? json_real_value(old) : 0)));
}

static void event_flush(struct parse_ctx *c, struct pp_event *ev)
{
	static const struct {
		const char *kind;
		double min;
	} kinds[] = { { "children", PP_MIN_ENTRY },
		      { "self", PP_MIN_ENTRY },
		      { "calltrace", PP_MIN_TRACE } };
	json_t *maps[3] = { ev->children, ev->self, ev->trace };
	const char *k, *sym;
	json_t *v, *keys;

	if (ev->folded_caller) {
		/* -g folded,caller: chains from the outermost caller, whose
		 * first 5 frames are no LKP key; better none than wrong ones */
		json_object_clear(ev->trace);
		parse_ctx_note(c,
			       "event '%s': folded chains in caller order (a chain does not "
			       "start with its entry), call traces left out (use -g "
			       "folded,0.5,callee as LKP)",
			       ev->name);
	} else if (ev->caller) {
		/* caller order: the callee-first keys, from the trees of the
		 * entries nothing calls (their roots hold whole chains), or at
		 * the entry's own frame without --children */
		json_object_clear(ev->trace);
		if (ev->children_mode) {
			json_object_foreach (ev->roots, sym, keys) {
				char *n = sym_norm(sym);
				int called = json_object_get(ev->called, n) != NULL;

				free(n);
				if (called)
					continue;
				json_object_foreach (keys, k, v)
					sum_into(ev->trace, k, json_real_value(v));
			}
		} else {
			json_object_update(ev->trace, ev->ntrace);
		}
	}
	for (size_t i = 0; i < 3; i++) {
		json_object_foreach (maps[i], k, v)
			if (json_real_value(v) >= kinds[i].min)
				parse_ctx_addf(c, json_real_value(v), "%s.%s.%s", kinds[i].kind,
					       ev->name, k);
		json_object_clear(maps[i]);
	}
	json_object_clear(ev->owner);
	json_object_clear(ev->called);
	json_object_clear(ev->roots);
	json_object_clear(ev->ntrace);
	ev->caller = 0;
	ev->folded_caller = 0;
}

/*
 * "S1.S2…" of the first n frames of the path (new), callee first: it stops
 * before the first unresolved frame (the callers past an address perf could
 * not name are unknown), NULL when S1 itself is one.
 */
static char *tr_key(char *const *path, size_t n)
{
	char *key;

	if (!n || unresolved(path[0]))
		return NULL;
	key = xstrdup(path[0]);
	for (size_t k = 1; k < n && !unresolved(path[k]); k++) {
		char *next = xstrfmt("%s.%s", key, path[k]);

		free(key);
		key = next;
	}
	return key;
}

static void tr_emit(struct tr_graph *g, size_t n, double pct)
{
	char *key = tr_key(g->path, n);

	if (key)
		sum_into(g->traces, key, pct);
	free(key);
}

/* drops the top node, its frames and (a leaf shorter than 5 frames) gives
 * its trace; a longer path gave its trace at its 5th frame */
static void tr_pop(struct tr_graph *g)
{
	struct tr_node *n = &g->st[--g->depth];

	if (n->leaf && g->npath > 0 && g->npath < PP_MAX_FRAMES)
		tr_emit(g, g->npath, n->pct);
	for (size_t k = n->start; k < g->npath && k < PP_MAX_FRAMES; k++) {
		free(g->path[k]);
		g->path[k] = NULL;
	}
	g->npath = n->start;
	while (g->nfull > n->start)
		free(g->full[--g->nfull]);
}

static void tr_push(struct tr_graph *g, size_t col, double pct)
{
	struct tr_node *n;

	if (g->depth)
		g->st[g->depth - 1].leaf = 0;
	else
		g->root_pending = 1;
	ALLOC_GROW(g->st, g->depth + 1, g->alloc);
	n = &g->st[g->depth++];
	n->col = col;
	n->start = g->npath;
	n->pct = pct;
	n->leaf = 1;
}

/*
 * For caller-order trees: the frame f (a copy kept in g->full) at depth d
 * of the path gives the callee-first key "f.parent.grandparent…" (5 frames
 * at most) with the percent of the node holding it: the share of samples
 * whose chain passes through f under those callers, what LKP's folded
 * callee lines give for the entry f.
 */
static void tr_caller_frame(struct tr_graph *g, const char *f)
{
	size_t d = g->nfull, n = 0;
	char *up[PP_MAX_FRAMES], *key;

	ALLOC_GROW(g->full, g->nfull + 1, g->afull);
	g->full[g->nfull++] = xstrdup(f);
	char *nf = sym_norm(f), *ns = sym_norm(g->sym);
	int is_sym = !strcmp(nf, ns);

	if (g->root_pending) {
		g->root_pending = 0;
		g->root_is_sym = is_sym;
		/* an unresolved entry's graph may start at another form of
		 * its address (the entry "0x…1185", its root "0x5620…185"):
		 * it tells no order */
		if (!g->root_is_sym && !unresolved(g->sym))
			g->ev->caller = 1;
	}
	if (d)
		json_object_set_new(g->ev->called, nf, json_true());
	free(nf);
	free(ns);
	for (; n < PP_MAX_FRAMES && n <= d; n++)
		up[n] = g->full[d - n];
	key = tr_key(up, n);
	if (key && g->root_is_sym)
		sum_into(g->ckeys, key, g->st[g->depth - 1].pct);
	if (key && is_sym)
		sum_into(g->nkeys, key, g->st[g->depth - 1].pct);
	free(key);
}

/* appends a frame (text up to the end of the line) to the top node */
static void tr_frame(struct tr_graph *g, const char *text)
{
	char *f = xstrdup(parse_skip_blank(text)), *inl;

	parse_rtrim(f);
	if ((inl = strstr(f, " (inlined)")))
		*inl = '\0';
	strip_suffixes(f);
	if (!*f) {
		free(f);
		return;
	}
	tr_caller_frame(g, f);
	if (g->npath < PP_MAX_FRAMES) {
		g->path[g->npath++] = f;
		if (g->npath == PP_MAX_FRAMES)
			tr_emit(g, PP_MAX_FRAMES, g->st[g->depth - 1].pct);
	} else {
		g->npath++;
		free(f);
	}
}

/*
 * Ends the current entry's graph. complete: it ended with a blank line or
 * the next entry (its traces go into ev->trace); else the end of the file
 * may have cut it short (its traces are dropped).
 */
static void tr_end(struct parse_ctx *c, struct tr_graph *g, struct pp_event *ev, int complete)
{
	const char *k;
	json_t *v;

	if (!g->active)
		return;
	while (g->depth)
		tr_pop(g);
	if (!complete && json_object_size(g->traces))
		parse_ctx_note(c,
			       "call graph of '%s' cut short by the end of the file, "
			       "its call traces left out",
			       g->sym);
	if (complete && g->sym_first && json_object_size(g->traces)) {
		if (!g->sym_noted)
			parse_ctx_note(c, "call graphs of a report sorted by symbol first lack "
					  "their first frame (perf leaves it out): no call traces "
					  "from them (use --sort dso,sym or -g folded)");
		g->sym_noted = 1;
		complete = 0;
	}
	json_object_foreach (g->traces, k, v) {
		json_t *old = json_object_get(ev->trace, k);
		const char *who = json_string_value(json_object_get(ev->owner, k));
		double x = json_real_value(v);

		if (!complete)
			break;
		if (old && who && strcmp(who, g->sym)) {
			/* the same chain seen from another entry: not more samples */
			if (x > json_real_value(old))
				json_object_set_new(ev->trace, k, json_real(x));
			continue;
		}
		sum_into(ev->trace, k, x);
		json_object_set_new(ev->owner, k, json_string(g->sym));
	}
	if (complete) {
		json_t *mine = json_object_get(ev->roots, g->sym);

		if (!mine) {
			mine = json_object();
			json_object_set_new(ev->roots, g->sym, mine);
		}
		json_object_foreach (g->ckeys, k, v)
			sum_into(mine, k, json_real_value(v));
		json_object_foreach (g->nkeys, k, v)
			sum_into(ev->ntrace, k, json_real_value(v));
	}
	json_object_clear(g->ckeys);
	json_object_clear(g->nkeys);
	json_object_clear(g->traces);
	free(g->sym);
	g->sym = NULL;
	g->active = 0;
}

/*
 * The column header "# Children      Self  Symbol …" or "# Overhead  Symbol":
 * 1 when Symbol is the first sort key. perf then leaves out the first
 * frame of a graph's single root ("it is the same as the symbol"), also
 * where it is not, and a root of one frame entirely (perf's
 * callchain__fprintf_graph), which the columns cannot tell apart from
 * several roots.
 */
static int sort_by_sym(const char *s)
{
	const char *p = s + 1;

	for (;;) {
		p = parse_skip_blank(p);
		if (!strncmp(p, "Children", 8) || !strncmp(p, "Overhead", 8))
			p += 8;
		else if (!strncmp(p, "Self", 4))
			p += 4;
		else if (!strncmp(p, "Samples", 7))
			p += 7; /* -n */
		else
			return !strncmp(p, "Symbol", 6);
	}
}

static void tr_begin(struct tr_graph *g, const char *sym, double entry_pct)
{
	g->active = 1;
	g->sym = xstrdup(sym);
	g->entry_pct = entry_pct;
	g->depth = 0;
	g->npath = 0;
}

/*
 * One line of a tree-form graph (s starts with a blank). Returns 0 when it
 * was one (a frame, a branch, the root, or a "|" separator), -1 when not.
 */
static int tr_line(struct tr_graph *g, const char *s)
{
	const char *p = s, *q;
	size_t col;
	double v;

	while (*p == ' ' || *p == '|')
		p++;
	if (!*p)
		return 0; /* "            |          " */
	if (p == s)
		return -1;
	col = (size_t)(p - s);
	if (!strncmp(p, "---", 3) && p[3] != '-') {
		/* the root node: no percent, the entry's own */
		while (g->depth)
			tr_pop(g);
		tr_push(g, col, g->entry_pct);
		tr_frame(g, p + 3);
		return 0;
	}
	if (p[0] == '-') {
		if (p[1] != '-' || parse_num(p + 2, &q, &v) || strncmp(q, "%--", 3))
			return -1;
		/* "|--81.41%--start_secondary": a sibling or a child */
		while (g->depth && g->st[g->depth - 1].col >= col)
			tr_pop(g);
		q = parse_skip_blank(q + 3);
		if (!strncmp(q, "[...]", 5))
			return 0; /* fractal mode's remainder: no frame */
		tr_push(g, col, v);
		tr_frame(g, q);
		return 0;
	}
	if (!g->depth)
		return -1;
	tr_frame(g, p);
	return 0;
}

/*
 * The event's part of the metric names. The report's first sampling-time
 * event (cycles, cpu-cycles, cpu-clock, task-clock, any modifiers) is
 * "cycles-pp", LKP's column whatever its event, as the worker names its
 * profiles (worker/monitors.h): the robot's rows and ours line up. Any
 * other event is named as LKP's parser does, ':' '-' and '/' '.'.
 */
static void event_set(struct pp_event *ev, const char *perf_name)
{
	static const char *const timers[] = { "cycles", "cpu-cycles", "cpu-clock", "task-clock" };
	size_t base = strcspn(perf_name, ":/");
	char *n = xstrdup(perf_name);
	size_t len = strlen(n);

	for (size_t k = 0; k < ARRAY_SIZE(timers) && !ev->timer_named; k++)
		if (strlen(timers[k]) == base && !strncmp(perf_name, timers[k], base)) {
			ev->timer_named = 1;
			free(ev->name);
			ev->name = xstrdup("cycles-pp");
			free(n);
			return;
		}

	if (len && n[len - 1] == '/')
		n[--len] = '\0';
	for (char *p = n; *p; p++)
		if (*p == ':')
			*p = '-';
		else if (*p == '/')
			*p = '.';
	free(ev->name);
	ev->name = n;
}

/* "    82.61%     0.42%  [kernel.kallsyms]    [k] cpu_startup_entry" */
static int entry_line(const char *s, double *pct, size_t *npct, const char **sym)
{
	const char *p = s, *q;

	*npct = 0;
	while (*npct < 2) {
		double v;

		p = parse_skip_blank(p);
		if (parse_num(p, &q, &v) || *q != '%')
			break;
		pct[(*npct)++] = v;
		p = q + 1;
	}
	if (!*npct || p == s || *s != ' ')
		return -1;
	/* the symbol follows the last " [x] " marker */
	q = NULL;
	for (const char *m = p; (m = strstr(m, " [")); m++)
		if (m[2] && m[3] == ']' && m[4] == ' ')
			q = m + 5;
	if (!q)
		return -1;
	*sym = parse_skip_blank(q);
	return **sym ? 0 : -1;
}

void parse_perf_profile(struct parse_ctx *c, struct parse_lines *l)
{
	struct pp_event ev = { NULL,
			       json_object(),
			       json_object(),
			       json_object(),
			       json_object(),
			       0,
			       0,
			       json_object(),
			       json_object(),
			       json_object(),
			       0,
			       0 };
	struct tr_graph g;
	int children_mode = 0;
	size_t entries = 0;

	memset(&g, 0, sizeof(g));
	g.traces = json_object();
	g.ckeys = json_object();
	g.nkeys = json_object();
	g.ev = &ev;
	ev.name = xstrdup("cycles-pp"); /* perf's default (cycles) when no header says */
	for (size_t i = 0; i < l->n; i++) {
		char *s = l->v[i];
		const char *sym, *q;
		double pct[2], v;
		size_t npct;

		if (s[0] == '#') {
			const char *e = strstr(s, " of event '");

			tr_end(c, &g, &ev, 1);
			if (!strncmp(s, "# Samples:", 10) && e) {
				char *name = xstrdup(e + 11), *end = strchr(name, '\'');

				if (end) {
					*end = '\0';
					event_flush(c, &ev);
					event_set(&ev, name);
				}
				free(name);
			} else if (!strncmp(s, "# Children", 10)) {
				children_mode = 1;
				ev.children_mode = 1;
				g.sym_first = sort_by_sym(s);
			} else if (!strncmp(s, "# Overhead", 10)) {
				children_mode = 0;
				ev.children_mode = 0;
				g.sym_first = sort_by_sym(s);
			}
			continue;
		}
		if (!*parse_skip_blank(s)) {
			tr_end(c, &g, &ev, 1); /* the blank line after a graph */
			continue;
		}
		if (isdigit((unsigned char)s[0]) && !parse_num(s, &q, &v) && q[0] == '%' &&
		    q[1] == ' ') {
			/* folded chain: "81.41% a;b;c" */
			char *chain = xstrdup(parse_skip_blank(q + 2));
			char *fr[PP_MAX_FRAMES + 1], *key;
			size_t n;

			parse_rtrim(chain);
			strip_suffixes(chain);
			n = parse_split_char(chain, ';', fr, PP_MAX_FRAMES + 1);
			if (n > PP_MAX_FRAMES)
				n = PP_MAX_FRAMES;
			key = n ? tr_key(fr, n) : NULL;
			if (g.active && g.sym && !unresolved(g.sym)) {
				char *a = sym_norm(fr[0]), *b = sym_norm(g.sym);

				if (strcmp(a, b))
					ev.folded_caller = 1;
				free(a);
				free(b);
			}
			if (key && *fr[0])
				sum_into(ev.trace, key, v);
			free(key);
			free(chain);
			continue;
		}
		if (entry_line(s, pct, &npct, &sym)) {
			if (g.active)
				tr_line(&g, s);
			continue;
		}
		tr_end(c, &g, &ev, 1);
		{
			char *name = xstrdup(sym);

			parse_rtrim(name);
			strip_suffixes(name);
			if (unresolved(name)) {
				/* no metric; its graph is still read (the caller
				 * tree of "0000000000000000" holds whole chains) */
			} else if (children_mode && npct == 2) {
				sum_into(ev.children, name, pct[0]);
				sum_into(ev.self, name, pct[1]);
			} else {
				sum_into(ev.self, name, pct[0]);
			}
			tr_begin(&g, name, pct[0]);
			entries++;
			free(name);
		}
	}
	tr_end(c, &g, &ev, 0);
	event_flush(c, &ev);
	free(ev.name);
	json_decref(ev.children);
	json_decref(ev.self);
	json_decref(ev.trace);
	json_decref(ev.owner);
	json_decref(ev.called);
	json_decref(ev.roots);
	json_decref(ev.ntrace);
	json_decref(g.traces);
	json_decref(g.ckeys);
	json_decref(g.nkeys);
	free(g.full);
	free(g.st);
	if (!entries)
		parse_ctx_fail(c, "no perf report entries");
}
