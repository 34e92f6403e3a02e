/* Bare-metal mode: the job's kernel booted with kexec on this machine (worker/kexec.h). */
#include "execute_int.h"
#include "kexec.h"
#include "kexecrec.h"
#include "wlog.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int is_kexec(const struct case_args *args)
{
	return args->vm.accel && !strcmp(args->vm.accel, "kexec");
}

static long long rec_int(const json_t *rec, const char *key)
{
	return (long long)json_integer_value(json_object_get(rec, key));
}

static const char *rec_str(const json_t *rec, const char *key)
{
	const char *s = json_string_value(json_object_get(rec, key));

	return s ? s : "";
}

/*
 * Boots rec's run "run": a fresh nonce and command line, the device
 * cleared, the record saved ("booting"), then kexec. Returns only when
 * the kernel was not started: -1 with e, and the record marked "done" so
 * that a restart does not read the boot that never was as a failed one.
 */
static int boot(const struct worker_env *env, const char *path, json_t *rec, struct err *e)
{
	char nonce[KEXECREC_NONCE_LEN + 1], now[32], bootid[37];
	long long id = rec_int(rec, "job_id");
	char *cmdline;
	struct err se;

	kexec_new_nonce(nonce);
	cmdline = kexec_cmdline(env->kexec, id, nonce);
	exec_now_rfc3339(now, sizeof(now));
	json_object_set_new(rec, "nonce", json_string(nonce));
	json_object_set_new(rec, "cmdline", json_string(cmdline));
	json_object_set_new(rec, "kexecd_at", json_string(now));
	json_object_set_new(rec, "kexecd_at_s", json_integer((json_int_t)time(NULL)));
	json_object_set_new(rec, "state", json_string("booting"));
	kexec_boot_id(bootid);
	json_object_set_new(rec, "boot_id", json_string(bootid));
	free(cmdline);
	if (kexecrec_clear(env->kexec->result_dev) < 0)
		return err_setc(e, ERR_IO, env->kexec->result_dev,
				"cannot clear the kexec result device '%s': %m",
				env->kexec->result_dev);
	if (kexec_record_save(path, rec, e) < 0)
		return -1;
	wlog_info("job %lld: run %lld/%lld: kexec into '%s' (nonce %s)", id, rec_int(rec, "run"),
		  rec_int(rec, "repeat"), rec_str(rec, "image"), nonce);
	if (kexec_boot(env->kexec, rec, e) == 0)
		return 0; /* not reached: kexec_boot returns only on failure */
	json_object_set_new(rec, "state", json_string("done"));
	err_clear(&se);
	if (kexec_record_save(path, rec, &se) < 0)
		wlog_warn("job %lld: %s", id, se.message);
	return -1;
}

static int check_conf(const struct worker_env *env, struct err *e)
{
	if (!env->kexec || !env->kexec->result_dev || !env->kexec->bin)
		return err_setc(e, ERR_INVALID_JOB, "params.accel",
				"accel \"kexec\": this worker has no kexec_result_dev");
	return 0;
}

int exec_kexec_start(const struct job_spec *spec, const struct worker_env *env, const char *image,
		     const char *initrd, const char *release, struct job_outcome *out,
		     struct err *e)
{
	char *path;
	json_t *rec;
	int rc;

	if (check_conf(env, e) < 0)
		return -1;
	path = kexec_record_path(env->work_dir, spec->id);
	rec = json_pack("{s:I, s:i, s:i, s:s, s:s, s:s, s:s, s:s, s:s?, s:[]}", "job_id",
			(json_int_t)spec->id, "run", 1, "repeat",
			spec->repeat > 0 ? spec->repeat : 1, "testcase", spec->testcase, "image",
			image, "initrd", initrd, "image_sha256", out->image_sha256,
			"kernel_release", release ? release : "", "kconfig_text", out->kconfig_text,
			"runs");
	rc = boot(env, path, rec, e);
	json_decref(rec);
	free(path);
	return rc;
}

/* The run object of a boot's result, or NULL when the case failed (why in log). */
static json_t *run_of(const json_t *rec, const char *payload, struct buf *log)
{
	struct boot_result br;
	json_t *metrics = NULL, *run = NULL;
	long long t0 = rec_int(rec, "kexecd_at_s");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	exec_parse_serial(payload, &br);
	if (br.reached_init && br.has_end && !br.exit_code && !br.signal && !br.timed_out)
		metrics = exec_metrics_from_text(rec_str(rec, "testcase"), br.text.data,
						 br.text.len);
	if (metrics) {
		/* the duration runs from kexec to the worker reading the result: a
		 * reboot through the firmware is part of it */
		run = exec_run_object(metrics, rec_str(rec, "kexecd_at"), (double)(time(NULL) - t0),
				      "wallclock", "kexec",
				      br.release[0] ? br.release : rec_str(rec, "kernel_release"),
				      br.guest_s, cpus > 0 ? (int)cpus : 1, NULL);
		json_object_set_new(run, "image_sha256", json_string(rec_str(rec, "image_sha256")));
	} else if (buf_addstr(log, "regtrack: the case failed or printed no metrics\n")) {
		abort();
	}
	buf_release(&br.text);
	return run;
}

