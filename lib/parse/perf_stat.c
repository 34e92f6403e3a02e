/*
 * perf-stat: `perf stat -x,` CSV (interval or not) and the default text
 * output of old and new perf (interval or not), also per CPU (`-A`,
 * "CPU0  1,234  cycles") and per socket, die, core or NUMA node
 * (`--per-socket` "S0  2  1,234 cycles", `--per-die` "S0-D0",
 * `--per-core` "S0-D0-C0", `--per-node` "N0"; the number after the id is
 * how many CPUs it counts).
 *
 *   whole run:  perf-stat.total.EVENT   the count (one value per run)
 *   -I interval: perf-stat.ps.EVENT     count / interval length in seconds,
 *                one value per interval (as LKP's stats/perf-stat)
 *
 * Per-CPU and per-socket (die, core, node) counts are added up into those
 * same names, as LKP sums per-CPU counts: a system-wide `perf stat -a -A`
 * gives the same perf-stat.total.EVENT as `perf stat -a`, so series stay
 * comparable whichever layout a job asked for. Per socket, also
 *   perf-stat.SN.total.EVENT / perf-stat.SN.ps.EVENT   (socket N alone)
 * (a few names per event: sockets are few, and a change on one socket of
 * a NUMA machine is worth seeing). Per CPU, die, core and node counts are
 * not kept one by one (hundreds of names on a large machine).
 *
 * EVENT is perf's name with ':' written '-' ("instructions:u" ->
 * "instructions-u") and a PMU's "pmu/event/" written "pmu.event" (hybrid
 * CPUs: "cpu_atom/cpu-cycles/" -> "cpu_atom.cpu-cycles"). task-clock and
 * cpu-clock are in msec whether perf printed "msec", "task-clock (msec)",
 * or (perf 6, -x, without a unit) nanoseconds. `<not supported>` and
 * `<not counted>` events are left out and named in errors. An interval
 * with fewer counts than the others (the last one, cut short when perf was
 * stopped) is left out. Whole-run counts of several runs in one file are
 * told apart by a count (of the same event and CPU/socket) that repeats.
 *
 * Only a perf stat counter block is read, so a mail or a report that
 * happens to have "number  word" lines is not taken for counts: text
 * lines after perf's " Performance counter stats for ..." header up to its
 * "seconds time elapsed" (and user/sys) lines, or, with
 * -I, timestamped lines after its "#  time ... counts" header; -x CSV
 * lines with perf's full layout (value, unit, event, running time,
 * percent enabled: the last two numbers). An event name must look like
 * one: ASCII, starting with a letter or '_', then letters, digits and
 * "_-.:/=,@". A file without such a block is failed, "no perf stat
 * counts".
 *
 * Also, per whole run of the text output (in seconds):
 *   perf-stat.elapsed_time, perf-stat.user_time, perf-stat.system_time
 * from "S seconds time elapsed" / "S seconds user" / "S seconds sys", and
 * as LKP's stats/perf-stat derives them from the counts of a run (its
 * whole-run counts, or the sum of the intervals kept):
 *   perf-stat.overall.STEM-miss-rate%   100 * STEM-misses / total, total
 *       the first non-zero of STEMs + STEM-misses, STEM-references,
 *       STEM-instructions (cache-, branch-, dTLB-load-, node-load- …)
 *   perf-stat.overall.ipc, .cpi         instructions / cpu-cycles (or
 *                                       cycles) and its inverse
 *   perf-stat.overall.instructions-per-iTLB-miss
 * Per-interval memory is a summary per interval (its sums), not a record
 * per line.
 */
#include "parse/parse_tool.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct ps_rec {
	double t;	  /* interval end, s; < 0 for a whole-run count */
	const char *agg;  /* interned: "CPU3", "S0", "S0-D0-C1", "N0" or NULL */
	const char *name; /* interned, our event name */
	double v;
	int valid;
};

/* one interval, summed: sums[first .. first + n) */
struct ps_interval {
	double t;
	size_t nrec;
	size_t first, n;
};

struct ps_sum {
	const char *key; /* interned "ps.NAME" / "S0.ps.NAME" */
	double v;
};

