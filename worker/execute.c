#include "execute.h"
#include "hostrun.h"
#include "initramfs.h"
#include "kernel.h"
#include "monitors.h"
#include "usersyms.h"
#include "parse/perf_fold.h"
#include "runcmd.h"
#include "parse/parse.h"
#include "worker/tools.h"
#include "qemu.h"
#include "runlogs.h"
#include "wlog.h"
#include "xalloc.h"
#include "names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOG_TAIL_LEN (16u << 10)
#define MAX_CASE_ARGS 64
#define KVM_PROBE_S 20 /* a working KVM reaches /init in ~1 s; a nested one here hung in the BIOS */

#define MARK_INIT "==== regtrack-init release="
#define MARK_BEGIN "==== regtrack-result-begin ===="
#define MARK_END "==== regtrack-result-end "
#define MARK_PROFILE_BEGIN "==== regtrack-profile-begin "
#define MARK_PROFILE_END "==== regtrack-profile-end ===="

static void report(phase_fn phase, void *ctx, const char *name, double progress, const char *fmt,
		   ...) __attribute__((format(printf, 5, 6)));
static void report(phase_fn phase, void *ctx, const char *name, double progress, const char *fmt,
		   ...)
{
	char msg[256];
	va_list ap;

	if (!phase)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	phase(ctx, name, progress, msg);
}

/* The last LOG_TAIL_LEN bytes of s[0..len), without the '\r' a serial console adds. */
static char *tail_dup(const char *s, size_t len)
{
	char *t;
	size_t i, n = 0;

	if (len > LOG_TAIL_LEN) {
		s += len - LOG_TAIL_LEN;
		len = LOG_TAIL_LEN;
	}
	t = xmalloc(len + 1);
	for (i = 0; i < len; i++)
		if (s[i] != '\r' && s[i] != '\0')
			t[n++] = s[i];
	t[n] = '\0';
	return t;
}

