#include "monitors.h"
#include "profile.h"
#include "buf.h"
#include "parse/parse.h"
#include "parse/perf_fold.h"
#include "xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define MARK_STAT_BEGIN "==== regtrack-perf-stat-begin ===="
#define MARK_STAT_END "==== regtrack-perf-stat-end ===="
#define MARK_PROFILE_BEGIN "==== regtrack-profile-begin "
#define MARK_PROFILE_END "==== regtrack-profile-end ===="
#define METRIC_NAME_MAX 256 /* lib/resultdoc: NAME 1..256 printable ASCII */

int monitors_parse(const json_t *monitors, unsigned *mask, struct err *e)
{
	char text[MONITORS_TEXT_MAX];

	*mask = 0;
	/* the one check of monitors, lib/profile.h; a bad one is the job's fault here */
	if (monitors_from_json((json_t *)monitors, "monitors", text, e)) {
		char detail[sizeof(e->detail)], msg[sizeof(e->message)];

		snprintf(detail, sizeof(detail), "%s", e->detail);
		snprintf(msg, sizeof(msg), "%s", e->message);
		return err_setc(e, ERR_INVALID_JOB, detail, "%s", msg);
	}
	if (monitors_has(text, "perf-profile"))
		*mask |= MONITOR_PERF_PROFILE;
	if (monitors_has(text, "perf-stat"))
		*mask |= MONITOR_PERF_STAT;
	return 0;
}

json_t *monitors_mask_json(unsigned mask)
{
	const char *t = (mask & MONITOR_PERF_PROFILE) && (mask & MONITOR_PERF_STAT) ?
				"perf-profile,perf-stat" :
			mask & MONITOR_PERF_PROFILE ? "perf-profile" :
			mask & MONITOR_PERF_STAT    ? "perf-stat" :
						      "";

	return monitors_json(t);
}

struct sym_ctx {
	json_t *metrics;
};

static void set_metric(json_t *metrics, const char *kind, const char *sym, double pct)
{
	char *name = xstrfmt("perf-profile.%s.cycles-pp.%s", kind, sym);
	size_t i, n = strlen(name);
	int ok = n <= METRIC_NAME_MAX;

	for (i = 0; ok && i < n; i++)
		ok = name[i] > ' ' && name[i] < 0x7f;
	/* a symbol the result document cannot name is left to the folded text */
	if (ok)
		json_object_set_new(metrics, name, json_pack("[f]", round(pct * 1e4) / 1e4));
	free(name);
}

static void on_symbol(void *ctx, const char *sym, double children, double self)
{
	struct sym_ctx *c = ctx;

	/* each column has the floor, as LKP's perf-profile rows: no zeros */
	if (children >= PROFILE_MIN_PCT)
		set_metric(c->metrics, "children", sym, children);
	if (self >= PROFILE_MIN_PCT)
		set_metric(c->metrics, "self", sym, self);
}

int profile_fill_run(json_t *run, unsigned mask, const char *folded, size_t folded_len,
		     const char *stat_text, size_t stat_len, struct err *e)
{
	json_t *metrics = json_object_get(run, "metrics");

	if (folded && folded_len > PERF_FOLD_MAX_BYTES)
		return err_setc(e, ERR_TOO_LARGE, "profile.folded",
				"folded profile of %zu bytes is over the bound of %u bytes",
				folded_len, PERF_FOLD_MAX_BYTES);
	json_object_set_new(run, "monitors", monitors_mask_json(mask));
	if (!json_is_object(metrics)) {
		metrics = json_object();
		json_object_set_new(run, "metrics", metrics);
	}
	if ((mask & MONITOR_PERF_PROFILE) && folded) {
		struct sym_ctx c = { metrics };
		long long samples = perf_fold_symbols(folded, folded_len, PROFILE_MIN_PCT,
						      on_symbol, &c);

		if (samples > 0)
			json_object_set_new(run, "profile",
					    json_pack("{s:s, s:I, s:s%}", "event", PERF_FOLD_EVENT,
						      "samples", (json_int_t)samples, "folded",
						      folded, folded_len));
	}
	if ((mask & MONITOR_PERF_STAT) && stat_text) {
		struct err pe;
		json_t *doc = parse_output("perf-stat", stat_text, stat_len, &pe);
		json_t *m = doc ? json_object_get(doc, "metrics") : NULL;
		const char *key;
		json_t *vals;

		json_object_foreach (m, key, vals)
			if (json_is_array(vals) && json_array_size(vals))
				json_object_set(metrics, key, vals);
		json_decref(doc);
	}
	return 0;
}