int exec_kexec_resume(const struct job_spec *spec, const struct worker_env *env,
		      const struct case_args *args, phase_fn phase, void *ctx,
		      struct job_outcome *out, struct err *e)
{
	char *path, *payload = NULL, bootid[37];
	json_t *rec = NULL, *run = NULL;
	struct buf log = BUF_INIT(0);
	enum kexecrec_state st;
	enum kexec_next next;
	size_t len = 0;
	int r, rc = -1;
	struct err se;

	if (!is_kexec(args))
		return 1;
	if (check_conf(env, e) < 0)
		return -1;
	path = kexec_record_path(env->work_dir, spec->id);
	r = kexec_record_load(path, &rec, e);
	if (r <= 0 || strcmp(rec_str(rec, "state"), "booting")) {
		rc = r < 0 ? -1 : 1;
		goto out;
	}
	st = kexecrec_read(env->kexec->result_dev, spec->id, rec_str(rec, "nonce"), &payload, &len);
	if (st == KEXECREC_VALID) {
		/* the payload is the run's log; its result is on disk before the device is cleared */
		char *tail;

		run = run_of(rec, payload, &log);
		tail = exec_tail_dup(payload, len);

		json_object_set_new(rec, "log_tail", json_string_nocheck(tail));
		free(tail);
		if (run)
			json_array_append_new(json_object_get(rec, "runs"), run);
		if (kexec_record_save(path, rec, e) < 0)
			goto out;
		if (kexecrec_clear(env->kexec->result_dev) < 0)
			wlog_warn("job %lld: cannot clear '%s': %m (the next boot's nonce tells its record apart)",
				  spec->id, env->kexec->result_dev);
	}
	kexec_boot_id(bootid);
	next = kexec_decide(1, bootid[0] && !strcmp(bootid, rec_str(rec, "boot_id")), st,
			    run != NULL, (int)rec_int(rec, "run") - 1, (int)rec_int(rec, "repeat"));
	exec_report(phase, ctx, "run", (double)rec_int(rec, "run") / (double)rec_int(rec, "repeat"),
		    "kexec run %lld/%lld came back", rec_int(rec, "run"), rec_int(rec, "repeat"));
	if (next == KEXEC_BOOT_NEXT || next == KEXEC_BOOT_AGAIN) {
		if (next == KEXEC_BOOT_NEXT)
			json_object_set_new(rec, "run", json_integer(rec_int(rec, "run") + 1));
		else
			wlog_warn("job %lld: run %lld was never kexec'd (same boot id): booting it",
				  spec->id, rec_int(rec, "run"));
		rc = boot(env, path, rec, e);
		goto out;
	}
	snprintf(out->image_sha256, sizeof(out->image_sha256), "%s", rec_str(rec, "image_sha256"));
	out->kconfig_text = xstrdup(rec_str(rec, "kconfig_text"));
	json_array_extend(out->runs, json_object_get(rec, "runs"));
	if (next == KEXEC_DONE) {
		exec_set_status(out, "ok");
	} else if (next == KEXEC_BOOT_FAILED) {
		exec_set_status(out, "boot-failed");
		if (buf_addf(&log,
			     "regtrack: the machine came back from kexec run %lld/%lld of job %lld "
			     "(kexec'd at %s) with no result on '%s': the kernel panicked, hung and "
			     "was power-cycled, or never reached /init\n",
			     rec_int(rec, "run"), rec_int(rec, "repeat"), spec->id,
			     rec_str(rec, "kexecd_at"), env->kexec->result_dev))
			abort();
	} else {
		exec_set_status(out, "run-failed");
		if (st != KEXECREC_VALID &&
		    buf_addf(&log, "regtrack: the kexec result on '%s' is %s\n",
			     env->kexec->result_dev,
			     st == KEXECREC_TORN ? "torn (bad length or checksum)" : "unreadable"))
			abort();
	}
	out->log_tail = xstrfmt("%s%s", rec_str(rec, "log_tail"), log.data);
	json_object_set_new(rec, "state", json_string("done"));
	err_clear(&se);
	if (kexec_record_save(path, rec, &se) < 0)
		wlog_warn("job %lld: %s", spec->id,
			  se.message); /* a restart asks the device again */
	rc = 0;
out:
	buf_release(&log);
	free(payload);
	json_decref(rec);
	free(path);
	return rc;
}
