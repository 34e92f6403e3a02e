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
 */
#include "parse/parse_tool.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "banned.h"

struct ps_rec {
	double t;	/* interval end, s; < 0 for a whole-run count */
	char *agg;	/* "CPU3", "S0", "S0-D0-C1", "N0" or NULL (one total) */
	char *name;
	double v;
	int valid;
};

struct ps_recs {
	struct ps_rec *r;
	size_t n, alloc;
	char **noted;	/* events already named in errors */
	size_t nnoted, anoted;
};

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

static void rec_add(struct parse_ctx *c, struct ps_recs *rs, double t, const char *agg,
		    const char *ev, const char *value, const char *unit)
{
	struct ps_rec *r;
	double v = 0;
	int valid = 0;

	if (*value == '<') {
		size_t k;

		for (k = 0; k < rs->nnoted; k++)
			if (!strcmp(rs->noted[k], ev))
				break;
		if (k == rs->nnoted) {
			ALLOC_GROW(rs->noted, rs->nnoted + 1, rs->anoted);
			rs->noted[rs->nnoted++] = xstrdup(ev);
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
	ALLOC_GROW(rs->r, rs->n + 1, rs->alloc);
	r = &rs->r[rs->n++];
	r->t = t;
	r->agg = agg ? xstrdup(agg) : NULL;
	r->name = event_name(ev);
	r->v = v;
	r->valid = valid;
}

static int is_number(const char *s)
{
	double v;

	return !parse_num_full(s, &v);
}

static void csv_line(struct parse_ctx *c, struct ps_recs *rs, char *s)
{
	char *f[16];
	size_t n = parse_split_char(s, ',', f, ARRAY_SIZE(f)), i = 0;
	const char *agg = NULL;
	double t = -1;
	int counted;

	for (size_t k = 0; k < n; k++)
		f[k] = (char *)parse_skip_blank(f[k]);	/* perf 6 pads the time */
	/* [time,][CPU3, | S0,2,]value,unit,event,… */
	if (n >= 4 && is_number(f[0]) &&
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
	if (i + 3 > n)
		return;
	if ((is_number(f[i]) || f[i][0] == '<') && *f[i + 2] && !is_number(f[i + 2]))
		rec_add(c, rs, t, agg, f[i + 2], f[i], f[i + 1]);
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

static void text_line(struct parse_ctx *c, struct ps_recs *rs, char *s)
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
	/* [time] [CPU3 | S0 2] count [unit] event … */
	if (n >= 3 && is_number(tok[0]) && (is_count(tok, 1, n) || is_agg(tok[1], &counted))) {
		parse_num_full(tok[0], &t);
		i = 1;
	}
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
	if (i < n && (!strcmp(tok[i], "msec") || !strcmp(tok[i], "ns") ||
		      !strcmp(tok[i], "usec"))) {
		unit = tok[i];
		i++;
	}
	if (i >= n || is_number(tok[i]) || tok[i][0] == '(')
		return;
	if (!strcmp(tok[i], "seconds"))
		return;	/* "seconds time elapsed", "seconds user" */
	if (i + 1 < n && !strcmp(tok[i + 1], "(msec)"))
		unit = "msec";
	else if (!*unit && is_clock(tok[i]))
		unit = "msec";	/* old perf text: "16689.570000 task-clock" */
	rec_add(c, rs, t, agg, tok[i], value, unit);
}

static int is_socket(const char *agg)
{
	int counted;

	return agg && agg[0] == 'S' && !strchr(agg, '-') && is_agg(agg, &counted);
}

/*
 * Emits one run (whole-run counts, len 0) or one interval (len s) of
 * records r[0..n): per event the sum over CPUs/sockets, and per socket.
 */
static void emit_group(struct parse_ctx *c, const struct ps_rec *r, size_t n, double len)
{
	json_t *sums = json_object(), *order = json_array(), *v;
	const char *kind = len > 0 ? "ps" : "total";
	size_t i;

	for (size_t k = 0; k < n; k++) {
		char *key[2] = { NULL, NULL };

		if (!r[k].valid)
			continue;
		key[0] = xstrfmt("%s.%s", kind, r[k].name);
		if (is_socket(r[k].agg))
			key[1] = xstrfmt("%s.%s.%s", r[k].agg, kind, r[k].name);
		for (size_t m = 0; m < 2 && key[m]; m++) {
			json_t *old = json_object_get(sums, key[m]);

			if (!old)
				json_array_append_new(order, json_string(key[m]));
			json_object_set_new(sums, key[m],
					    json_real(r[k].v + (old ? json_real_value(old) : 0)));
			free(key[m]);
		}
	}
	json_array_foreach(order, i, v)
		parse_ctx_addf(c, json_real_value(json_object_get(sums, json_string_value(v))) /
				  (len > 0 ? len : 1), "%s", json_string_value(v));
	json_decref(order);
	json_decref(sums);
}

static void emit(struct parse_ctx *c, struct ps_recs *rs)
{
	size_t i = 0, maxcount = 0;
	double prev = 0;

	/* whole-run counts: a run ends where an event of one CPU repeats */
	for (size_t k = 0; k < rs->n;) {
		size_t j = k;

		if (rs->r[k].t >= 0) {
			k++;
			continue;
		}
		for (; j < rs->n && rs->r[j].t < 0; j++) {
			size_t m;

			for (m = k; m < j; m++)
				if (!strcmp(rs->r[m].name, rs->r[j].name) &&
				    !strcmp(rs->r[m].agg ? rs->r[m].agg : "",
					    rs->r[j].agg ? rs->r[j].agg : ""))
					break;
			if (m < j)
				break;
		}
		emit_group(c, rs->r + k, j - k, 0);
		k = j;
	}
	/* intervals: runs of records with the same timestamp */
	for (size_t k = 0; k < rs->n;) {
		size_t j = k;

		if (rs->r[k].t < 0) {
			k++;
			continue;
		}
		while (j < rs->n && rs->r[j].t == rs->r[k].t)
			j++;
		if (j - k > maxcount)
			maxcount = j - k;
		k = j;
	}
	while (i < rs->n) {
		size_t j = i;
		double t = rs->r[i].t, len;

		if (t < 0) {
			i++;
			continue;
		}
		while (j < rs->n && rs->r[j].t == t)
			j++;
		len = t - prev;
		if (j - i < maxcount)
			parse_ctx_note(c, "interval ending at %.9g s has %zu of %zu events, left out",
				       t, j - i, maxcount);
		else if (len <= 0)
			parse_ctx_note(c, "interval ending at %.9g s has no length, left out", t);
		else
			emit_group(c, rs->r + i, j - i, len);
		prev = t;
		i = j;
	}
}

void parse_perf_stat(struct parse_ctx *c, struct parse_lines *l)
{
	struct ps_recs rs;

	memset(&rs, 0, sizeof(rs));
	for (size_t i = 0; i < l->n; i++) {
		char *raw = l->v[i];
		char *s = (char *)parse_skip_blank(raw);

		if (*s == '#' || !*s)
			continue;
		/* -x, lines have no aligned columns (perf 6 pads only the
		 * time in front); text lines are aligned with runs of blanks
		 * ("     4,659,960,482      cycles") */
		if (!strstr(s, "  ") && strchr(s, ','))
			csv_line(c, &rs, s);
		else
			text_line(c, &rs, s);
	}
	emit(c, &rs);
	for (size_t k = 0; k < rs.n; k++) {
		free(rs.r[k].agg);
		free(rs.r[k].name);
	}
	for (size_t k = 0; k < rs.nnoted; k++)
		free(rs.noted[k]);
	free(rs.r);
	free(rs.noted);
	if (!parse_ctx_count(c))
		parse_ctx_fail(c, "no perf stat counts");
}
