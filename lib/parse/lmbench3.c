/*
 * lmbench3: the results of its lat_* and bw_* programs as lmbench's
 * scripts collect them (LKP's lmbench3 output). Metric names are LKP's
 * stats/lmbench3 where it has them, units in the name:
 *
 *   Simple NAME: V microseconds           syscall.NAME.latency.us
 *                                         (NAME: syscall read write stat
 *                                         fstat open/close)
 *   Select on 100 fd's: / tcp fd's:       Select.100fd.latency.us, Select.100tcp…
 *   Process fork+exit: / fork+execve: /
 *     fork+/bin/sh -c:                    Process.fork+exit.latency.us, …,
 *                                         Process.fork+/bin/sh.latency.us
 *   Pipe latency: / Pipe bandwidth:       PIPE.latency.us, PIPE.bandwidth.MB/sec
 *   AF_UNIX sock stream latency/bandwidth AF_UNIX.sock.stream.latency.us, ….bandwidth.MB/sec
 *   UDP latency using localhost:          UDP.usinglocalhost.latency.us
 *   TCP latency using localhost:          TCP.localhost.latency (us)
 *   TCP/IP connection cost to localhost:  CONNECT.localhost.latency.us
 *   Pagefaults on FILE: V microseconds    Pagefaults.ms (LKP's name; the
 *                                         value is in microseconds as printed)
 *   integer|int64|float|double OP: V nanoseconds   OPS.TYPE.OP.latency.ns
 *   "size=Nk ovr=X, then "P V" lines      CTX.PP.NK.latency.us (lat_ctx; LKP
 *                                         keeps P = 96 only, we keep every P)
 *   Socket bandwidth using localhost,
 *     then "0.000064 V MB/sec"            TCP.socket.bandwidth.64B.MB/sec
 *     and "10.485760 V MB/sec"            TCP.socket.bandwidth.10MB.MB/sec
 *
 * Series ("size value" lines under a title, up to a blank line or the next
 * title) give the value at the largest size, as LKP's largest_bandwidth:
 *   "read bandwidth                       FILE.read.bandwidth.MB/sec
 *   "Mmap read bandwidth                  MMAP.read.bandwidth.MB/sec
 *   "Mmap read open2close bandwidth       MMAP.read_open2close.bandwidth.MB/sec
 *   "libc bcopy unaligned                 BCOPY.libc.bandwidth.MB/sec
 *   "unrolled bcopy unaligned             BCOPY.unrolled.bandwidth.MB/sec
 *   Memory read bandwidth                 BCOPY.memory_read.bandwidth.MB/sec
 *   Memory write bandwidth                BCOPY.memory_write.bandwidth.MB/sec
 *   "mappings                             MMAP.mapping.latency.us (lat_mmap,
 *                                         size MB -> microseconds; not in LKP)
 *
 * Not in LKP, from the same programs:
 *   other "LABEL: V microseconds|usecs"   SLUG.latency.us (parse_slug of the
 *                                         label less a last "latency":
 *                                         "Signal handler overhead" ->
 *                                         signal_handler_overhead.latency.us,
 *                                         "Semaphore latency" -> semaphore.latency.us)
 *   lat_fs "SIZEk N creates/s removes/s"  FS.SIZEk.create.per_sec, FS.SIZEk.delete.per_sec
 *
 * Units "microseconds" and "usecs" are both read as microseconds. A file
 * holding several runs gives one value per run, in order.
 */
#include "parse/parse_tool.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* a latency line's label -> LKP's name (label compared up to the ':') */
static const struct {
	const char *label, *name;
} lm_latencies[] = {
	{ "Simple syscall", "syscall.syscall.latency.us" },
	{ "Simple read", "syscall.read.latency.us" },
	{ "Simple write", "syscall.write.latency.us" },
	{ "Simple stat", "syscall.stat.latency.us" },
	{ "Simple fstat", "syscall.fstat.latency.us" },
	{ "Simple open/close", "syscall.open/close.latency.us" },
	{ "Select on 100 fd's", "Select.100fd.latency.us" },
	{ "Select on 100 tcp fd's", "Select.100tcp.latency.us" },
	{ "Process fork+exit", "Process.fork+exit.latency.us" },
	{ "Process fork+execve", "Process.fork+execve.latency.us" },
	{ "Process fork+/bin/sh -c", "Process.fork+/bin/sh.latency.us" },
	{ "Pipe latency", "PIPE.latency.us" },
	{ "AF_UNIX sock stream latency", "AF_UNIX.sock.stream.latency.us" },
	{ "UDP latency using localhost", "UDP.usinglocalhost.latency.us" },
	{ "TCP latency using localhost", "TCP.localhost.latency" },
	{ "TCP/IP connection cost to localhost", "CONNECT.localhost.latency.us" },
};

