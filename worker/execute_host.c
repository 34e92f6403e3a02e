/* Host mode: the case binary on the running kernel (see execute.h). */
#include "execute_int.h"
#include "hostrun.h"
#include "monitors.h"
#include "parse/perf_fold.h"
#include "runcmd.h"
#include "wlog.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int exec_host(const struct job_spec *spec, const struct worker_env *env,
	      const struct case_args *args, phase_fn phase, void *ctx, struct job_outcome *out,
	      struct err *e)
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
		exec_set_status(out, "run-failed");
		out->log_tail = xstrdup(
			"regtrack: measure \"icount\" needs qemu; host mode measures wall-clock time\n");
		free(tmpdir);
		return 0;
	}
	if (args->vm.accel || args->vm.vcpus || args->vm.pin || args->vm.hugepages_kb ||
	    args->vm.numa) {
		exec_set_status(out, "run-failed");
		out->log_tail = xstrdup("regtrack: accel, vcpus, pin, hugepages and numa shape a "
					"qemu guest; host mode runs on the host as it is\n");
		free(tmpdir);
		return 0;
	}
	exec_set_status(out, "ok");
	/* what the case runs on: the job's commit and compiler are labels here */
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

		exec_report(phase, ctx, "run", (double)i / repeat, "host run %d/%d of %s", i + 1,
			    repeat, spec->testcase);
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
		exec_now_rfc3339(started, sizeof(started));
		r = hostrun_run(&h, e);
		perf_wrap_release(&w); /* the pipes: perf and the case are gone */
		if (r < 0 || exec_is_cancelled(env, e)) {
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
		out->log_tail = exec_tail_dup(log.data, log.len);
		buf_release(&log);
		metrics = runcmd_ok(&h.cmd) ? exec_metrics_from_text(spec->testcase, h.cmd.out.data,
								     h.cmd.out.len) :
					      NULL;
		if (!metrics) {
			exec_set_status(out, "run-failed");
			hostrun_release(&h);
			break;
		}
		run = exec_run_object(metrics, started, h.cmd.elapsed_s, "wallclock", "host",
				      h.release, -1, (int)cpus, NULL);
		exec_add_tool_versions(run, h.cmd.err.data, h.cmd.err.len);
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
	exec_prune_logs(tmpdir, "run", env);
	buf_release(&version);
	buf_release(&warnings);
	free(tmpdir);
	return rc;
}
