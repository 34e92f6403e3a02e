#include "execute.h"
#include "hostrun.h"
#include "initramfs.h"
#include "kernel.h"
#include "kexec.h"
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
#include "vmspec.h"
#include "execute_int.h"

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
#define KVM_PROBE_S 20 /* a working KVM reaches /init in ~1 s; a nested one here hung in the BIOS */

void exec_report(phase_fn phase, void *ctx, const char *name, double progress, const char *fmt, ...)
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
char *exec_tail_dup(const char *s, size_t len)
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

void exec_now_rfc3339(char *dst, size_t n)
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
	{
		struct err ve;

		if (vmspec_parse(params, "", &a->vm, &ve) < 0)
			return err_setc(e, ERR_INVALID_JOB, ve.detail, "%s", ve.message);
	}
	a->icount = a->vm.icount;
	for (i = 0; i < nkeys; i++) {
		char *word = NULL;

		val = json_object_get(params, keys[i]);
		if (!names_plain(keys[i], NAMES_PLAIN_MAX))
			goto bad;
		if (vmspec_is_param(keys[i]))
			continue; /* the worker's, not the case's */
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

/* see execute_int.h */
json_t *exec_metrics_from_text(const char *testcase, const char *text, size_t len)
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

/* see execute_int.h */
void exec_add_tool_versions(json_t *run, const char *log, size_t len)
{
	json_t *v = log ? tools_versions(log, len) : NULL;

	if (v)
		json_object_set_new(run, "tools", v);
}

/*
 * One run's own fields of the result document (completion.c adds the
 * job's and the machine's). Beside "metrics", "started_at", "duration_s",
 * "mode", "accel" (kvm, tcg or host), "kernel_release", "guest_elapsed_s"
 * and "cpus" (CPUs the case saw), a run in a qemu guest (guest not NULL:
 * qemu_guest_json()) describes the test machine it ran on, since the
 * document's "machine" is the host (additive: older
 * documents lack it):
 *   "guest": {"arch": "arm64", "nr_cpus": 1, "memory_mb": 512,
 *             "accel": "tcg", "icount": true, "cpu_model": "max",
 *             "pinned": null, "hugepages": null, "numa": null}
 * nr_cpus and memory_mb are what qemu was given (-smp, -m). Takes guest.
 */
json_t *exec_run_object(json_t *metrics, const char *started_at, double duration_s,
			const char *mode, const char *accel, const char *release, double guest_s,
			int cpus, json_t *guest)
{
	json_t *run = json_object();

	if (guest)
		json_object_set_new(run, "guest", guest);

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
int exec_is_cancelled(const struct worker_env *env, struct err *e)
{
	if (!env->cancel || !*env->cancel)
		return 0;
	err_setc(e, ERR_CANCELLED, "", "job cancelled");
	return 1;
}

void exec_set_status(struct job_outcome *out, const char *status)
{
	snprintf(out->status, sizeof(out->status), "%s", status);
}

/*
 * Keeps the newest env->keep_logs logs named PREFIX-JOB-RUN.log of dir: a
 * log that cannot be removed is the worker's warning, never the job's failure.
 */
void exec_prune_logs(const char *dir, const char *prefix, const struct worker_env *env)
{
	struct err e;

	if (runlogs_prune(dir, prefix, env->keep_logs, &e) < 0)
		wlog_warn("keep_logs: %s", e.message);
}

/* --- kernel mode ---------------------------------------------------------- */

/*
 * The log tail of a boot: exec_tail_dup() of the serial log without the folded
 * stacks (up to 4 MiB, in the run's "profile"), so the tail still shows
 * the result block and the end of the boot.
 */
static char *serial_tail(const char *log, size_t len)
{
	const char *b = strstr(log, MARK_PROFILE_BEGIN), *end, *after;
	struct buf t = BUF_INIT(0);
	char *tail;

	if (!b || !(end = strstr(b, MARK_PROFILE_END)))
		return exec_tail_dup(log, len);
	after = strchr(b, '\n');
	if (!after || after > end)
		after = end;
	if (buf_add(&t, log, (size_t)(after - log)) ||
	    buf_addstr(&t, "\n(regtrack: the folded stacks are left out here: see the run's "
			   "profile)\n") ||
	    buf_add(&t, end, len - (size_t)(end - log)))
		abort(); /* uncapped */
	tail = exec_tail_dup(t.data, t.len);
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
	if (spec->boot_image) {
		/* a kernel another worker built: its bytes, checked against the name */
		if (!args->vm.accel || strcmp(args->vm.accel, "kexec")) {
			err_setc(e, ERR_INVALID_JOB, "image_sha256",
				 "a stored image is booted by a bare-metal job (accel kexec) only");
			goto out;
		}
		exec_report(phase, ctx, "fetch", 0, "image %.12s", spec->boot_image);
		if (kexec_image_fetch(env->kexec, env->work_dir, spec->boot_image, &k.image, e))
			goto out;
		snprintf(k.image_sha256, sizeof(k.image_sha256), "%s", spec->boot_image);
		memcpy(out->image_sha256, k.image_sha256, sizeof(out->image_sha256));
		out->kconfig_text = xstrdup("");
		goto initramfs;
	}
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

	exec_report(phase, ctx, "fetch", 0, "%s %s", spec->tree ? spec->tree : "",
		    spec->commit ? spec->commit : "");
	if (kernel_fetch(&k, e) < 0) {
		if (exec_is_cancelled(env, e))
			goto out;
		if (!strcmp(e->code, "apply_failed")) {
			/* the series does not apply on base: an outcome, with git's words */
			char *tail = exec_tail_dup(k.log.data, k.log.len);

			exec_set_status(out, "run-failed");
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
	exec_report(phase, ctx, "configure", 0, "%s at %.12s", spec->kconfig, k.sha);
	r = kernel_configure(&k, e);
	if (!r) {
		exec_report(phase, ctx, "build", 0, "make -j%d %s",
			    env->make_jobs > 0 ? env->make_jobs : 1, spec->kconfig);
		r = kernel_build(&k, e);
	}
	if (r) {
		if (r < 0 || exec_is_cancelled(env, e))
			goto out;
		exec_set_status(out, "build-failed");
		out->log_tail = exec_tail_dup(k.log.data, k.log.len);
		if (k.config_text)
			out->kconfig_text = xstrdup(k.config_text);
		rc = 0;
		goto out;
	}
	out->kconfig_text = xstrdup(k.config_text ? k.config_text : "");
	memcpy(out->image_sha256, k.image_sha256, sizeof(out->image_sha256));
	if (env->kexec && env->kexec->upload) {
		struct err ue;

		/* for the bare-metal hosts whose jobs name it: a failure is theirs, not this job's */
		if (kexec_image_upload(env->kexec, k.image, k.image_sha256, &ue))
			wlog_warn("job %lld: image %.12s not uploaded: %s", spec->id,
				  k.image_sha256, ue.message);
		else
			wlog_info("job %lld: image %.12s uploaded", spec->id, k.image_sha256);
	}
	if (same_image(spec->skip_images, k.image_sha256, out->same_image_as)) {
		exec_set_status(out, "same-image");
		rc = 0;
		goto out;
	}

	/* perf-bench's tool is the same static perf */
	if (args->monitors ||
	    (tools_case(spec->testcase) && tools_case(spec->testcase)->tree_perf)) {
		exec_report(phase, ctx, "perf", 0, "static perf from tools/perf at %.12s", k.sha);
		r = kernel_build_perf(&k, e);
		if (r) {
			if (r < 0 || exec_is_cancelled(env, e))
				goto out;
			exec_set_status(out, "build-failed");
			out->log_tail = exec_tail_dup(k.log.data, k.log.len);
			rc = 0;
			goto out;
		}
	}

initramfs:
	exec_report(phase, ctx, "initramfs", 0, "%s", spec->testcase);
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
	if (exec_build_initramfs(initrd, env, spec, args, run_s, args->monitors, k.perf, e) < 0)
		goto out;

	if (exec_is_cancelled(env, e))
		goto out;
	if (args->vm.accel && !strcmp(args->vm.accel, "kexec")) {
		rc = exec_kexec_start(spec, env, k.image, initrd, k.release, out, e);
		goto out;
	}
	if (!args->icount && !(args->vm.accel && !strcmp(args->vm.accel, "tcg"))) {
		exec_report(phase, ctx, "boot", 0, "probing kvm");
		accel = qemu_kvm_usable(env->arch, k.image, initrd, "rt.case=none", MARK_END,
					KVM_PROBE_S, why, sizeof(why)) ?
				"kvm" :
				"tcg";
		if (args->vm.accel && strcmp(accel, "kvm")) {
			/* the job asked for kvm: a tcg run would be another setup's number */
			exec_set_status(out, "run-failed");
			out->log_tail = xstrfmt("regtrack: accel \"kvm\" asked for, and KVM is not "
						"usable here: %s\n",
						why);
			rc = 0;
			goto out;
		}
	}

	exec_set_status(out, "ok");
	for (i = 0; i < repeat; i++) {
		struct boot_result br;
		struct qemu q;
		char started[32], *logpath;
		json_t *metrics = NULL;
		int fd;

		exec_report(phase, ctx, "boot", (double)i / repeat, "boot %d/%d (%s, %s%s%s)",
			    i + 1, repeat, accel, args->icount ? "icount" : "wallclock",
			    why[0] ? ": " : "", why);
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
		/* the job's vCPUs, else the worker's qemu_cpus, else qemu_run's default */
		q.cpus = args->vm.vcpus ? args->vm.vcpus : env->qemu_cpus;
		q.pin = args->vm.pin;
		q.hugepages_kb = args->vm.hugepages_kb;
		q.numa = args->vm.numa;
		q.timeout_s = boot_s + run_s;
		q.log_fd = fd;
		q.cancel = env->cancel;
		exec_now_rfc3339(started, sizeof(started));
		r = qemu_run(&q, e);
		if (fd >= 0)
			close(fd);
		if (r < 0 || exec_is_cancelled(env, e)) {
			qemu_release(&q);
			goto out;
		}
		free(out->log_tail);
		out->log_tail = serial_tail(q.log.data, q.log.len);
		exec_parse_serial(q.log.data, &br);
		if (!br.reached_init) {
			exec_set_status(out, "boot-failed");
		} else if (!br.has_end || br.exit_code || br.signal || br.timed_out) {
			exec_set_status(out, "run-failed");
		} else {
			metrics = exec_metrics_from_text(spec->testcase, br.text.data, br.text.len);
			if (!metrics)
				exec_set_status(out, "run-failed");
		}
		if (metrics) {
			json_t *run;

			exec_report(phase, ctx, "run", (double)(i + 1) / repeat,
				    "run %d/%d done in %.1f s", i + 1, repeat, q.elapsed_s);
			run = exec_run_object(metrics, started, q.elapsed_s,
					      args->icount ? "icount" : "wallclock", accel,
					      br.release[0] ? br.release : k.release, br.guest_s,
					      q.layout.vcpus, qemu_guest_json(&q));
			exec_add_tool_versions(run, q.log.data, q.log.len);
			if (args->monitors && add_monitors(run, args->monitors, q.log.data) < 0) {
				json_decref(run);
				exec_set_status(out, "run-failed");
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
		exec_prune_logs(runs_dir, "serial", env);
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
	exec_set_status(out, "run-failed");
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
		rc = exec_host(spec, env, &args, phase, ctx, out, e);
	else if ((rc = exec_kexec_resume(spec, env, &args, phase, ctx, out, e)) == 1)
		rc = execute_kernel(spec, env, &args, phase, ctx, out, e);
	case_args_release(&args);
	/* the modes set "ok" before their runs: an error among them is no success */
	if (rc < 0 && !strcmp(out->status, "ok"))
		exec_set_status(out, "run-failed");
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