static const struct {
	const char *label, *name;
} lm_bandwidths[] = {
	{ "Pipe bandwidth", "PIPE.bandwidth.MB/sec" },
	{ "AF_UNIX sock stream bandwidth", "AF_UNIX.sock.stream.bandwidth.MB/sec" },
};

/* series titles (the whole line) -> name of the value at the largest size */
static const struct {
	const char *title, *name;
} lm_series[] = {
	{ "\"read bandwidth", "FILE.read.bandwidth.MB/sec" },
	{ "\"Mmap read bandwidth", "MMAP.read.bandwidth.MB/sec" },
	{ "\"Mmap read open2close bandwidth", "MMAP.read_open2close.bandwidth.MB/sec" },
	{ "\"libc bcopy unaligned", "BCOPY.libc.bandwidth.MB/sec" },
	{ "\"unrolled bcopy unaligned", "BCOPY.unrolled.bandwidth.MB/sec" },
	{ "Memory read bandwidth", "BCOPY.memory_read.bandwidth.MB/sec" },
	{ "Memory write bandwidth", "BCOPY.memory_write.bandwidth.MB/sec" },
	{ "\"mappings", "MMAP.mapping.latency.us" },
};

struct lm_state {
	const char *series; /* the series being read, or NULL */
	double best_size, best;
	int have;
	long ctx_size; /* lat_ctx block size in KB, or -1 */
	int socket_bw; /* after "Socket bandwidth using localhost" */
};

static void series_end(struct parse_ctx *c, struct lm_state *st)
{
	if (st->series && st->have)
		parse_ctx_add(c, st->series, st->best);
	st->series = NULL;
	st->have = 0;
}

/* "LABEL: V UNIT" with UNIT one of units (NULL-terminated); sets *v and
 * returns the label's length, or 0 */
static size_t label_value(const char *s, const char *const *units, double *v)
{
	const char *colon = strrchr(s, ':'), *p;

	if (!colon || colon == s)
		return 0;
	p = parse_skip_blank(colon + 1);
	if (parse_num(p, &p, v) || *p != ' ')
		return 0;
	p = parse_skip_blank(p);
	for (size_t k = 0; units[k]; k++)
		if (!strcmp(p, units[k]))
			return (size_t)(colon - s);
	return 0;
}

static int label_is(const char *s, size_t n, const char *label)
{
	return strlen(label) == n && !strncmp(s, label, n);
}

static void latency_line(struct parse_ctx *c, const char *s, size_t n, double v)
{
	static const char *const ops_types[] = { "integer", "int64", "float", "double" };
	char *label, *slug;

	for (size_t k = 0; k < ARRAY_SIZE(lm_latencies); k++)
		if (label_is(s, n, lm_latencies[k].label)) {
			parse_ctx_add(c, lm_latencies[k].name, v);
			return;
		}
	if (!strncmp(s, "Pagefaults on ", 14)) {
		parse_ctx_add(c, "Pagefaults.ms", v);
		return;
	}
	for (size_t k = 0; k < ARRAY_SIZE(ops_types); k++)
		if (!strncmp(s, ops_types[k], strlen(ops_types[k])))
			return; /* a nanoseconds line is read elsewhere */
	label = xstrndup(s, n);
	slug = parse_slug(label);
	n = strlen(slug);
	if (n > 8 && !strcmp(slug + n - 8, "_latency"))
		slug[n - 8] = '\0'; /* "Semaphore latency" -> semaphore.latency.us */
	if (*slug)
		parse_ctx_addf(c, v, "%s.latency.us", slug);
	free(slug);
	free(label);
}

/* "integer add: 0.09 nanoseconds" */
static int ops_line(struct parse_ctx *c, const char *s)
{
	static const char *const types[] = { "integer", "int64", "float", "double" };
	static const char *const ops[] = { "bit", "add", "mul", "div", "mod" };
	static const char *const ns[] = { "nanoseconds", NULL };
	double v;
	size_t n = label_value(s, ns, &v);

	if (!n)
		return 0;
	for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
		size_t tl = strlen(types[t]);

		if (strncmp(s, types[t], tl) || s[tl] != ' ')
			continue;
		for (size_t o = 0; o < ARRAY_SIZE(ops); o++)
			if (label_is(s + tl + 1, n - tl - 1, ops[o])) {
				parse_ctx_addf(c, v, "OPS.%s.%s.latency.ns", types[t], ops[o]);
				return 1;
			}
	}
	return 1;
}

