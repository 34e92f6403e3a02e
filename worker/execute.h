#ifndef REGTRACK_EXECUTE_H
#define REGTRACK_EXECUTE_H

/*
 * The worker's execution engine: what the agent loop calls for one leased
 * job. Kernel mode: fetch the tree, configure and build the kernel
 * (worker/kernel.h), pack an initramfs with /init and the case binaries
 * (worker/initramfs.h), boot it `repeat` times in qemu (worker/qemu.h) and
 * parse each run's result block. Host mode (kconfig "host"): run the case
 * binary `repeat` times on the running kernel (worker/hostrun.h).
 */
#include <signal.h>
#include <jansson.h>
#include "err.h"

struct sandbox;
struct kexec_conf;

struct job_spec {
	long long id;
	const char *tree, *url, *commit; /* url: git URL or local path of the tree */
	const char *kconfig;		 /* "host" = host mode, no build */
	const char *compiler;		 /* "gcc-12" */
	const char *testcase;		 /* case name, e.g. "small-allocs" */
	json_t *params;		   /* object of strings/numbers; "measure": "wallclock"|"icount" */
	int repeat;		   /* n runs (n boots, or n host executions) */
	const char *patches;	   /* NULL, or an mbox to `git am` on commit (an A/B request's
				    head job); kernel mode only */
	const json_t *monitors;	   /* NULL, or the job's "monitors" array: "perf-profile",
				      "perf-stat" (worker/monitors.h); borrowed */
	const char *boot_image;	   /* NULL, or (accel kexec) the SHA-256 of an image another
				    * worker built and uploaded: fetched and booted, not
				    * built (kexec_image_fetch) */
	const json_t *skip_images; /* NULL, or the lease's "skip_images": an array of
				    * {"image_sha256": HEX, "commit": SHA} of kernels already
				    * measured in this setup; an image built to one of them is
				    * not booted (status "same-image"); borrowed */
};

struct worker_env {
	const char *work_dir;  /* mirrors/, build/, ccache/ below it unless set */
	const char *arch;      /* "x86_64" | "aarch64" */
	const char *cases_dir; /* dir with ARCH/NAME static binaries (bin/cases) */
	const char *ccache_dir;
	int make_jobs, qemu_mem_mb, qemu_cpus;
	int timeout_fetch_s, timeout_build_s, timeout_boot_s, timeout_run_s;
	int keep_logs; /* the newest run logs kept per run dir (runlogs_prune); 0 = all */
	const struct sandbox *sandbox; /* borrowed; what tree code (make, Kconfig scripts,
					  the perf build) runs in; NULL: nothing wrapped,
					  as with `sandbox = off` */
	volatile sig_atomic_t *cancel; /* optional (NULL: none): when it becomes non-zero
					  (e.g. from a SIGTERM handler), the running git,
					  make, qemu or case is killed and job_execute
					  returns -1 with e->id ERR_CANCELLED */

	/* borrowed; NULL, or result_dev NULL: a job with accel "kexec" is ERR_INVALID_JOB */
	const struct kexec_conf *kexec;
};

/* phase: "fetch","configure","build","initramfs","boot","run"; progress 0..1 */
typedef void (*phase_fn)(void *ctx, const char *phase, double progress, const char *message);

struct job_outcome {
	char status[16];    /* "ok", "build-failed", "boot-failed", "run-failed", "same-image" */
	json_t *runs;	    /* new array, one object per run: {"metrics": {"TESTCASE.KEY": [v..]},
			       "started_at": "RFC3339", "duration_s": x, "mode": "wallclock"|"icount",
			       "accel": "kvm"|"tcg"|"host", "kernel_release": "…"} */
	char *log_tail;	    /* new, last ~16 KiB of the build/serial log */
	char *kconfig_text; /* new, final .config (NULL in host mode) */
	char commit[41];    /* with patches: the commit git am made, which the runs are of
			       (the job's commit is their base); "" otherwise */
	char image_sha256[65];	/* the built image's SHA-256 (kernel.h); "" in host mode or
				   before a build succeeded; also in every run as "image_sha256" */
	char same_image_as[41]; /* status "same-image": the commit of skip_images whose image
				   this build equals (no run was made); "" otherwise */
	char patch_id[41];	/* with patches: `git patch-id --stable` of the series as one
				   diff; "" otherwise or when git could not compute it */
	char *patch_ids;	/* new, with patches: each patch's patch-id in order,
				   space-separated; NULL otherwise */
};