struct ps_state {
	json_t *names;	    /* interned strings (the keys) */
	struct ps_rec *cur; /* the group being read (one interval or run) */
	size_t ncur, acur;
	struct ps_interval *iv;
	size_t niv, aiv;
	struct ps_sum *sums;
	size_t nsums, asums;
	json_t *noted;	   /* events already named in errors */
	int in_text_block; /* after "Performance counter stats for" */
	int after_elapsed; /* its "seconds time elapsed" seen: only user/sys may follow */
	int in_interval;   /* after "#  time ... counts" */
	int runs;	   /* whole-run groups emitted */
};

static const char *intern(struct ps_state *st, const char *s)
{
	void *it = json_object_iter_at(st->names, s);

	if (!it) {
		if (json_object_set_new(st->names, s, json_null()))
			return NULL; /* not UTF-8 */
		it = json_object_iter_at(st->names, s);
	}
	return json_object_iter_key(it);
}

/* perf's event name looks like one: see the header comment */
static int event_ok(const char *ev)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*ev) && *ev != '_')
		return 0;
	for (; *ev; ev++, n++)
		if (!isalnum((unsigned char)*ev) && !strchr("_-.:/=,@", *ev))
			return 0;
	return n <= 200;
}

/* perf's event name -> ours (new) */
static char *event_name(const char *ev)
{
	char *out = xmalloc(strlen(ev) + 2);
	size_t n = 0, len = strlen(ev);
	const char *last = strrchr(ev, '/');
	int slash = 0;

	for (size_t i = 0; i < len; i++) {
		char ch = ev[i];

		if (ch == '/') {
			/* the closing slash: a modifier may follow ("/u") */
			if (ev + i == last) {
				if (ev[i + 1])
					out[n++] = '-';
				continue;
			}
			out[n++] = slash++ ? '/' : '.';
			continue;
		}
		out[n++] = ch == ':' ? '-' : ch;
	}
	out[n] = '\0';
	return out;
}

/* "CPU12" (-A), "S0", "S0-D1", "S0-D1-C3" (--per-socket/die/core) or "N0"
 * (--per-node); sets *counted when perf prints a CPU count after it */
static int is_agg(const char *s, int *counted)
{
	static const char *const forms[] = { "CPU#", "S#", "S#-D#", "S#-D#-C#", "N#" };

	for (size_t k = 0; k < ARRAY_SIZE(forms); k++) {
		const char *f = forms[k], *p = s;

		while (*f && *p) {
			if (*f == '#') {
				if (!isdigit((unsigned char)*p))
					break;
				while (isdigit((unsigned char)*p))
					p++;
				f++;
			} else if (*f != *p) {
				break;
			} else {
				f++;
				p++;
			}
		}
		if (!*f && !*p) {
			*counted = k > 0;
			return 1;
		}
	}
	return 0;
}

static int is_clock(const char *ev)
{
	return !strcmp(ev, "task-clock") || !strcmp(ev, "cpu-clock");
}

static int is_socket(const char *agg)
{
	int counted;

	return agg && agg[0] == 'S' && !strchr(agg, '-') && is_agg(agg, &counted);
}

static double sum_get(json_t *sums, const char *key)
{
	return json_real_value(json_object_get(sums, key));
}

/*
 * LKP's calc_addon_keys over the counts of one run (sums: "NAME" ->
 * count, plain names only): miss rates, ipc, cpi, instructions per iTLB
 * miss.
 */
static void emit_overall(struct parse_ctx *c, json_t *sums)
{
	static const char *const totals[] = { "s", "-references", "-instructions" };
	const char *k;
	json_t *v;
	double cycles, insn, itlb;

	json_object_foreach (sums, k, v) {
		size_t kl = strlen(k);
		double miss = json_real_value(v);

		if (kl <= 7 || strcmp(k + kl - 7, "-misses"))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(totals); i++) {
			char *other = xstrfmt("%.*s%s", (int)(kl - 7), k, totals[i]);
			double total = sum_get(sums, other);

			free(other);
			if (total == 0)
				continue;
			if (i == 0)
				total += miss;
			parse_ctx_addf(c, miss * 100.0 / total, "overall.%.*s-miss-rate%%",
				       (int)(kl - 7), k);
			break;
		}
	}
	cycles = sum_get(sums, "cpu-cycles");
	if (cycles == 0)
		cycles = sum_get(sums, "cycles");
	insn = sum_get(sums, "instructions");
	itlb = sum_get(sums, "iTLB-load-misses");
	if (cycles != 0 && insn != 0) {
		parse_ctx_add(c, "overall.ipc", insn / cycles);
		parse_ctx_add(c, "overall.cpi", cycles / insn);
	}
	if (itlb != 0 && insn != 0)
		parse_ctx_add(c, "overall.instructions-per-iTLB-miss", insn / itlb);
}