static void now_rfc3339(char *dst, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(dst, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * The shortest of %.15g/%.16g/%.17g that reads back as the same double:
 * 0.2 becomes "0.2", not "0.20000000000000001". out holds 32 bytes.
 */
static const char *shortest_real(double v, char out[32])
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(out, 32, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			break;
	}
	return out;
}

/* The case's key=value words and the measure mode, from params. */
struct case_args {
	char *v[MAX_CASE_ARGS + 1];
	int n;
	int icount;
	unsigned monitors; /* MONITOR_* of the job (worker/monitors.h) */
};

static void case_args_release(struct case_args *a)
{
	while (a->n)
		free(a->v[--a->n]);
	a->v[0] = NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int case_args_from_params(struct case_args *a, json_t *params, struct err *e)
{
	const char *keys[MAX_CASE_ARGS + 1];
	const char *key;
	json_t *val;
	size_t nkeys = 0, i;
	char num[32];

	memset(a, 0, sizeof(*a));
	if (!params || json_is_null(params))
		return 0;
	if (!json_is_object(params))
		return err_setc(e, ERR_INVALID_JOB, "params", "params must be an object");
	json_object_foreach (params, key, val) {
		if (nkeys >= MAX_CASE_ARGS)
			return err_setc(e, ERR_INVALID_JOB, "params", "more than %d params",
					MAX_CASE_ARGS);
		keys[nkeys++] = key;
	}
	qsort(keys, nkeys, sizeof(keys[0]), cmp_str);
	for (i = 0; i < nkeys; i++) {
		char *word = NULL;

		val = json_object_get(params, keys[i]);
		if (!names_plain(keys[i], NAMES_PLAIN_MAX))
			goto bad;
		if (!strcmp(keys[i], "measure")) {
			const char *m = json_string_value(val);

			if (!m || (strcmp(m, "wallclock") && strcmp(m, "icount")))
				return err_setc(e, ERR_INVALID_JOB, "params.measure",
						"measure must be \"wallclock\" or \"icount\"");
			a->icount = !strcmp(m, "icount");
			continue;
		}
		if (json_is_string(val)) {
			const char *s = json_string_value(val);

			if (!*s || strpbrk(s, " \t\r\n"))
				goto bad;
			word = xstrfmt("%s=%s", keys[i], s);
		} else if (json_is_integer(val)) {
			word = xstrfmt("%s=%lld", keys[i], (long long)json_integer_value(val));
		} else if (json_is_real(val) && isfinite(json_real_value(val))) {
			word = xstrfmt("%s=%s", keys[i], shortest_real(json_real_value(val), num));
		} else if (json_is_boolean(val)) {
			word = xstrfmt("%s=%d", keys[i], json_is_true(val) ? 1 : 0);
		} else {
			goto bad;
		}
		a->v[a->n++] = word;
		a->v[a->n] = NULL;
		continue;
bad:
		case_args_release(a);
		return err_setc(e, ERR_INVALID_JOB, keys[i], "bad param '%s'", keys[i]);
	}
	return 0;
}

/*
 * "TESTCASE.KEY" -> [values] from the case's "key: value" text; a tool
 * case's output by its parser (worker/tools.h); NULL when none.
 */
static json_t *metrics_from_text(const char *testcase, const char *text, size_t len)
{
	json_t *doc, *metrics, *out, *vals;
	const struct tool_case *tool = tools_case(testcase);
	const char *key;
	size_t i;

	if (tool)
		return tools_metrics(tool, text, len);
	doc = parse_output_kv_trusted(text, len);
	if (!doc)
		return NULL;
	metrics = json_object_get(doc, "metrics");
	if (!json_is_object(metrics) || !json_object_size(metrics)) {
		json_decref(doc);
		return NULL;
	}
	out = json_object();
	json_object_foreach (metrics, key, vals) {
		json_t *arr = json_array();
		json_t *v;

		json_array_foreach (vals, i, v)
			if (json_is_number(v) && isfinite(json_number_value(v)))
				json_array_append_new(arr, json_real(json_number_value(v)));
		if (json_array_size(arr)) {
			char *name = xstrfmt("%s.%s", testcase, key);

			json_object_set_new(out, name, arr);
			free(name);
		} else {
			json_decref(arr);
		}
	}
	json_decref(doc);
	if (!json_object_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* run's "tools": the versions a tool case printed in log (worker/tools.h), when any */
static void add_tool_versions(json_t *run, const char *log, size_t len)
{
	json_t *v = log ? tools_versions(log, len) : NULL;

	if (v)
		json_object_set_new(run, "tools", v);
}

/*
 * One run's own fields of the result document (completion.c adds the
 * job's and the machine's). Beside "metrics", "started_at", "duration_s",
 * "mode", "accel" (kvm, tcg or host), "kernel_release", "guest_elapsed_s"
 * and "cpus" (CPUs the case saw), a run in a qemu guest (guest_arch not
 * NULL) describes the test machine it ran on, since the document's
 * "machine" is the host (additive, since issue 7; older documents lack it):
 *   "guest": {"arch": "arm64", "nr_cpus": 1, "memory_mb": 512,
 *             "accel": "tcg", "icount": true}
 * nr_cpus and memory_mb are what qemu was given (-smp, -m).
 */
static json_t *run_object(json_t *metrics, const char *started_at, double duration_s,
			  const char *mode, const char *accel, const char *release, double guest_s,
			  int cpus, const char *guest_arch, int guest_mem_mb)
{
	json_t *run = json_object();

	if (guest_arch)
		json_object_set_new(run, "guest",
				    json_pack("{s:s, s:i, s:i, s:s, s:b}", "arch", guest_arch,
					      "nr_cpus", cpus, "memory_mb", guest_mem_mb, "accel",
					      accel, "icount", !strcmp(mode, "icount")));

	json_object_set_new(run, "metrics", metrics);
	json_object_set_new(run, "started_at", json_string(started_at));
	json_object_set_new(run, "duration_s", json_real(duration_s));
	json_object_set_new(run, "mode", json_string(mode));
	json_object_set_new(run, "accel", json_string(accel));
	json_object_set_new(run, "kernel_release", json_string(release ? release : ""));
	if (guest_s >= 0)
		json_object_set_new(run, "guest_elapsed_s", json_real(guest_s));
	json_object_set_new(run, "cpus", json_integer(cpus));
	return run;
}

/*
 * 1 when hash is the image_sha256 of an entry of skip (the lease's
 * skip_images), its commit copied to commit[41]; 0 otherwise.
 */
static int same_image(const json_t *skip, const char *hash, char commit[41])
{
	const json_t *ent;
	size_t i;

	if (!hash[0])
		return 0;
	json_array_foreach (skip, i, ent) {
		const char *h = json_string_value(json_object_get(ent, "image_sha256"));
		const char *c = json_string_value(json_object_get(ent, "commit"));

		if (h && c && strlen(c) == 40 && !strcmp(h, hash)) {
			memcpy(commit, c, 41);
			return 1;
		}
	}
	return 0;
}

/* 1 (and e filled: "cancelled") when the agent asked the job to stop. */
static int is_cancelled(const struct worker_env *env, struct err *e)
{
	if (!env->cancel || !*env->cancel)
		return 0;
	err_setc(e, ERR_CANCELLED, "", "job cancelled");
	return 1;
}

static void set_status(struct job_outcome *out, const char *status)
{
	snprintf(out->status, sizeof(out->status), "%s", status);
}

/* --- host mode ------------------------------------------------------------ */

#define HOST_SCRIPT_CAP (256u << 20)

/*
 * Host mode's monitors, after the case ran under perf_wrap: `perf script`
 * of DIR/perf.data folded here (perf_fold_script, the same bound as the
 * guest's), DIR/perf-stat.txt read, both into run (profile_fill_run).
 * Returns 0, or -1 with e filled (perf script could not start: ERR_SPAWN).
 */
static int host_monitors(json_t *run, unsigned monitors, const char *perf, const char *dir,
			 const struct worker_env *env, struct err *e)
{
	struct perf_fold_result fr = { 0 };
	struct buf stat = BUF_INIT(0);
	char *data = xstrfmt("%s/perf.data", dir), *statp = xstrfmt("%s/perf-stat.txt", dir);
	int rc = 0, have_stat = 0;

	if (monitors & MONITOR_PERF_PROFILE) {
		const char *argv[] = { perf, "script", "-i", data, "-F", "comm,tid,ip,sym", NULL };
		struct runcmd cmd;

		runcmd_init(&cmd, argv, env->timeout_run_s > 0 ? env->timeout_run_s : 600);
		cmd.out.cap = HOST_SCRIPT_CAP;
		cmd.keep_tail = 0;
		cmd.cancel = env->cancel;
		rc = runcmd_run(&cmd, e);
		if (!rc && runcmd_ok(&cmd))
			perf_fold_script(cmd.out.data, cmd.out.len, PERF_FOLD_MAX_BYTES, NULL, &fr);
		runcmd_release(&cmd);
	}
	if (!rc && (monitors & MONITOR_PERF_STAT))
		have_stat = !buf_read_file(&stat, statp);
	if (!rc)
		rc = profile_fill_run(run, monitors, fr.samples ? fr.folded : NULL, fr.len,
				      have_stat ? stat.data : NULL, stat.len, e);
	unlink(data);
	unlink(statp);
	perf_fold_result_release(&fr);
	buf_release(&stat);
	free(data);
	free(statp);
	return rc;
}

/*
 * Keeps the newest env->keep_logs logs named PREFIX-JOB-RUN.log of dir: a
 * log that cannot be removed is the worker's warning, never the job's failure.
 */
static void prune_logs(const char *dir, const char *prefix, const struct worker_env *env)
{
	struct err e;

	if (runlogs_prune(dir, prefix, env->keep_logs, &e) < 0)
		wlog_warn("keep_logs: %s", e.message);
}

/* Writes one host run's log to DIR/run-JOB-RUN.log; a failed write is a warning only. */
static void write_run_log(const char *dir, long long job, int run, const struct buf *log)
{
	char *path = xstrfmt("%s/run-%lld-%d.log", dir, job, run);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, log->data, log->len) != (ssize_t)log->len)
		wlog_warn("cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(path);
}

static int execute_host(const struct job_spec *spec, const struct worker_env *env,
			const struct case_args *args, phase_fn phase, void *ctx,
			struct job_outcome *out, struct err *e)
{
	int i, r, repeat = spec->repeat > 0 ? spec->repeat : 1;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char *tmpdir = xstrfmt("%s/run/host", env->work_dir), kcc[64];
	struct buf version = BUF_INIT(4096), warnings = BUF_INIT(4096);
	json_t *run;
	int rc = 0;

	if (mkdir(tmpdir, 0755) < 0 && errno != EEXIST) {
		char *parent = xstrfmt("%s/run", env->work_dir);

		if (mkdir(parent, 0755) < 0 && errno != EEXIST) {
			err_setc(e, ERR_IO, parent, "cannot create '%s': %s", parent,
				 strerror(errno));
			free(parent);
			free(tmpdir);
			return -1;
		}
		free(parent);
		if (mkdir(tmpdir, 0755) < 0 && errno != EEXIST) {
			err_setc(e, ERR_IO, tmpdir, "cannot create '%s': %s", tmpdir,
				 strerror(errno));
			free(tmpdir);
			return -1;
		}
	}
	if (args->icount) {
		set_status(out, "run-failed");
		out->log_tail = xstrdup(
			"regtrack: measure \"icount\" needs qemu; host mode measures wall-clock time\n");
		free(tmpdir);
		return 0;
	}
	set_status(out, "ok");
	/* what the case runs on: the job's commit and compiler are labels here (issue 21) */
	if (buf_read_file(&version, "/proc/version") == 0)
		version.data[strcspn(version.data, "\n")] = '\0';
	hostrun_kernel_compiler(version.data, kcc, sizeof(kcc));
	for (i = 0; i < repeat; i++) {
		struct hostrun h;
		struct perf_wrap w;
		char started[32], desc[64];
		json_t *metrics;
		struct buf log = BUF_INIT(0);
		const char *perf = getenv("REGTRACK_PERF");

		if (!perf || !*perf)
			perf = "perf";
		memset(&w, 0, sizeof(w));
		if (args->monitors && perf_wrap_init(&w, perf, args->monitors, tmpdir, e) < 0) {
			perf_wrap_release(&w);
			rc = -1;
			break;
		}

		report(phase, ctx, "run", (double)i / repeat, "host run %d/%d of %s", i + 1, repeat,
		       spec->testcase);
		hostrun_init(&h);
		h.cases_dir = env->cases_dir;
		h.arch = env->arch;
		h.testcase = spec->testcase;
		h.args = (const char *const *)args->v;
		h.cwd = tmpdir;
		h.timeout_s = env->timeout_run_s;
		h.cancel = env->cancel;
		if (args->monitors) {
			h.prefix = w.argv;
			h.env = w.env;
		}
		now_rfc3339(started, sizeof(started));
		r = hostrun_run(&h, e);
		perf_wrap_release(&w); /* the pipes: perf and the case are gone */
		if (r < 0 || is_cancelled(env, e)) {
			hostrun_release(&h);
			rc = -1;
			break;
		}
		if (i == 0 && hostrun_kernel_check(h.release, version.data, spec->commit,
						   spec->compiler, &warnings))
			wlog_warn("job %lld: %.*s", spec->id, (int)strcspn(warnings.data, "\n"),
				  warnings.data);
		if (buf_add(&log, warnings.data, warnings.len) ||
		    buf_addf(&log, "$ %s/%s/%s", env->cases_dir, env->arch, spec->testcase) ||
		    buf_addstr(&log, "\n") || buf_add(&log, h.cmd.out.data, h.cmd.out.len) ||
		    buf_add(&log, h.cmd.err.data, h.cmd.err.len) ||
		    buf_addf(&log, "regtrack: case ended: %s\n",
			     runcmd_describe(&h.cmd, desc, sizeof(desc))))
			abort(); /* uncapped */
		write_run_log(tmpdir, spec->id, i + 1, &log);
		free(out->log_tail);
		out->log_tail = tail_dup(log.data, log.len);
		buf_release(&log);
		metrics = runcmd_ok(&h.cmd) ?
				  metrics_from_text(spec->testcase, h.cmd.out.data, h.cmd.out.len) :
				  NULL;
		if (!metrics) {
			set_status(out, "run-failed");
			hostrun_release(&h);
			break;
		}
		run = run_object(metrics, started, h.cmd.elapsed_s, "wallclock", "host", h.release,
				 -1, (int)cpus, NULL, 0);
		add_tool_versions(run, h.cmd.err.data, h.cmd.err.len);
		json_object_set_new(run, "host_kernel",
				    json_pack("{s:s, s:s, s:s?}", "release", h.release, "version",
					      version.data, "compiler", *kcc ? kcc : NULL));
		if (args->monitors &&
		    host_monitors(run, args->monitors, perf, tmpdir, env, e) < 0) {
			json_decref(run);
			hostrun_release(&h);
			rc = -1;
			break;
		}
		json_array_append_new(out->runs, run);
		hostrun_release(&h);
	}
	prune_logs(tmpdir, "run", env);
	buf_release(&version);
	buf_release(&warnings);
	free(tmpdir);
	return rc;
}

/* --- kernel mode ---------------------------------------------------------- */

static int build_initramfs(const char *path, const struct worker_env *env,
			   const struct job_spec *spec, const struct case_args *args,
			   int timeout_run_s, unsigned monitors, const char *perf, struct err *e)
{
	char *dir = xstrfmt("%s/%s", env->cases_dir, env->arch);
	char *init = xstrfmt("%s/init", dir);
	char *casebin = xstrfmt("%s/%s", dir, spec->testcase);
	struct initramfs ir;
	struct buf job = BUF_INIT(0), syms = BUF_INIT(0);
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int rc = -1, i;

	if (stat(init, &st) < 0 || !S_ISREG(st.st_mode)) {
		err_setc(e, ERR_IO, init, "no /init binary '%s' (make cases)", init);
		goto out_nofree;
	}
	if (stat(casebin, &st) < 0 || !S_ISREG(st.st_mode)) {
		err_setc(e, ERR_INVALID_JOB, casebin, "no case binary '%s'", casebin);
		goto out_nofree;
	}
	initramfs_init(&ir);
	initramfs_add_dir(&ir, "dev", 0755);
	initramfs_add_node(&ir, "dev/console", S_IFCHR, 0600, 5, 1);
	initramfs_add_dir(&ir, "proc", 0755);
	initramfs_add_dir(&ir, "sys", 0755);
	initramfs_add_dir(&ir, "tmp", 01777);
	initramfs_add_dir(&ir, "regtrack", 0755);
	initramfs_add_dir(&ir, "cases", 0755);
	if (initramfs_add_path(&ir, "init", 0755, init, e) < 0)
		goto out;
	/* every case binary: a case may run another (execl runs itself) */
	d = opendir(dir);
	if (!d) {
		err_setc(e, ERR_IO, dir, "cannot read '%s': %s", dir, strerror(errno));
		goto out;
	}
	{
		char *names[256];
		int n = 0;

		while ((de = readdir(d)) && n < 256) {
			if (de->d_name[0] == '.' || !strcmp(de->d_name, "init"))
				continue;
			names[n++] = xstrdup(de->d_name);
		}
		qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
		for (i = 0; i < n; i++) {
			char *src = xstrfmt("%s/%s", dir, names[i]);
			char *dst = xstrfmt("cases/%s", names[i]);
			int r = 0;

			if (!stat(src, &st) && S_ISREG(st.st_mode)) {
				r = initramfs_add_path(&ir, dst, 0755, src, e);
				if (!r && (monitors & MONITOR_PERF_PROFILE)) {
					/* user frames' names (usersyms.h); a binary
					 * libelf cannot read just leaves them [unknown] */
					char *dso = xstrfmt("/%s", dst);
					struct err ue;

					err_clear(&ue);
					if (usersyms_add(&syms, src, dso, &ue) < 0)
						err_clear(&ue);
					free(dso);
				}
			}
			free(src);
			free(dst);
			if (r < 0) {
				while (i < n)
					free(names[i++]);
				goto out;
			}
			free(names[i]);
		}
	}
	if (buf_addf(&job, "case %s\ntimeout %d\n", spec->testcase, timeout_run_s))
		abort();
	for (i = 0; i < args->n; i++)
		if (buf_addf(&job, "arg %s\n", args->v[i]))
			abort();
	if (monitors) {
		/* only then: an unprofiled initramfs has the same entries as before */
		if ((monitors & MONITOR_PERF_PROFILE) && buf_addstr(&job, "monitor perf-profile\n"))
			abort();
		if ((monitors & MONITOR_PERF_STAT) && buf_addstr(&job, "monitor perf-stat\n"))
			abort();
		initramfs_add_dir(&ir, "bin", 0755);
		if (initramfs_add_path(&ir, "bin/perf", 0755, perf, e) < 0)
			goto out;
		if (syms.len)
			initramfs_add_file(&ir, "regtrack/usersyms", 0644, syms.data, syms.len);
	}
	/* a tool case's tool with its libraries and loader (only then: the
	 * other cases' initramfs stays as small as before) */
	if (tools_case(spec->testcase) &&
	    tools_add_root(&ir, env->cases_dir, env->arch, tools_case(spec->testcase), e) < 0)
		goto out;
	initramfs_add_file(&ir, "regtrack/job", 0644, job.data, job.len);
	initramfs_finish(&ir);
	rc = initramfs_write(&ir, path, e);
out:
	if (d)
		closedir(d);
	initramfs_release(&ir);
	buf_release(&job);
	buf_release(&syms);
out_nofree:
	free(casebin);
	free(init);
	free(dir);
	return rc;
}

/* What one boot printed: the parsed markers of the serial log. */
struct boot_result {
	int reached_init, has_end;
	int exit_code, signal, timed_out;
	double guest_s;
	char release[128];
	struct buf text; /* the case's stdout: "rt| " lines, prefix stripped */
};

static void parse_serial(const char *log, struct boot_result *r)
{
	const char *p = strstr(log, MARK_INIT), *begin, *end, *line;

	memset(r, 0, sizeof(*r));
	buf_init(&r->text, 0);
	r->guest_s = -1;
	if (!p)
		return;
	r->reached_init = 1;
	p += strlen(MARK_INIT);
	snprintf(r->release, sizeof(r->release), "%.*s", (int)strcspn(p, " \r\n"), p);
	begin = strstr(p, MARK_BEGIN);
	if (!begin)
		return;
	end = strstr(begin, MARK_END);
	if (!end)
		return;
	r->has_end = 1;
	{
		long long ns = 0;

		if (sscanf(end + strlen(MARK_END), "exit=%d signal=%d timeout=%d elapsed_ns=%lld",
			   &r->exit_code, &r->signal, &r->timed_out, &ns) != 4) {
			r->has_end = 0;
			return;
		}
		r->guest_s = ns / 1e9;
	}
	for (line = begin; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		if (n >= 4 && !memcmp(line, "rt| ", 4)) {
			size_t m = n - 4;

			while (m && line[4 + m - 1] == '\r')
				m--;
			if (buf_add(&r->text, line + 4, m) || buf_addch(&r->text, '\n'))
				abort();
		}
		line += n + 1;
	}
}

/*
 * The log tail of a boot: tail_dup() of the serial log without the folded
 * stacks (up to 4 MiB, in the run's "profile"), so the tail still shows
 * the result block and the end of the boot.
 */
static char *serial_tail(const char *log, size_t len)
{
	const char *b = strstr(log, MARK_PROFILE_BEGIN), *end, *after;
	struct buf t = BUF_INIT(0);
	char *tail;

	if (!b || !(end = strstr(b, MARK_PROFILE_END)))
		return tail_dup(log, len);
	after = strchr(b, '\n');
	if (!after || after > end)
		after = end;
	if (buf_add(&t, log, (size_t)(after - log)) ||
	    buf_addstr(&t, "\n(regtrack: the folded stacks are left out here: see the run's "
			   "profile)\n") ||
	    buf_add(&t, end, len - (size_t)(end - log)))
		abort(); /* uncapped */
	tail = tail_dup(t.data, t.len);
	buf_release(&t);
	return tail;
}

/* The monitors' part of a kernel-mode run (profile_fill_run) from its serial log. */
static int add_monitors(json_t *run, unsigned monitors, const char *log)
{
	char *folded, *stat;
	size_t flen, slen;
	struct err e;
	int rc;

	profile_from_serial(log, &folded, &flen, &stat, &slen);
	rc = profile_fill_run(run, monitors, folded, flen, stat, slen, &e);
	free(folded);
	free(stat);
	return rc;
}

static int execute_kernel(const struct job_spec *spec, const struct worker_env *env,
			  const struct case_args *args, phase_fn phase, void *ctx,
			  struct job_outcome *out, struct err *e)
{
	struct kernel k;
	char *runs_dir = NULL, *initrd = NULL, *ccache = NULL, *kcdir = NULL, *work = NULL;
	const char *accel = "tcg";
	char why[320] = "";
	int rc = -1, r, i, repeat = spec->repeat > 0 ? spec->repeat : 1;
	int run_s = env->timeout_run_s > 0 ? env->timeout_run_s : 600;
	int boot_s = env->timeout_boot_s > 0 ? env->timeout_boot_s : 300;

	kernel_init(&k);
	/* make runs in the source dir: every path it gets must be absolute */
	work = realpath(env->work_dir, NULL);
	if (!work) {
		err_setc(e, ERR_IO, env->work_dir, "cannot resolve '%s': %s", env->work_dir,
			 strerror(errno));
		goto out;
	}
	k.work_dir = work;
	k.tree = spec->tree;
	k.url = spec->url;
	k.commit = spec->commit;
	k.patches = spec->patches;
	k.kconfig = spec->kconfig;
	k.compiler = spec->compiler;
	k.arch = env->arch;
	if (env->ccache_dir && env->ccache_dir[0] != '/') {
		char *cwd = getcwd(NULL, 0);

		ccache = xstrfmt("%s/%s", cwd ? cwd : ".", env->ccache_dir);
		free(cwd);
	} else {
		ccache = env->ccache_dir ? xstrdup(env->ccache_dir) : xstrfmt("%s/ccache", work);
	}
	k.ccache_dir = ccache;
	kcdir = kernel_find_kconfig_dir(NULL, env->cases_dir);
	if (!kcdir) {
		err_setc(e, ERR_IO, "kconfig", "no kconfig fragment dir found");
		goto out;
	}
	k.kconfig_dir = kcdir;
	k.make_jobs = env->make_jobs;
	k.timeout_fetch_s = env->timeout_fetch_s;
	k.timeout_build_s = env->timeout_build_s;
	k.cancel = env->cancel;
	k.sandbox = env->sandbox;

	report(phase, ctx, "fetch", 0, "%s %s", spec->tree ? spec->tree : "",
	       spec->commit ? spec->commit : "");
	if (kernel_fetch(&k, e) < 0) {
		if (is_cancelled(env, e))
			goto out;
		if (!strcmp(e->code, "apply_failed")) {
			/* the series does not apply on base: an outcome, with git's words */
			char *tail = tail_dup(k.log.data, k.log.len);

			set_status(out, "run-failed");
			out->log_tail = xstrfmt("%s\napply-failed: %s\n", tail, e->message);
			free(tail);
			rc = 0;
		}
		goto out;
	}
	if (spec->patches) {
		memcpy(out->commit, k.sha, sizeof(out->commit));
		memcpy(out->patch_id, k.patch_id, sizeof(out->patch_id));
		out->patch_ids = k.patch_ids ? xstrdup(k.patch_ids) : NULL;
	}
	report(phase, ctx, "configure", 0, "%s at %.12s", spec->kconfig, k.sha);
	r = kernel_configure(&k, e);
	if (!r) {
		report(phase, ctx, "build", 0, "make -j%d %s",
		       env->make_jobs > 0 ? env->make_jobs : 1, spec->kconfig);
		r = kernel_build(&k, e);
	}
	if (r) {
		if (r < 0 || is_cancelled(env, e))
			goto out;
		set_status(out, "build-failed");
		out->log_tail = tail_dup(k.log.data, k.log.len);
		if (k.config_text)
			out->kconfig_text = xstrdup(k.config_text);
		rc = 0;
		goto out;
	}
	out->kconfig_text = xstrdup(k.config_text ? k.config_text : "");
	memcpy(out->image_sha256, k.image_sha256, sizeof(out->image_sha256));
	if (same_image(spec->skip_images, k.image_sha256, out->same_image_as)) {
		set_status(out, "same-image");
		rc = 0;
		goto out;
	}

	if (args->monitors) {
		report(phase, ctx, "perf", 0, "static perf from tools/perf at %.12s", k.sha);
		r = kernel_build_perf(&k, e);
		if (r) {
			if (r < 0 || is_cancelled(env, e))
				goto out;
			set_status(out, "build-failed");
			out->log_tail = tail_dup(k.log.data, k.log.len);
			rc = 0;
			goto out;
		}
	}

	report(phase, ctx, "initramfs", 0, "%s", spec->testcase);
	runs_dir = xstrfmt("%s/run/%s-%s", env->work_dir, spec->tree, spec->kconfig);
	{
		char *parent = xstrfmt("%s/run", env->work_dir);

		if ((mkdir(parent, 0755) < 0 && errno != EEXIST) ||
		    (mkdir(runs_dir, 0755) < 0 && errno != EEXIST)) {
			err_setc(e, ERR_IO, runs_dir, "cannot create '%s': %s", runs_dir,
				 strerror(errno));
			free(parent);
			goto out;
		}
		free(parent);
	}
	initrd = xstrfmt("%s/initramfs.cpio", runs_dir);
	if (build_initramfs(initrd, env, spec, args, run_s, args->monitors, k.perf, e) < 0)
		goto out;

	if (is_cancelled(env, e))
		goto out;
	if (!args->icount) {
		report(phase, ctx, "boot", 0, "probing kvm");
		accel = qemu_kvm_usable(env->arch, k.image, initrd, "rt.case=none", MARK_END,
					KVM_PROBE_S, why, sizeof(why)) ?
				"kvm" :
				"tcg";
	}

	set_status(out, "ok");
	for (i = 0; i < repeat; i++) {
		struct boot_result br;
		struct qemu q;
		char started[32], *logpath;
		json_t *metrics = NULL;
		int fd;

		report(phase, ctx, "boot", (double)i / repeat, "boot %d/%d (%s, %s%s%s)", i + 1,
		       repeat, accel, args->icount ? "icount" : "wallclock", why[0] ? ": " : "",
		       why);
		logpath = xstrfmt("%s/serial-%lld-%d.log", runs_dir, spec->id, i + 1);
		fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		free(logpath);
		qemu_init(&q);
		q.arch = env->arch;
		q.kernel = k.image;
		q.initrd = initrd;
		q.accel = accel;
		q.icount = args->icount;
		q.mem_mb = env->qemu_mem_mb;
		q.cpus = env->qemu_cpus;
		q.timeout_s = boot_s + run_s;
		q.log_fd = fd;
		q.cancel = env->cancel;
		now_rfc3339(started, sizeof(started));
		r = qemu_run(&q, e);
		if (fd >= 0)
			close(fd);
		if (r < 0 || is_cancelled(env, e)) {
			qemu_release(&q);
			goto out;
		}
		free(out->log_tail);
		out->log_tail = serial_tail(q.log.data, q.log.len);
		parse_serial(q.log.data, &br);
		if (!br.reached_init) {
			set_status(out, "boot-failed");
		} else if (!br.has_end || br.exit_code || br.signal || br.timed_out) {
			set_status(out, "run-failed");
		} else {
			metrics = metrics_from_text(spec->testcase, br.text.data, br.text.len);
			if (!metrics)
				set_status(out, "run-failed");
		}
		if (metrics) {
			json_t *run;

			report(phase, ctx, "run", (double)(i + 1) / repeat,
			       "run %d/%d done in %.1f s", i + 1, repeat, q.elapsed_s);
			run = run_object(metrics, started, q.elapsed_s,
					 args->icount ? "icount" : "wallclock", accel,
					 br.release[0] ? br.release : k.release, br.guest_s,
					 args->icount	    ? 1 :
					 env->qemu_cpus > 0 ? env->qemu_cpus :
							      2,
					 env->arch, env->qemu_mem_mb > 0 ? env->qemu_mem_mb : 512);
			add_tool_versions(run, q.log.data, q.log.len);
			if (args->monitors && add_monitors(run, args->monitors, q.log.data) < 0) {
				json_decref(run);
				set_status(out, "run-failed");
			} else {
				json_array_append_new(out->runs, run);
			}
		}
		buf_release(&br.text);
		qemu_release(&q);
		if (strcmp(out->status, "ok"))
			break;
	}
	{
		json_t *run;
		size_t j;

		json_array_foreach (out->runs, j, run)
			json_object_set_new(run, "image_sha256", json_string(k.image_sha256));
	}
	rc = 0;
out:
	if (runs_dir)
		prune_logs(runs_dir, "serial", env);
	free(initrd);
	free(runs_dir);
	free(kcdir);
	free(ccache);
	free(work);
	kernel_release(&k);
	return rc;
}

int job_execute(const struct job_spec *spec, const struct worker_env *env, phase_fn phase,
		void *ctx, struct job_outcome *out, struct err *e)
{
	struct case_args args;
	int rc;

	memset(out, 0, sizeof(*out));
	out->runs = json_array();
	set_status(out, "run-failed");
	if (!spec || !env || !env->work_dir || !env->arch || !env->cases_dir)
		return err_setc(e, ERR_INVALID_JOB, "", "job spec or worker env incomplete");
	if (!names_plain(spec->testcase, NAMES_PLAIN_MAX) || !strcmp(spec->testcase, "init"))
		return err_setc(e, ERR_INVALID_JOB, "testcase", "bad testcase '%s'",
				spec->testcase ? spec->testcase : "");
	if (spec->repeat < 0 || spec->repeat > 1000)
		return err_setc(e, ERR_INVALID_JOB, "repeat", "repeat must be 1..1000");
	if (!spec->kconfig)
		return err_setc(e, ERR_INVALID_JOB, "kconfig", "no kconfig");
	if (strcmp(spec->kconfig, "host") && !kernel_kconfig_known(spec->kconfig, env->arch))
		return err_setc(e, ERR_INVALID_JOB, "kconfig",
				"kconfig '%s' cannot be built for %s", spec->kconfig, env->arch);
	{
		struct stat st;

		if (stat(env->work_dir, &st) < 0 && mkdir(env->work_dir, 0755) < 0)
			return err_setc(e, ERR_IO, env->work_dir, "cannot create '%s': %s",
					env->work_dir, strerror(errno));
	}
	if (case_args_from_params(&args, spec->params, e) < 0)
		return -1;
	if (monitors_parse(spec->monitors, &args.monitors, e) < 0) {
		case_args_release(&args);
		return -1;
	}
	if (!strcmp(spec->kconfig, "host") && spec->patches) {
		case_args_release(&args);
		return err_setc(e, ERR_INVALID_JOB, "patches",
				"host mode runs the running kernel: patches cannot be applied to it");
	}
	if (!strcmp(spec->kconfig, "host"))
		rc = execute_host(spec, env, &args, phase, ctx, out, e);
	else
		rc = execute_kernel(spec, env, &args, phase, ctx, out, e);
	case_args_release(&args);
	/* the modes set "ok" before their runs: an error among them is no success */
	if (rc < 0 && !strcmp(out->status, "ok"))
		set_status(out, "run-failed");
	return rc;
}

void job_outcome_release(struct job_outcome *out)
{
	json_decref(out->runs);
	free(out->log_tail);
	free(out->kconfig_text);
	free(out->patch_ids);
	out->patch_ids = NULL;
	out->runs = NULL;
	out->log_tail = NULL;
	out->kconfig_text = NULL;
}
