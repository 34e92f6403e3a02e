/*
 * casecommon: parameters, output, clock, real tools and the measured phase
 * shared by the benchmark cases (their tasks: casetasks.c).  See casecommon.h.
 */
#include "casecommon.h"
#include "clock.h"

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *case_name = "case";

/* --- messages ------------------------------------------------------------ */

static void vnote(const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s: %s\n", case_name, msg);
}

void case_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
	fflush(stdout);
	exit(1);
}

void case_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

/* --- time and machine ---------------------------------------------------- */

uint64_t case_now_ns(void)
{
	return (uint64_t)mono_ns();
}

void case_sleep(double sec)
{
	struct timespec ts, rem;

	if (!(sec > 0))
		return;
	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = (long)((sec - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	while (nanosleep(&ts, &rem) && errno == EINTR)
		ts = rem;
}

int case_nr_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set)) {
		n = CPU_COUNT(&set);
		if (n > 0)
			return (int)n;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

void case_cpu_first_last(int *first, int *last)
{
	cpu_set_t set;
	int c;

	*first = *last = -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			if (*first < 0)
				*first = c;
			*last = c;
		}
	if (*first == *last)
		*first = *last = -1;
}

void case_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		case_note("pinning to CPU %d failed: %s", cpu, strerror(errno));
}

size_t case_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (size_t)ps : 4096;
}

uint64_t case_free_ram(void)
{
	struct sysinfo si;

	if (sysinfo(&si))
		return 0;
	return ((uint64_t)si.freeram + si.bufferram) * (si.mem_unit ? si.mem_unit : 1);
}

void *case_shared_alloc(size_t size)
{
	void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		case_fatal("mmap of %zu shared bytes failed: %s", size, strerror(errno));
	return p;
}

/* --- output -------------------------------------------------------------- */

void case_emit(const char *key, double value)
{
	double a = fabs(value);

	if (!isfinite(value))
		case_fatal("internal error: value of '%s' is not finite", key);
	if (a == 0)
		printf("%s: 0\n", key);
	else if (a >= 1e9)
		printf("%s: %.0f\n", key, value);
	else if (a < 1e-4)
		printf("%s: %.12f\n", key, value);
	else
		printf("%s: %.9g\n", key, value);
	if (fflush(stdout))
		case_fatal("writing to stdout failed: %s", strerror(errno));
}

/* --- statistics ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double case_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* --- parameters ---------------------------------------------------------- */

static void usage(const char *summary, const struct case_param *p, size_t n)
{
	size_t i;

	fprintf(stderr, "usage: %s [key=value ...]\n%s\nparameters:\n", case_name, summary);
	for (i = 0; i < n; i++) {
		fprintf(stderr, "  %-14s default %-8s %s", p[i].name, p[i].def, p[i].help);
		if (p[i].type == CASE_PARAM_CHOICE)
			fprintf(stderr, " (%s)", p[i].choices);
		else if (p[i].type == CASE_PARAM_STRING)
			fprintf(stderr, " (text)");
		else if (p[i].type == CASE_PARAM_DURATION)
			fprintf(stderr, " (N[s|m|h], %.15g..%.15g s)", p[i].min, p[i].max);
		else if (p[i].type == CASE_PARAM_TASKS)
			fprintf(stderr, " (N or P%% of CPUs, %.15g..%.15g)", p[i].min, p[i].max);
		else
			fprintf(stderr, " (%.15g..%.15g)", p[i].min, p[i].max);
		fputc('\n', stderr);
	}
}