static void sums_add(json_t *sums, const char *key, double v)
{
	json_object_set_new(sums, key, json_real(v + sum_get(sums, key)));
}

/* The current group: one whole run. Per event the sum over CPUs/sockets,
 * and per socket; then the run's overall.* ratios. */
static void flush_run(struct parse_ctx *c, struct ps_state *st)
{
	json_t *sums = json_object(), *plain = json_object(), *order = json_array(), *v;
	size_t i;

	for (size_t k = 0; k < st->ncur; k++) {
		const struct ps_rec *r = &st->cur[k];
		char *key[2] = { NULL, NULL };

		if (!r->valid)
			continue;
		sums_add(plain, r->name, r->v);
		key[0] = xstrfmt("total.%s", r->name);
		if (is_socket(r->agg))
			key[1] = xstrfmt("%s.total.%s", r->agg, r->name);
		for (size_t m = 0; m < 2 && key[m]; m++) {
			if (!json_object_get(sums, key[m]))
				json_array_append_new(order, json_string(key[m]));
			sums_add(sums, key[m], r->v);
			free(key[m]);
		}
	}
	json_array_foreach (order, i, v)
		parse_ctx_addf(c, sum_get(sums, json_string_value(v)), "%s", json_string_value(v));
	if (json_array_size(order)) {
		emit_overall(c, plain);
		st->runs++;
	}
	json_decref(order);
	json_decref(plain);
	json_decref(sums);
	st->ncur = 0;
}

/* The current group: one interval, kept as its sums until the end (which
 * intervals are short is known only then). */
static void flush_interval(struct ps_state *st)
{
	struct ps_interval *iv;
	size_t first = st->nsums;

	if (!st->ncur)
		return;
	for (size_t k = 0; k < st->ncur; k++) {
		const struct ps_rec *r = &st->cur[k];
		const char *key[2] = { NULL, NULL };
		char *tmp;

		if (!r->valid)
			continue;
		tmp = xstrfmt("ps.%s", r->name);
		key[0] = intern(st, tmp);
		free(tmp);
		if (is_socket(r->agg)) {
			tmp = xstrfmt("%s.ps.%s", r->agg, r->name);
			key[1] = intern(st, tmp);
			free(tmp);
		}
		for (size_t m = 0; m < 2 && key[m]; m++) {
			size_t j;

			for (j = first; j < st->nsums; j++)
				if (st->sums[j].key == key[m])
					break;
			if (j == st->nsums) {
				ALLOC_GROW(st->sums, st->nsums + 1, st->asums);
				st->sums[st->nsums].key = key[m];
				st->sums[st->nsums++].v = 0;
			}
			st->sums[j].v += r->v;
		}
	}
	ALLOC_GROW(st->iv, st->niv + 1, st->aiv);
	iv = &st->iv[st->niv++];
	iv->t = st->cur[0].t;
	iv->nrec = st->ncur;
	iv->first = first;
	iv->n = st->nsums - first;
	st->ncur = 0;
}

static void flush(struct parse_ctx *c, struct ps_state *st)
{
	if (!st->ncur)
		return;
	if (st->cur[0].t < 0)
		flush_run(c, st);
	else
		flush_interval(st);
}

static void rec_add(struct parse_ctx *c, struct ps_state *st, double t, const char *agg,
		    const char *ev, const char *value, const char *unit)
{
	struct ps_rec r;
	double v = 0;
	int valid = 0;
	char *name;

	if (!event_ok(ev))
		return;
	if (*value == '<') {
		if (!json_object_get(st->noted, ev)) {
			json_object_set_new(st->noted, ev, json_true());
			parse_ctx_note(c, "event '%s' %s, left out", ev, value);
		}
	} else if (!parse_num_full(value, &v)) {
		valid = 1;
		if (is_clock(ev)) {
			if (!*unit || !strcmp(unit, "ns"))
				v /= 1e6;
			else if (!strcmp(unit, "usec") || !strcmp(unit, "us"))
				v /= 1e3;
		}
	} else {
		return;
	}
	name = event_name(ev);
	r.t = t;
	r.agg = agg ? intern(st, agg) : NULL;
	r.name = intern(st, name);
	free(name);
	r.v = v;
	r.valid = valid;
	if (!r.name)
		return;
	/* where the current group ends: another timestamp, a whole-run count
	 * after intervals (or the other way), or (whole run) an event of one
	 * CPU/socket that repeats: the next run */
	if (st->ncur) {
		const struct ps_rec *first = &st->cur[0];
		int end = (first->t < 0) != (t < 0) || (t >= 0 && first->t != t);

		for (size_t k = 0; !end && t < 0 && k < st->ncur; k++)
			end = st->cur[k].name == r.name && st->cur[k].agg == r.agg;
		if (end)
			flush(c, st);
	}
	ALLOC_GROW(st->cur, st->ncur + 1, st->acur);
	st->cur[st->ncur++] = r;
}

