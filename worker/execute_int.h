#ifndef REGTRACK_EXECUTE_INT_H
#define REGTRACK_EXECUTE_INT_H

/*
 * What execute.c (kernel mode, the job's checks) and execute_host.c (host
 * mode) share; not an API: see execute.h.
 */
#include <jansson.h>

#include "buf.h"
#include "err.h"
#include "execute.h"
#include "vmspec.h"

#define MAX_CASE_ARGS 64

/* The markers worker/init/init.c prints around a boot's result and profile. */
#define MARK_INIT "==== regtrack-init release="
#define MARK_BEGIN "==== regtrack-result-begin ===="
#define MARK_END "==== regtrack-result-end "
#define MARK_PROFILE_BEGIN "==== regtrack-profile-begin "
#define MARK_PROFILE_END "==== regtrack-profile-end ===="

/* What one boot printed: the parsed markers of the serial log (or a kexec result record). */
struct boot_result {
	int reached_init, has_end;
	int exit_code, signal, timed_out;
	double guest_s;
	char release[128];
	struct buf text; /* initialized by exec_parse_serial (release it); the case's stdout: "rt| " lines, prefix stripped */
};

/* Fills r from the NUL-terminated console text log; r->text is new (buf_release). */
void exec_parse_serial(const char *log, struct boot_result *r);

/* The case's key=value words and the measure mode, from params. */
struct case_args {
	char *v[MAX_CASE_ARGS + 1];
	int n;
	int icount;
	struct vmspec vm;  /* the machine params (lib/vmspec.h); icount is vm.icount */
	unsigned monitors; /* MONITOR_* of the job (worker/monitors.h) */
};

/* phase(ctx, name, progress, printf(fmt, ...)) when phase is not NULL */
void exec_report(phase_fn phase, void *ctx, const char *name, double progress, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The last 16 KiB of s[0..len), without the '\r' a serial console adds (new, caller frees). */
char *exec_tail_dup(const char *s, size_t len);

/* Now as "YYYY-MM-DDTHH:MM:SSZ" into dst (n bytes). */
void exec_now_rfc3339(char *dst, size_t n);

/*
 * "TESTCASE.KEY" -> [values] from a case's "key: value" text, a tool case's
 * output by its parser (worker/tools.h); new, or NULL when none.
 */
json_t *exec_metrics_from_text(const char *testcase, const char *text, size_t len);

/* run's "tools": the versions a tool case printed in log[0..len) (worker/tools.h), when any. */
void exec_add_tool_versions(json_t *run, const char *log, size_t len);

/* One run's own fields of the result document (execute.c says which); takes metrics and guest. */
json_t *exec_run_object(json_t *metrics, const char *started_at, double duration_s,
			const char *mode, const char *accel, const char *release, double guest_s,
			int cpus, json_t *guest);

/* 1 (and e filled: "cancelled") when the agent asked the job to stop. */
int exec_is_cancelled(const struct worker_env *env, struct err *e);

void exec_set_status(struct job_outcome *out, const char *status);

/* Keeps the newest env->keep_logs logs PREFIX-JOB-RUN.log of dir (a failure is a warning). */
void exec_prune_logs(const char *dir, const char *prefix, const struct worker_env *env);

/*
 * Writes the job's initramfs to path: /dev/console, /init and every case
 * binary of the worker's arch, the job file (/regtrack/job: case, timeout,
 * its args, a monitor line per monitor), with monitors perf (the static
 * build at `perf`, /bin/perf) and the cases' user symbols, for a tool case
 * its root tree (tools.h) and, when its tool is the tree's perf
 * (perf-bench), /bin/perf too. 0, or -1 with e (ERR_IO: no /init, a tool's
 * root; ERR_INVALID_JOB: no such case binary).
 */
int exec_build_initramfs(const char *path, const struct worker_env *env,
			 const struct job_spec *spec, const struct case_args *args,
			 int timeout_run_s, unsigned monitors, const char *perf, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Bare-metal mode (worker/kexec.h), before a build: 1 when the job is not
 * accel "kexec" or has no spool record of a boot in flight (build and
 * boot it); 0 with the outcome when a boot came back (a boot-failed one
 * too); when a next run is due, boots it and returns only if that failed
 * (-1). -1 with e: ERR_INVALID_JOB (this worker has no kexec_result_dev),
 * kexec_record_load()'s and kexec_boot()'s errors.
 */
int exec_kexec_resume(const struct job_spec *spec, const struct worker_env *env,
		      const struct case_args *args, phase_fn phase, void *ctx,
		      struct job_outcome *out, struct err *e);

/*
 * Bare-metal mode after the build: writes the spool record of run 1 and
 * kexecs into image + initrd; returns only when that failed (-1 with e,
 * as exec_kexec_resume). out's image_sha256 and kconfig_text go into the
 * record.
 */
int exec_kexec_start(const struct job_spec *spec, const struct worker_env *env, const char *image,
		     const char *initrd, const char *release, struct job_outcome *out,
		     struct err *e);

/* Host mode: the case `repeat` times on the running kernel (see execute.h). */
int exec_host(const struct job_spec *spec, const struct worker_env *env,
	      const struct case_args *args, phase_fn phase, void *ctx, struct job_outcome *out,
	      struct err *e);

#endif