/*
 * Runs the job; never exits the process. Returns 0 when the job ran to an
 * outcome (including build-failed etc.), -1 with e filled on an internal
 * error (bad spec, work dir unusable); then out->status is never "ok"
 * ("run-failed" unless a run had failed before as build-/boot-failed) and
 * `runs` holds the runs that succeeded before the error.
 *
 * Details of the outcome:
 * - Params become the case's argv as "key=value" words in key order
 *   (numbers: integers as integers, others with %.17g; true/false as 1/0);
 *   "measure" is not passed. Keys must be [A-Za-z0-9_.-]+, values without
 *   newlines or spaces.
 * - params accel "kexec" (bare metal, worker/kexec.h): the kernel is built
 *   and packed as above, then booted on this machine with kexec, one boot
 *   per run; this call then does not return (the machine runs the test
 *   kernel). The restarted worker's call for the same job reads the
 *   result the boot left (exec_kexec_resume): runs with "accel": "kexec",
 *   "boot-failed" when the machine came back without one, or boots the
 *   next run. Needs env->kexec with a result_dev (else ERR_INVALID_JOB).
 * - measure "wallclock" (default) uses KVM when the worker arch is the
 *   host's and a probe boot under KVM reached /init (remembered per
 *   process), else TCG; "icount" always uses TCG with -icount and one vCPU.
 *   Host mode supports "wallclock" only (icount: run-failed).
 * - same-image: the build's image hash is one of spec->skip_images: no
 *   boot, no run; out->same_image_as names that entry's commit (the
 *   server takes that commit's runs: docs/ARCHITECTURE.md "Identical
 *   images").
 * - The runs stop at the first failing one: status is that run's failure,
 *   `runs` holds the runs that succeeded before it.
 *   build-failed: configure or make failed or timed out (make's tail in
 *     log_tail); boot-failed: qemu ended or timed out before /init printed
 *     its first line; run-failed: /init ran but the case exited non-zero,
 *     was killed, timed out, printed no result block, or printed no
 *     "key: number" line.
 * - Each run object also has "guest_elapsed_s" (kernel mode: the case's
 *   duration by the guest's clock) and "cpus" (vCPUs or host CPUs).
 * - Extra files under WORK_DIR/run/TREE-KCONFIG/: initramfs.cpio and
 *   serial-JOBID-N.log (the full serial log of run N).
 * - Monitors (worker/monitors.h): kernel mode builds (or takes
 *   from its cache) a static perf of the tree's tools/perf
 *   (kernel_build_perf, phase "perf"; a failed perf build is build-failed)
 *   and puts it in the initramfs as /bin/perf with a "monitor NAME" line
 *   per monitor in /regtrack/job; /init runs the case under perf
 *   (worker/init/init.c). Host mode runs the case under the host's perf
 *   ($REGTRACK_PERF, else `perf` in PATH; missing: ERR_SPAWN). Each run
 *   object then gets "monitors", "profile" and the perf-profile.* and
 *   perf-stat.* metrics (profile_fill_run). Without monitors nothing
 *   changes: no perf phase, the initramfs holds the same entries as
 *   before, the case runs alone. The log tail of a profiled boot leaves
 *   out the folded stacks (they are in "profile").
 * - The kconfig fragments are looked up as kernel_find_kconfig_dir()
 *   describes (worker/kconfig next to the cases dir's checkout, or
 *   $REGTRACK_KCONFIG_DIR, or PREFIX/share/regtrack/kconfig).
 * - Errors (-1): ERR_INVALID_JOB (bad testcase/params/repeat/kconfig for
 *   this arch/compiler, no case binary), ERR_FETCH, ERR_NOT_FOUND (the
 *   commit is not in the tree), ERR_IO (work dir unusable, cases or
 *   kconfig fragments not installed), ERR_SPAWN (git/make/qemu missing),
 *   ERR_CANCELLED (env->cancel was raised; `runs` holds the runs finished).
 * phase may be NULL; it is called before each phase and before each run,
 * never while a case is measuring.
 */
int job_execute(const struct job_spec *spec, const struct worker_env *env, phase_fn phase,
		void *ctx, struct job_outcome *out, struct err *e);

/* Frees what job_execute put into out (runs, log_tail, kconfig_text). */
void job_outcome_release(struct job_outcome *out);

#endif