static int is_number(const char *s)
{
	double v;

	return !parse_num_full(s, &v);
}

static void csv_line(struct parse_ctx *c, struct ps_state *st, char *s)
{
	char *f[16];
	size_t n = parse_split_char(s, ',', f, ARRAY_SIZE(f)), i = 0;
	const char *agg = NULL;
	double t = -1;
	int counted;

	for (size_t k = 0; k < n; k++)
		f[k] = (char *)parse_skip_blank(f[k]); /* perf 6 pads the time */
	/* [time,][CPU3, | S0,2,]value,unit,event,run time,percent[,metric,unit] */
	if (n >= 6 && is_number(f[0]) &&
	    (is_number(f[1]) || f[1][0] == '<' || is_agg(f[1], &counted))) {
		parse_num_full(f[0], &t);
		i = 1;
	}
	if (is_agg(f[i], &counted)) {
		agg = f[i++];
		if (counted) {
			if (i >= n || !is_number(f[i]))
				return;
			i++;
		}
	}
	if (i + 5 > n)
		return;
	if ((is_number(f[i]) || f[i][0] == '<') && *f[i + 2] && !is_number(f[i + 2]) &&
	    is_number(f[i + 3]) && is_number(f[i + 4]))
		rec_add(c, st, t, agg, f[i + 2], f[i], f[i + 1]);
}

/* "4,659,960,482" -> "4659960482" in place */
static void drop_commas(char *s)
{
	char *w = s;

	for (; *s; s++)
		if (*s != ',')
			*w++ = *s;
	*w = '\0';
}

/* a count as perf prints it: "4,659,960,482", "311.05", "<not supported>"
 * (two tokens) */
static int is_count(char *const *tok, size_t i, size_t n)
{
	char tmp[64];
	size_t len;

	if (i >= n)
		return 0;
	if (tok[i][0] == '<')
		return i + 1 < n && strchr(tok[i + 1], '>') != NULL;
	len = strlen(tok[i]);
	if (len >= sizeof(tmp))
		return 0;
	memcpy(tmp, tok[i], len + 1);
	drop_commas(tmp);
	return is_number(tmp);
}

/* "S seconds time elapsed" / "S seconds user" / "S seconds sys" */
static int time_line(struct parse_ctx *c, struct ps_state *st, char *const *tok, size_t n)
{
	static const struct {
		const char *words, *name;
	} kinds[] = { { "time elapsed", "elapsed_time" },
		      { "user", "user_time" },
		      { "sys", "system_time" } };
	double v;
	char words[32];

	if (n < 3 || strcmp(tok[1], "seconds") || parse_num_full(tok[0], &v))
		return 0;
	snprintf(words, sizeof(words), "%s%s%s", tok[2], n > 3 ? " " : "", n > 3 ? tok[3] : "");
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
		if (!strcmp(words, kinds[k].words) && n <= 4) {
			/* the counts above it are one run */
			flush(c, st);
			parse_ctx_add(c, kinds[k].name, v);
			if (k == 0)
				st->after_elapsed = 1;
			return 1;
		}
	return 1; /* another "seconds" line: not a count either */
}