/* lat_fs: "0k	1000	58823	149476" */
static int fs_line(struct parse_ctx *c, char *s)
{
	char *tok[5];
	size_t n = parse_split_blank(s, tok, ARRAY_SIZE(tok));
	double size, files, cr, rm;
	const char *k;

	if (n != 4)
		return 0;
	k = strchr(tok[0], 'k');
	if (!k || k[1] || k == tok[0])
		return 0;
	*(char *)k = '\0';
	if (parse_num_full(tok[0], &size) || parse_num_full(tok[1], &files) ||
	    parse_num_full(tok[2], &cr) || parse_num_full(tok[3], &rm) || size < 0 ||
	    size != (double)(long)size)
		return 0;
	parse_ctx_addf(c, cr, "FS.%ldk.create.per_sec", (long)size);
	parse_ctx_addf(c, rm, "FS.%ldk.delete.per_sec", (long)size);
	return 1;
}

void parse_lmbench3(struct parse_ctx *c, struct parse_lines *l)
{
	static const char *const us[] = { "microseconds", "usecs", NULL };
	static const char *const mbs[] = { "MB/sec", NULL };
	struct lm_state st = { NULL, 0, 0, 0, -1, 0 };

	for (size_t i = 0; i < l->n; i++) {
		char *s = parse_rtrim((char *)parse_skip_blank(l->v[i]));
		char *tok[4];
		size_t n, k;
		double a, b;

		if (!*s) {
			series_end(c, &st);
			st.ctx_size = -1;
			st.socket_bw = 0;
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(lm_series); k++)
			if (!strcmp(s, lm_series[k].title))
				break;
		if (k < ARRAY_SIZE(lm_series)) {
			series_end(c, &st);
			st.series = lm_series[k].name;
			continue;
		}
		if (!strncmp(s, "\"size=", 6)) {
			char *end;
			long kb;

			series_end(c, &st);
			kb = strtol(s + 6, &end, 10);
			st.ctx_size = end > s + 6 && *end == 'k' && kb >= 0 ? kb : -1;
			continue;
		}
		if (s[0] == '"') {
			series_end(c, &st); /* a series we do not keep */
			st.ctx_size = -1;
			continue;
		}
		if (!strcmp(s, "Socket bandwidth using localhost")) {
			series_end(c, &st);
			st.socket_bw = 1;
			continue;
		}
		if ((n = label_value(s, us, &a))) {
			latency_line(c, s, n, a);
			continue;
		}
		if ((n = label_value(s, mbs, &a))) {
			for (k = 0; k < ARRAY_SIZE(lm_bandwidths); k++)
				if (label_is(s, n, lm_bandwidths[k].label))
					parse_ctx_add(c, lm_bandwidths[k].name, a);
			continue;
		}
		if (ops_line(c, s))
			continue;
		if (st.socket_bw) {
			char *copy = xstrdup(s);

			n = parse_split_blank(copy, tok, ARRAY_SIZE(tok));
			if (n == 3 && !strcmp(tok[2], "MB/sec") && !parse_num_full(tok[1], &b)) {
				if (!strcmp(tok[0], "0.000064"))
					parse_ctx_add(c, "TCP.socket.bandwidth.64B.MB/sec", b);
				else if (!strcmp(tok[0], "10.485760"))
					parse_ctx_add(c, "TCP.socket.bandwidth.10MB.MB/sec", b);
			}
			free(copy);
			continue;
		}
		if (st.series || st.ctx_size >= 0) {
			char *copy = xstrdup(s);

			n = parse_split_blank(copy, tok, ARRAY_SIZE(tok));
			if (n == 2 && !parse_num_full(tok[0], &a) && !parse_num_full(tok[1], &b)) {
				if (st.series && (!st.have || a > st.best_size)) {
					st.best_size = a;
					st.best = b;
					st.have = 1;
				} else if (!st.series && a >= 1 && a == (double)(long)a) {
					parse_ctx_addf(c, b, "CTX.%ldP.%ldK.latency.us", (long)a,
						       st.ctx_size);
				}
			}
			free(copy);
			continue;
		}
		fs_line(c, s);
	}
	series_end(c, &st);
}