/* Index of word in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *word)
{
	size_t wl = strlen(word);
	const char *s = choices;
	int idx = 0;

	for (;;) {
		const char *bar = strchr(s, '|');
		size_t len = bar ? (size_t)(bar - s) : strlen(s);

		if (len == wl && wl && !memcmp(s, word, wl))
			return idx;
		if (!bar)
			return -1;
		s = bar + 1;
		idx++;
	}
}

/* Parse text as p's value; 0 or -1 with why[] filled. */
static int param_set(struct case_param *p, const char *text, char *why, size_t whylen)
{
	char *end;
	double d;
	long l;
	int ci;

	switch (p->type) {
	case CASE_PARAM_INT:
		errno = 0;
		l = strtol(text, &end, 10);
		if (!*text || *end || errno) {
			snprintf(why, whylen, "'%s' is not an integer", text);
			return -1;
		}
		d = (double)l;
		break;
	case CASE_PARAM_DOUBLE:
		errno = 0;
		d = strtod(text, &end);
		if (!*text || *end || errno || !isfinite(d)) {
			snprintf(why, whylen, "'%s' is not a number", text);
			return -1;
		}
		l = 0;
		break;
	case CASE_PARAM_TASKS:
		errno = 0;
		d = strtod(text, &end);
		if (!*text || end == text || errno || !isfinite(d) || d <= 0 ||
		    (*end && strcmp(end, "%"))) {
			snprintf(why, whylen, "'%s' is neither a task count nor a percentage",
				 text);
			return -1;
		}
		if (*end == '%') {
			d = floor(d * case_nr_cpus() / 100.0);
			if (d < 1)
				d = 1;
		} else if (d != floor(d)) {
			snprintf(why, whylen, "'%s' is not a whole number of tasks", text);
			return -1;
		}
		if (d > 1e6)
			d = 1e6;
		l = (long)d;
		break;
	case CASE_PARAM_DURATION:
		errno = 0;
		d = strtod(text, &end);
		if (!*text || end == text || errno || !isfinite(d) ||
		    (*end && (end[1] || !strchr("smh", *end)))) {
			snprintf(why, whylen, "'%s' is not a duration (N, Ns, Nm or Nh)", text);
			return -1;
		}
		d *= *end == 'm' ? 60 : *end == 'h' ? 3600 : 1;
		l = 0;
		break;
	case CASE_PARAM_STRING:
		if (!*text || (double)strlen(text) > p->max) {
			snprintf(why, whylen, "'%s' is empty or longer than %.0f bytes", text,
				 p->max);
			return -1;
		}
		p->sval = text;
		p->ival = 0;
		p->dval = 0;
		return 0;
	case CASE_PARAM_CHOICE:
		ci = choice_index(p->choices, text);
		if (ci < 0) {
			snprintf(why, whylen, "'%s' is not one of %s", text, p->choices);
			return -1;
		}
		p->sval = text;
		p->ival = ci;
		p->dval = ci;
		return 0;
	default:
		snprintf(why, whylen, "bad parameter table");
		return -1;
	}
	if (d < p->min || d > p->max) {
		snprintf(why, whylen, "'%s' is out of range %.15g..%.15g", text, p->min, p->max);
		return -1;
	}
	p->sval = text;
	p->ival = l ? l : (long)d;
	p->dval = d;
	return 0;
}

/* --- real tools ------------------------------------------------------------ */

/*
 * The tool's path: the first executable NAME of PATH that is not this
 * program itself (the guest's PATH has /cases, where the tool case of the
 * same name lies, before /usr/bin). new, caller frees; fatal when none.
 */
static char *tool_path(const char *name)
{
	const char *path = getenv("PATH"), *p;
	struct stat self, st;
	int have_self = stat("/proc/self/exe", &self) == 0;

	for (p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		char *cand;

		if (n) {
			size_t len = n + strlen(name) + 2;

			cand = malloc(len);
			if (!cand)
				case_fatal("out of memory");
			snprintf(cand, len, "%.*s/%s", (int)n, p, name);
			if (!access(cand, X_OK) && !stat(cand, &st) && S_ISREG(st.st_mode) &&
			    !(have_self && st.st_dev == self.st_dev && st.st_ino == self.st_ino))
				return cand;
			free(cand);
		}
		p += n + (p[n] == ':');
	}
	case_fatal("cannot find the tool '%s' in PATH (%s)", name, path ? path : "unset");
}