/* The "rt| " lines between the line starting with begin and the line end, as text. */
static char *block_text(const char *log, const char *begin, const char *end, size_t *len)
{
	const char *b = strstr(log, begin), *e2, *line;
	struct buf out = BUF_INIT(0);

	*len = 0;
	if (!b)
		return NULL;
	b = strchr(b, '\n');
	e2 = b ? strstr(b, end) : NULL;
	if (!e2)
		return NULL;
	for (line = b + 1; line < e2;) {
		const char *nl = memchr(line, '\n', (size_t)(e2 - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(e2 - line);

		if (n >= 4 && !memcmp(line, "rt| ", 4)) {
			size_t m = n - 4;

			while (m && line[4 + m - 1] == '\r')
				m--;
			if (buf_add(&out, line + 4, m) || buf_addch(&out, '\n'))
				abort(); /* uncapped */
		}
		line += n + 1;
	}
	return buf_detach(&out, len);
}

void profile_from_serial(const char *log, char **folded, size_t *folded_len, char **stat,
			 size_t *stat_len)
{
	*folded = block_text(log, MARK_PROFILE_BEGIN, MARK_PROFILE_END, folded_len);
	*stat = block_text(log, MARK_STAT_BEGIN, MARK_STAT_END, stat_len);
}

static const char *wrap_hold(struct perf_wrap *w, char *s)
{
	w->hold[w->nhold++] = s;
	return s;
}

int perf_wrap_init(struct perf_wrap *w, const char *perf, unsigned mask, const char *dir,
		   struct err *e)
{
	static const char *const rec[] = { "record", "-a", "-g", "-e", PERF_FOLD_EVENT, "-B" };
	char env[96] = "REGTRACK_PERF_CTL=";
	size_t envlen = strlen(env);
	int layer, k = 0;

	memset(w, 0, sizeof(*w));
	w->data_path = xstrfmt("%s/perf.data", dir);
	w->stat_path = xstrfmt("%s/perf-stat.txt", dir);
	for (layer = 0; layer < 2; layer++) {
		int cmd[2], ack[2];
		size_t i;

		if (!(mask & (layer ? MONITOR_PERF_STAT : MONITOR_PERF_PROFILE)))
			continue;
		if (pipe(cmd) < 0)
			return err_setc(e, ERR_IO, "pipe", "cannot make perf's control pipe: %s",
					strerror(errno));
		w->fds[w->nfds++] = cmd[0];
		w->fds[w->nfds++] = cmd[1];
		if (pipe(ack) < 0)
			return err_setc(e, ERR_IO, "pipe", "cannot make perf's control pipe: %s",
					strerror(errno));
		w->fds[w->nfds++] = ack[0];
		w->fds[w->nfds++] = ack[1];
		w->argv[w->n++] = perf;
		if (!layer) {
			for (i = 0; i < ARRAY_SIZE(rec); i++)
				w->argv[w->n++] = rec[i];
			w->argv[w->n++] = "-o";
			w->argv[w->n++] = w->data_path;
		} else {
			w->argv[w->n++] = "stat";
			w->argv[w->n++] = "-a";
			w->argv[w->n++] = "-o";
			w->argv[w->n++] = w->stat_path;
		}
		w->argv[w->n++] = "-D";
		w->argv[w->n++] = "-1";
		w->argv[w->n++] = "--control";
		w->argv[w->n++] = wrap_hold(w, xstrfmt("fd:%d,%d", cmd[0], ack[1]));
		w->argv[w->n++] = "--";
		envlen += (size_t)snprintf(env + envlen, sizeof(env) - envlen, "%s%d,%d",
					   k++ ? ";" : "", cmd[1], ack[0]);
	}
	w->argv[w->n] = NULL;
	w->env[0] = wrap_hold(w, xstrdup(env));
	w->env[1] = NULL;
	return 0;
}

void perf_wrap_release(struct perf_wrap *w)
{
	while (w->nfds)
		close(w->fds[--w->nfds]);
	while (w->nhold)
		free(w->hold[--w->nhold]);
	free(w->data_path);
	free(w->stat_path);
	w->data_path = w->stat_path = NULL;
}