static void text_line(struct parse_ctx *c, struct ps_state *st, char *s)
{
	char *tok[12], *hash = strstr(s, " #");
	size_t n, i = 0;
	double t = -1;
	char value[64];
	const char *unit = "", *agg = NULL;
	int counted;

	if (hash)
		*hash = '\0';
	n = parse_split_blank(s, tok, ARRAY_SIZE(tok));
	if (st->in_text_block && time_line(c, st, tok, n))
		return;
	if (st->after_elapsed) {
		/* the block ended with its times: what follows is no count */
		st->in_text_block = 0;
		st->after_elapsed = 0;
	}
	/* [time] [CPU3 | S0 2] count [unit] event … */
	if (n >= 3 && is_number(tok[0]) && (is_count(tok, 1, n) || is_agg(tok[1], &counted))) {
		parse_num_full(tok[0], &t);
		i = 1;
	}
	if (t >= 0 ? !st->in_interval : !st->in_text_block)
		return; /* not in a counter block */
	if (i < n && is_agg(tok[i], &counted)) {
		agg = tok[i++];
		if (counted) {
			/* the CPU count, then the count itself */
			if (!(i < n && is_number(tok[i]) && is_count(tok, i + 1, n)))
				return;
			i++;
		}
	}
	if (!is_count(tok, i, n))
		return;
	if (tok[i][0] == '<') {
		snprintf(value, sizeof(value), "%s %s", tok[i], tok[i + 1]);
		i += 2;
	} else {
		memcpy(value, tok[i], strlen(tok[i]) + 1);
		drop_commas(value);
		i++;
	}
	if (i < n &&
	    (!strcmp(tok[i], "msec") || !strcmp(tok[i], "ns") || !strcmp(tok[i], "usec"))) {
		unit = tok[i];
		i++;
	}
	if (i >= n || is_number(tok[i]) || tok[i][0] == '(')
		return;
	if (!strcmp(tok[i], "seconds"))
		return; /* "seconds time elapsed" of an interval run */
	if (i + 1 < n && !strcmp(tok[i + 1], "(msec)"))
		unit = "msec";
	else if (!*unit && is_clock(tok[i]))
		unit = "msec"; /* old perf text: "16689.570000 task-clock" */
	rec_add(c, st, t, agg, tok[i], value, unit);
}

/* The intervals kept (all but those with fewer counts than the others: the
 * last one, cut short when perf was stopped), per second; the overall.*
 * ratios of their summed counts. */
static void emit_intervals(struct parse_ctx *c, struct ps_state *st)
{
	json_t *plain = json_object();
	size_t maxcount = 0, kept = 0;
	double prev = 0;

	for (size_t k = 0; k < st->niv; k++)
		if (st->iv[k].nrec > maxcount)
			maxcount = st->iv[k].nrec;
	for (size_t k = 0; k < st->niv; k++) {
		const struct ps_interval *iv = &st->iv[k];
		double len = iv->t - prev;

		prev = iv->t;
		if (iv->nrec < maxcount) {
			parse_ctx_note(c,
				       "interval ending at %.9g s has %zu of %zu events, left out",
				       iv->t, iv->nrec, maxcount);
			continue;
		}
		if (len <= 0) {
			parse_ctx_note(c, "interval ending at %.9g s has no length, left out",
				       iv->t);
			continue;
		}
		for (size_t j = iv->first; j < iv->first + iv->n; j++) {
			parse_ctx_addf(c, st->sums[j].v / len, "%s", st->sums[j].key);
			if (!strncmp(st->sums[j].key, "ps.", 3))
				sums_add(plain, st->sums[j].key + 3, st->sums[j].v);
		}
		kept++;
	}
	if (kept)
		emit_overall(c, plain);
	json_decref(plain);
}

void parse_perf_stat(struct parse_ctx *c, struct parse_lines *l)
{
	struct ps_state st;

	memset(&st, 0, sizeof(st));
	st.names = json_object();
	st.noted = json_object();
	for (size_t i = 0; i < l->n; i++) {
		char *raw = l->v[i];
		char *s = (char *)parse_skip_blank(raw);

		if (!*s)
			continue;
		if (*s == '#') {
			/* "#           time             counts unit events" */
			if (strstr(s, " time ") && strstr(s, " counts "))
				st.in_interval = 1;
			continue;
		}
		if (strstr(s, "Performance counter stats for")) {
			flush(c, &st);
			st.in_text_block = 1;
			st.after_elapsed = 0;
			continue;
		}
		/* -x lines have no aligned columns (perf 6 pads only the
		 * time in front); text lines are aligned with runs of blanks
		 * ("     4,659,960,482      cycles") */
		if (!strstr(s, "  ") && strchr(s, ','))
			csv_line(c, &st, s);
		else
			text_line(c, &st, s);
	}
	flush(c, &st);
	emit_intervals(c, &st);
	free(st.cur);
	free(st.iv);
	free(st.sums);
	json_decref(st.noted);
	json_decref(st.names);
	if (!parse_ctx_count(c))
		parse_ctx_fail(c, "no perf stat counts");
}