void case_tool_version(const char *tool, char *const argv[])
{
	char *bin = tool_path(argv[0]);

	char out[4096], *line;
	size_t len = 0;
	int pfd[2], status;
	pid_t pid;

	if (pipe(pfd) < 0)
		case_fatal("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		case_fatal("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execv(bin, argv);
		_exit(127);
	}
	free(bin);
	close(pfd[1]);
	for (;;) {
		ssize_t r = read(pfd[0], out + len, sizeof(out) - 1 - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len == sizeof(out) - 1)
			break;
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		case_fatal("cannot run '%s' (not in PATH?)", argv[0]);
	out[len] = '\0';
	for (line = out; *line == '\n' || *line == ' '; line++)
		;
	line[strcspn(line, "\n")] = '\0';
	fprintf(stderr, "regtrack-tool: %s %s\n", tool, *line ? line : "unknown");
	fflush(stderr);
}

int case_tool_exec(char *const argv[])
{
	char *bin = tool_path(argv[0]);
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		case_fatal("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(1, 2);
		execv(bin, argv);
		fprintf(stderr, "cannot run '%s': %s\n", bin, strerror(errno));
		_exit(127);
	}
	free(bin);
	case_measure_begin();
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	case_measure_end();
	if (WIFSIGNALED(status)) {
		case_note("'%s' killed by signal %d", argv[0], WTERMSIG(status));
		return 1;
	}
	if (WEXITSTATUS(status) == 127)
		case_note("'%s' could not be run", argv[0]);
	return WEXITSTATUS(status);
}

/* s as a JSON string on stdout: the table's texts are literals, but quote anyway */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* The parameter table as one JSON object on stdout (see casecommon.h). */
static void params_json(const struct case_param *params, size_t n)
{
	static const char *const types[] = {
		[CASE_PARAM_INT] = "int",	[CASE_PARAM_DOUBLE] = "double",
		[CASE_PARAM_CHOICE] = "choice", [CASE_PARAM_TASKS] = "tasks",
		[CASE_PARAM_STRING] = "string", [CASE_PARAM_DURATION] = "duration"
	};
	size_t i;

	putchar('{');
	for (i = 0; i < n; i++) {
		const struct case_param *p = &params[i];

		printf("%s", i ? "," : "");
		json_str(p->name);
		printf(":{\"type\":");
		json_str(types[p->type]);
		printf(",\"default\":");
		json_str(p->def);
		if (p->type == CASE_PARAM_CHOICE) {
			printf(",\"choices\":");
			json_str(p->choices ? p->choices : "");
		} else {
			printf(",\"min\":%.17g,\"max\":%.17g", p->min, p->max);
		}
		printf(",\"help\":");
		json_str(p->help ? p->help : "");
		putchar('}');
	}
	printf("}\n");
	fflush(stdout);
}

void case_params_parse(const char *name, const char *summary, struct case_param *params, size_t n,
		       int argc, char **argv)
{
	char why[256];
	size_t i;
	int a;

	case_name = name;
	if (argc == 2 && !strcmp(argv[1], "--params-json")) {
		params_json(params, n);
		exit(0);
	}
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *eq = strchr(arg, '=');
		struct case_param *p = NULL;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			usage(summary, params, n);
			exit(0);
		}
		if (!eq || eq == arg) {
			case_note("argument '%s' is not key=value", arg);
			usage(summary, params, n);
			exit(2);
		}
		for (i = 0; i < n; i++)
			if (strlen(params[i].name) == (size_t)(eq - arg) &&
			    !memcmp(params[i].name, arg, (size_t)(eq - arg)))
				p = &params[i];
		if (!p) {
			case_note("unknown parameter '%.*s'", (int)(eq - arg), arg);
			usage(summary, params, n);
			exit(2);
		}
		if (p->set) {
			case_note("parameter '%s' given twice", p->name);
			exit(2);
		}
		if (param_set(p, eq + 1, why, sizeof(why))) {
			case_note("bad value for '%s': %s", p->name, why);
			usage(summary, params, n);
			exit(2);
		}
		p->set = 1;
	}
	for (i = 0; i < n; i++) {
		if (params[i].set)
			continue;
		if (param_set(&params[i], params[i].def, why, sizeof(why)))
			case_fatal("internal error: default of '%s': %s", params[i].name, why);
	}
}

/* --- the measured phase --------------------------------------------------- */

#define PERF_CTL_MAX 4
#define PERF_ACK_TIMEOUT_MS 30000

static struct {
	int parsed, n, on, dead;
	int ctl[PERF_CTL_MAX], ack[PERF_CTL_MAX];
} perfctl;

static void perfctl_parse(void)
{
	const char *s = getenv("REGTRACK_PERF_CTL");

	perfctl.parsed = 1;
	while (s && *s && perfctl.n < PERF_CTL_MAX) {
		char *end;
		long c = strtol(s, &end, 10), a;

		if (end == s || *end != ',')
			break;
		s = end + 1;
		a = strtol(s, &end, 10);
		if (end == s || c < 0 || a < 0)
			break;
		perfctl.ctl[perfctl.n] = (int)c;
		perfctl.ack[perfctl.n] = (int)a;
		perfctl.n++;
		s = *end == ';' ? end + 1 : end;
		if (*end != ';')
			break;
	}
}

/* Sends cmd ("enable"/"disable") to every perf and waits for each "ack". */
static void perfctl_send(const char *cmd)
{
	int i;

	for (i = 0; i < perfctl.n && !perfctl.dead; i++) {
		char buf[16];
		struct pollfd p = { .fd = perfctl.ack[i], .events = POLLIN };
		size_t len = strlen(cmd);
		ssize_t w;

		do
			w = write(perfctl.ctl[i], cmd, len);
		while (w < 0 && errno == EINTR);
		if (w != (ssize_t)len) {
			case_note("perf control: cannot write '%s': %s", cmd, strerror(errno));
			perfctl.dead = 1;
			break;
		}
		if (poll(&p, 1, PERF_ACK_TIMEOUT_MS) != 1 ||
		    read(perfctl.ack[i], buf, sizeof(buf)) <= 0) {
			case_note("perf control: no ack for '%s'", cmd);
			perfctl.dead = 1;
		}
	}
}

void case_measure_begin(void)
{
	if (!perfctl.parsed)
		perfctl_parse();
	if (perfctl.on || !perfctl.n)
		return;
	perfctl.on = 1;
	perfctl_send("enable\n");
}

void case_measure_end(void)
{
	if (!perfctl.on)
		return;
	perfctl.on = 0;
	perfctl_send("disable\n");
}
