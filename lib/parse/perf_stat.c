/*
 * perf-stat: `perf stat -x,` CSV (interval or not) and the default text
 * output of old and new perf (interval or not).
 *
 *   whole run:  perf-stat.total.EVENT   the count (one value per run)
 *   -I interval: perf-stat.ps.EVENT     count / interval length in seconds,
 *                one value per interval (as LKP's stats/perf-stat)
 *
 * EVENT is perf's name with ':' written '-' ("instructions:u" ->
 * "instructions-u") and a PMU's "pmu/event/" written "pmu.event" (hybrid
 * CPUs: "cpu_atom/cpu-cycles/" -> "cpu_atom.cpu-cycles"). task-clock and
 * cpu-clock are in msec whether perf printed "msec", "task-clock (msec)",
 * or (perf 6, -x, without a unit) nanoseconds. `<not supported>` and
 * `<not counted>` events are left out and named in errors. An interval
 * with fewer events than the others (the last one, cut short when perf was
 * stopped) is left out.
 */
#include "parse/parse_tool.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "banned.h"

struct ps_rec {
	double t;	/* interval end, s; < 0 for a whole-run count */
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

static int is_clock(const char *ev)
{
	return !strcmp(ev, "task-clock") || !strcmp(ev, "cpu-clock");
}

static void rec_add(struct parse_ctx *c, struct ps_recs *rs, double t, const char *ev,
		    const char *value, const char *unit)
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
	size_t n = parse_split_char(s, ',', f, ARRAY_SIZE(f));
	double t;

	if (n < 3)
		return;
	if (n >= 4 && !parse_num_full(f[0], &t) && (is_number(f[1]) || f[1][0] == '<') &&
	    *f[3] && !is_number(f[3])) {
		rec_add(c, rs, t, f[3], f[1], f[2]);
		return;
	}
	if ((is_number(f[0]) || f[0][0] == '<') && *f[2] && !is_number(f[2]))
		rec_add(c, rs, -1, f[2], f[0], f[1]);
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

static void text_line(struct parse_ctx *c, struct ps_recs *rs, char *s)
{
	char *tok[12], *hash = strstr(s, " #");
	size_t n, i = 0;
	double t = -1;
	char value[64];
	const char *unit = "";

	if (hash)
		*hash = '\0';
	n = parse_split_blank(s, tok, ARRAY_SIZE(tok));
	if (n >= 3 && is_number(tok[0]) && tok[1][0] != '<') {
		char tmp[64];
		size_t len = strlen(tok[1]);

		if (len < sizeof(tmp)) {
			memcpy(tmp, tok[1], len + 1);
			drop_commas(tmp);
			if (is_number(tmp)) {
				parse_num_full(tok[0], &t);
				i = 1;
			}
		}
	} else if (n >= 4 && is_number(tok[0]) && tok[1][0] == '<') {
		parse_num_full(tok[0], &t);
		i = 1;
	}
	if (i >= n)
		return;
	if (tok[i][0] == '<') {
		if (i + 1 >= n || !strchr(tok[i + 1], '>'))
			return;
		snprintf(value, sizeof(value), "%s %s", tok[i], tok[i + 1]);
		i += 2;
	} else {
		if (strlen(tok[i]) >= sizeof(value))
			return;
		memcpy(value, tok[i], strlen(tok[i]) + 1);
		drop_commas(value);
		if (!is_number(value))
			return;
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
	rec_add(c, rs, t, tok[i], value, unit);
}

static void emit(struct parse_ctx *c, struct ps_recs *rs)
{
	size_t i = 0, maxcount = 0;
	double prev = 0;

	/* whole-run counts */
	for (size_t k = 0; k < rs->n; k++)
		if (rs->r[k].t < 0 && rs->r[k].valid)
			parse_ctx_addf(c, rs->r[k].v, "total.%s", rs->r[k].name);
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
		if (j - i < maxcount) {
			parse_ctx_note(c, "interval ending at %.9g s has %zu of %zu events, left out",
				       t, j - i, maxcount);
		} else if (len <= 0) {
			parse_ctx_note(c, "interval ending at %.9g s has no length, left out", t);
		} else {
			for (size_t k = i; k < j; k++)
				if (rs->r[k].valid)
					parse_ctx_addf(c, rs->r[k].v / len, "ps.%s", rs->r[k].name);
		}
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
		/* -x, lines start at column 0 and have no aligned columns;
		 * text lines are right-aligned ("     4,659,960,482      cycles") */
		if (s == raw && (isdigit((unsigned char)*s) || *s == '<') &&
		    !strstr(s, "  ") && strchr(s, ','))
			csv_line(c, &rs, s);
		else
			text_line(c, &rs, s);
	}
	emit(c, &rs);
	for (size_t k = 0; k < rs.n; k++)
		free(rs.r[k].name);
	for (size_t k = 0; k < rs.nnoted; k++)
		free(rs.noted[k]);
	free(rs.r);
	free(rs.noted);
	if (!parse_ctx_count(c))
		parse_ctx_fail(c, "no perf stat counts");
}
