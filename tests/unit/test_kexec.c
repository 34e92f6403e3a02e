/*
 * Bare-metal mode: the result record's format (lib/kexecrec.c), kexec's
 * argv and command line, the spool record and the resume decision
 * (worker/kexec.c), and job_execute() resuming from a spool record with a
 * result device (a plain file here) as a worker does after the machine
 * came back. Booting for real is tests/kernel/run.sh's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attr.h"
#include "buf.h"
#include "kexecrec.h"
#include "runcmd.h"
#include "sha256.h"
#include "xalloc.h"
#include "worker/execute.h"
#include "worker/kexec.h"

#define NONCE "0123456789abcdef"
#define OTHER_NONCE "fedcba9876543210"
#define RESULT                                          \
	"==== regtrack-init release=6.1.0-kexec ====\n" \
	"==== regtrack-result-begin ====\n"             \
	"rt| ops: 1234.5\n"                             \
	"==== regtrack-result-end exit=0 signal=0 timeout=0 elapsed_ns=2000000000 ====\n"

static void test_crc_and_nonce(void **state UNUSED)
{
	/* the CRC-32 check value of the IEEE polynomial */
	assert_int_equal(kexecrec_crc32("123456789", 9), 0xcbf43926u);
	assert_int_equal(kexecrec_crc32("", 0), 0);
	assert_true(kexecrec_nonce_ok(NONCE));
	assert_false(kexecrec_nonce_ok("0123456789ABCDEF"));
	assert_false(kexecrec_nonce_ok("0123456789abcde"));
	assert_false(kexecrec_nonce_ok("0123456789abcdef0"));
	assert_false(kexecrec_nonce_ok(NULL));
}

static void test_record_format(void **state UNUSED)
{
	unsigned char hdr[KEXECREC_HDR_LEN];
	const char *p = "payload";
	size_t len = 0;

	assert_int_equal(kexecrec_encode(hdr, 42, NONCE, p, 7), 0);
	assert_memory_equal(hdr, "RTKEXEC1", 8);
	assert_int_equal(hdr[8], 7);
	assert_int_equal(hdr[12], 42);
	assert_memory_equal(hdr + 20, NONCE, 16);
	assert_int_equal(kexecrec_check(hdr, 42, NONCE, p, 7, &len), KEXECREC_VALID);
	assert_int_equal(len, 7);
	/* another job's or another boot's record is none of this boot's */
	assert_int_equal(kexecrec_check(hdr, 43, NONCE, p, 7, NULL), KEXECREC_NONE);
	assert_int_equal(kexecrec_check(hdr, 42, OTHER_NONCE, p, 7, NULL), KEXECREC_NONE);
	/* a payload cut short or changed, a header changed */
	assert_int_equal(kexecrec_check(hdr, 42, NONCE, p, 6, NULL), KEXECREC_TORN);
	assert_int_equal(kexecrec_check(hdr, 42, NONCE, "paylaod", 7, NULL), KEXECREC_TORN);
	hdr[9] = 1;
	assert_int_equal(kexecrec_check(hdr, 42, NONCE, NULL, 0, NULL), KEXECREC_TORN);
	assert_int_equal(kexecrec_encode(hdr, 42, "nonce", p, 7), -1);
	assert_int_equal(kexecrec_encode(hdr, 42, NONCE, p, KEXECREC_MAX_PAYLOAD + 1), -1);
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/test_kexec.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static void rmrf(const char *dir)
{
	const char *argv[] = { "rm", "-rf", dir, NULL };
	struct runcmd cmd;
	struct err e;

	runcmd_init(&cmd, argv, 30);
	assert_int_equal(runcmd_run(&cmd, &e), 0);
	runcmd_release(&cmd);
}

/* a "device" of 1 MiB of zeros, as a fresh disk */
static char *make_dev(const char *dir)
{
	char *dev = xstrfmt("%s/dev", dir);
	int fd = open(dev, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);
	return dev;
}

static void write_result(const char *dev, long long job, const char *nonce, const char *text)
{
	int fd = open(dev, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(kexecrec_write_fd(fd, job, nonce, text, strlen(text)), 0);
	close(fd);
}

static void test_record_device(void **state UNUSED)
{
	char *dir = tmpdir(), *dev = make_dev(dir), *payload;
	size_t len;

	assert_int_equal(kexecrec_read(dev, 5, NONCE, &payload, &len), KEXECREC_NONE);
	assert_null(payload);
	write_result(dev, 5, NONCE, RESULT);
	assert_int_equal(kexecrec_read(dev, 5, NONCE, &payload, &len), KEXECREC_VALID);
	assert_int_equal(len, strlen(RESULT));
	assert_string_equal(payload, RESULT);
	free(payload);
	assert_int_equal(kexecrec_read(dev, 5, OTHER_NONCE, &payload, &len), KEXECREC_NONE);
	{
		/* a payload byte flipped after the header was written */
		int fd = open(dev, O_WRONLY);

		assert_int_equal(pwrite(fd, "X", 1, KEXECREC_HDR_LEN + 3), 1);
		close(fd);
	}
	assert_int_equal(kexecrec_read(dev, 5, NONCE, &payload, &len), KEXECREC_TORN);
	assert_null(payload);
	assert_int_equal(kexecrec_clear(dev), 0);
	assert_int_equal(kexecrec_read(dev, 5, NONCE, &payload, &len), KEXECREC_NONE);
	assert_int_equal(kexecrec_read("/nonexistent/dev", 5, NONCE, &payload, &len), KEXECREC_IO);
	rmrf(dir);
	free(dev);
	free(dir);
}

static void test_argv(void **state UNUSED)
{
	struct kexec_conf c = { .bin = "kexec",
				.result_dev = "/dev/vdb",
				.append = "console=ttyS0,115200",
				.panic_s = 5 };
	const char *argv[8];
	char *cmd = kexec_cmdline(&c, 17, NONCE);

	assert_string_equal(cmd, "console=ttyS0,115200 panic=5 rt.result=/dev/vdb "
				 "rt.nonce=0123456789abcdef rt.job=17");
	kexec_load_argv(argv, c.bin, "/w/bzImage", "/w/initramfs.cpio", cmd);
	assert_string_equal(argv[0], "kexec");
	assert_string_equal(argv[1], "-l");
	assert_string_equal(argv[2], "/w/bzImage");
	assert_string_equal(argv[3], "--initrd");
	assert_string_equal(argv[4], "/w/initramfs.cpio");
	assert_string_equal(argv[5], "--append");
	assert_ptr_equal(argv[6], cmd);
	assert_null(argv[7]);
	kexec_exec_argv(argv, "/sbin/kexec");
	assert_string_equal(argv[0], "/sbin/kexec");
	assert_string_equal(argv[1], "-e");
	assert_null(argv[2]);
	free(cmd);
	c.append = "";
	c.panic_s = 0;
	cmd = kexec_cmdline(&c, 1, NONCE);
	assert_string_equal(cmd, "panic=10 rt.result=/dev/vdb rt.nonce=0123456789abcdef rt.job=1");
	free(cmd);
	{
		char n1[17], n2[17];

		kexec_new_nonce(n1);
		kexec_new_nonce(n2);
		assert_true(kexecrec_nonce_ok(n1));
		assert_string_not_equal(n1, n2);
	}
}

static void test_decide(void **state UNUSED)
{
	assert_int_equal(kexec_decide(0, 0, KEXECREC_VALID, 1, 0, 1), KEXEC_FRESH);
	assert_int_equal(kexec_decide(0, 0, KEXECREC_NONE, 0, 0, 1), KEXEC_FRESH);
	assert_int_equal(kexec_decide(1, 0, KEXECREC_NONE, 0, 0, 1), KEXEC_BOOT_FAILED);
	assert_int_equal(kexec_decide(1, 0, KEXECREC_NONE, 0, 2, 3), KEXEC_BOOT_FAILED);
	assert_int_equal(kexec_decide(1, 0, KEXECREC_VALID, 1, 0, 1), KEXEC_DONE);
	assert_int_equal(kexec_decide(1, 0, KEXECREC_VALID, 1, 0, 3), KEXEC_BOOT_NEXT);
	assert_int_equal(kexec_decide(1, 0, KEXECREC_VALID, 1, 1, 3), KEXEC_BOOT_NEXT);
	assert_int_equal(kexec_decide(1, 0, KEXECREC_VALID, 1, 2, 3), KEXEC_DONE);
	assert_int_equal(kexec_decide(1, 0, KEXECREC_VALID, 0, 0, 3), KEXEC_RUN_FAILED);
	assert_int_equal(kexec_decide(1, 0, KEXECREC_TORN, 0, 0, 1), KEXEC_RUN_FAILED);
	assert_int_equal(kexec_decide(1, 0, KEXECREC_IO, 0, 0, 1), KEXEC_RUN_FAILED);
	/* the record is of the kernel running now: the kexec never happened */
	assert_int_equal(kexec_decide(1, 1, KEXECREC_NONE, 0, 0, 1), KEXEC_BOOT_AGAIN);
	assert_int_equal(kexec_decide(1, 1, KEXECREC_VALID, 1, 0, 1), KEXEC_DONE);
	assert_int_equal(kexec_decide(0, 1, KEXECREC_NONE, 0, 0, 1), KEXEC_FRESH);
}

static void test_spool_record(void **state UNUSED)
{
	char *dir = tmpdir(), *work = xstrfmt("%s/work", dir);
	char *path = kexec_record_path(work, 9), *torn;
	json_t *rec = json_pack("{s:i, s:s, s:s}", "job_id", 9, "nonce", NONCE, "state", "booting");
	json_t *back = NULL;
	struct err e;
	FILE *f;

	assert_int_equal(mkdir(work, 0755), 0);
	assert_int_equal(kexec_record_load(path, &back, &e), 0);
	assert_int_equal(kexec_record_save(path, rec, &e), 0);
	assert_int_equal(kexec_record_load(path, &back, &e), 1);
	assert_true(json_equal(rec, back));
	json_decref(back);
	/* a record that is not one is moved aside, not deleted */
	f = fopen(path, "w");
	fputs("{\"job_id\": 9, \"nonce\": \"", f);
	fclose(f);
	assert_int_equal(kexec_record_load(path, &back, &e), -1);
	assert_int_equal(e.id, ERR_TORN);
	assert_int_equal(access(path, F_OK), -1);
	torn = xstrfmt("%s.torn", path);
	assert_int_equal(access(torn, F_OK), 0);
	free(torn);
	json_decref(rec);
	rmrf(dir);
	free(path);
	free(work);
	free(dir);
}

static void save(const char *work, long long job, const char *state)
{
	char *path = kexec_record_path(work, job);
	json_t *rec = json_pack("{s:I, s:s, s:s}", "job_id", (json_int_t)job, "nonce", NONCE,
				"state", state);
	struct err e;

	assert_int_equal(kexec_record_save(path, rec, &e), 0);
	json_decref(rec);
	free(path);
}

static int exists(const char *work, const char *name)
{
	char *path = xstrfmt("%s/kexec/%s", work, name);
	int r = access(path, F_OK) == 0;

	free(path);
	return r;
}

static void test_sweep(void **state UNUSED)
{
	char *dir = tmpdir(), *work = xstrfmt("%s/work", dir), *torn;
	FILE *f;

	assert_int_equal(mkdir(work, 0755), 0);
	/* no kexec directory yet: nothing to do */
	assert_int_equal(kexec_records_sweep(work), 0);
	save(work, 1, "done");
	save(work, 2, "booting");
	save(work, 3, "done");
	torn = xstrfmt("%s/kexec/job-4.json", work);
	f = fopen(torn, "w");
	fputs("{\"job_id\": 4", f);
	fclose(f);
	free(torn);
	torn = xstrfmt("%s/kexec/notes.txt", work);
	f = fopen(torn, "w");
	fputs("a person's file\n", f);
	fclose(f);
	/* the two ended jobs go; the boot still to come back, the torn one and the rest stay */
	assert_int_equal(kexec_records_sweep(work), 2);
	assert_false(exists(work, "job-1.json"));
	assert_false(exists(work, "job-3.json"));
	assert_true(exists(work, "job-2.json"));
	assert_true(exists(work, "job-4.json.torn"));
	assert_true(exists(work, "notes.txt"));
	assert_int_equal(kexec_records_sweep(work), 0);
	assert_true(exists(work, "job-2.json"));
	free(torn);
	rmrf(dir);
	free(work);
	free(dir);
}

/* A stand-in kexec: logs its argv; -l succeeds, -e "returns" as a kexec that did not jump. */
static char *fake_kexec(const char *dir, int load_fails)
{
	char *path = xstrfmt("%s/kexec", dir);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho \"$@\" >> '%s/kexec.log'\n%s", dir,
		load_fails ? "echo 'kexec_load failed: Operation not permitted' >&2\nexit 1\n" :
			     "exit 0\n");
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

static void test_boot(void **state UNUSED)
{
	char *dir = tmpdir(), *bin = fake_kexec(dir, 0), *log = xstrfmt("%s/kexec.log", dir);
	struct kexec_conf c = { .bin = bin, .result_dev = "/dev/vdb", .timeout_s = 10 };
	json_t *rec = json_pack("{s:s, s:s, s:s}", "image", "/w/bz", "initrd", "/w/ir", "cmdline",
				"panic=10 rt.job=1");
	struct buf b = BUF_INIT(0);
	struct err e;

	assert_int_equal(kexec_boot(&c, rec, &e), -1);
	assert_int_equal(e.id, ERR_SPAWN);
	assert_string_equal(e.detail, "kexec -e");
	assert_int_equal(buf_read_file(&b, log), 0);
	assert_string_equal(b.data, "-l /w/bz --initrd /w/ir --append panic=10 rt.job=1\n-e\n");
	buf_release(&b);
	free(bin);
	unlink(log);
	bin = fake_kexec(dir, 1);
	c.bin = bin;
	assert_int_equal(kexec_boot(&c, rec, &e), -1);
	assert_string_equal(e.detail, "kexec -l");
	assert_non_null(strstr(e.message, "Operation not permitted"));
	assert_int_equal(buf_read_file(&b, log), 0);
	assert_null(strstr(b.data, "-e")); /* never -e after a failed load */
	buf_release(&b);
	json_decref(rec);
	rmrf(dir);
	free(log);
	free(bin);
	free(dir);
}

/* --- job_execute resuming from the spool record ---------------------------- */

struct fixture {
	char *dir, *work, *dev, *bin, *cases;
	struct kexec_conf kc;
	struct worker_env env;
	struct job_spec spec;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));

	fx->dir = tmpdir();
	fx->work = xstrfmt("%s/work", fx->dir);
	fx->cases = xstrfmt("%s/cases", fx->dir);
	assert_int_equal(mkdir(fx->work, 0755), 0);
	assert_int_equal(mkdir(fx->cases, 0755), 0);
	fx->dev = make_dev(fx->dir);
	fx->bin = fake_kexec(fx->dir, 0);
	fx->kc = (struct kexec_conf){ .bin = fx->bin, .result_dev = fx->dev, .timeout_s = 10 };
	fx->env.work_dir = fx->work;
	fx->env.arch = "x86_64";
	fx->env.cases_dir = fx->cases;
	fx->env.kexec = &fx->kc;
	fx->spec.id = 31;
	fx->spec.tree = "linux";
	fx->spec.commit = "0123456789012345678901234567890123456789";
	fx->spec.kconfig = "x86_64-defconfig";
	fx->spec.testcase = "small-allocs";
	fx->spec.repeat = 1;
	fx->spec.params = json_pack("{s:s}", "accel", "kexec");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	rmrf(fx->dir);
	json_decref(fx->spec.params);
	free(fx->dir);
	free(fx->work);
	free(fx->dev);
	free(fx->bin);
	free(fx->cases);
	free(fx);
	return 0;
}

/* the spool record a worker left before `kexec -e` of run `run` of `repeat` */
static json_t *booting(struct fixture *fx, int run, int repeat)
{
	char *path = kexec_record_path(fx->work, fx->spec.id);
	json_t *rec = json_pack("{s:I, s:i, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, "
				"s:s, s:[]}",
				"job_id", (json_int_t)fx->spec.id, "run", run, "repeat", repeat,
				"testcase", "small-allocs", "image", "/w/bzImage", "initrd",
				"/w/initramfs.cpio", "image_sha256", "ab12", "kernel_release",
				"6.1.0", "kconfig_text", "CONFIG_X=y\n", "nonce", NONCE,
				"kexecd_at", "2026-12-06T01:00:00Z", "kexecd_at_s",
				(json_int_t)time(NULL) - 5, "state", "booting", "runs");
	struct err e;

	assert_int_equal(kexec_record_save(path, rec, &e), 0);
	free(path);
	return rec;
}

static json_t *load_record(struct fixture *fx)
{
	char *path = kexec_record_path(fx->work, fx->spec.id);
	json_t *rec = NULL;
	struct err e;

	assert_int_equal(kexec_record_load(path, &rec, &e), 1);
	free(path);
	return rec;
}

static void test_resume_ok(void **state)
{
	struct fixture *fx = *state;
	struct job_outcome out;
	json_t *rec = booting(fx, 1, 1), *run;
	char *payload;
	size_t len;
	struct err e;

	write_result(fx->dev, fx->spec.id, NONCE, RESULT);
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), 0);
	assert_string_equal(out.status, "ok");
	assert_int_equal(json_array_size(out.runs), 1);
	run = json_array_get(out.runs, 0);
	assert_true(json_real_value(json_array_get(json_object_get(json_object_get(run, "metrics"),
								   "small-allocs.ops"),
						   0)) == 1234.5);
	assert_string_equal(json_string_value(json_object_get(run, "accel")), "kexec");
	assert_string_equal(json_string_value(json_object_get(run, "mode")), "wallclock");
	assert_string_equal(json_string_value(json_object_get(run, "kernel_release")),
			    "6.1.0-kexec");
	assert_true(json_real_value(json_object_get(run, "guest_elapsed_s")) == 2.0);
	assert_true(json_real_value(json_object_get(run, "duration_s")) >= 5);
	assert_string_equal(json_string_value(json_object_get(run, "image_sha256")), "ab12");
	assert_string_equal(out.image_sha256, "ab12");
	assert_string_equal(out.kconfig_text, "CONFIG_X=y\n");
	assert_non_null(strstr(out.log_tail, "regtrack-result-end"));
	job_outcome_release(&out);
	/* the result is in the record ("done") before the device is cleared */
	json_decref(rec);
	rec = load_record(fx);
	assert_string_equal(json_string_value(json_object_get(rec, "state")), "done");
	assert_int_equal(json_array_size(json_object_get(rec, "runs")), 1);
	json_decref(rec);
	assert_int_equal(kexecrec_read(fx->dev, fx->spec.id, NONCE, &payload, &len), KEXECREC_NONE);
	/* once the agent has the completion, the ended job's record is deleted */
	assert_true(exists(fx->work, "job-31.json"));
	assert_int_equal(kexec_records_sweep(fx->work), 1);
	assert_false(exists(fx->work, "job-31.json"));
}

static void test_resume_boot_failed(void **state)
{
	struct fixture *fx = *state;
	struct job_outcome out;
	json_t *rec = booting(fx, 1, 1);
	struct err e;

	/* the previous boot's record is on the device: not this boot's */
	write_result(fx->dev, fx->spec.id, OTHER_NONCE, RESULT);
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), 0);
	assert_string_equal(out.status, "boot-failed");
	assert_int_equal(json_array_size(out.runs), 0);
	assert_non_null(strstr(out.log_tail, "no result on"));
	assert_non_null(strstr(out.log_tail, "2026-12-06T01:00:00Z"));
	job_outcome_release(&out);
	json_decref(rec);
	rec = load_record(fx);
	assert_string_equal(json_string_value(json_object_get(rec, "state")), "done");
	json_decref(rec);
}

static void test_resume_run_failed(void **state)
{
	struct fixture *fx = *state;
	struct job_outcome out;
	json_t *rec = booting(fx, 1, 1);
	struct err e;

	write_result(fx->dev, fx->spec.id, NONCE,
		     "==== regtrack-init release=6.1.0 ====\n"
		     "==== regtrack-result-begin ====\n"
		     "==== regtrack-result-end exit=3 signal=0 timeout=0 elapsed_ns=1 ====\n");
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), 0);
	assert_string_equal(out.status, "run-failed");
	assert_non_null(strstr(out.log_tail, "exit=3"));
	job_outcome_release(&out);
	json_decref(rec);
}

static void test_resume_next_run(void **state)
{
	struct fixture *fx = *state;
	struct job_outcome out;
	json_t *rec = booting(fx, 1, 2);
	struct buf b = BUF_INIT(0);
	char *log = xstrfmt("%s/kexec.log", fx->dir);
	const char *nonce;
	struct err e;

	write_result(fx->dev, fx->spec.id, NONCE, RESULT);
	/* run 1 of 2 came back: run 2 is booted (the stand-in kexec -e returns: an error) */
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), -1);
	assert_string_equal(e.detail, "kexec -e");
	assert_string_equal(out.status, "run-failed");
	job_outcome_release(&out);
	assert_int_equal(buf_read_file(&b, log), 0);
	assert_non_null(strstr(b.data, "-l /w/bzImage --initrd /w/initramfs.cpio --append "));
	assert_non_null(strstr(b.data, "rt.job=31\n-e\n"));
	json_decref(rec);
	rec = load_record(fx);
	assert_int_equal(json_integer_value(json_object_get(rec, "run")), 2);
	assert_int_equal(json_array_size(json_object_get(rec, "runs")), 1);
	nonce = json_string_value(json_object_get(rec, "nonce"));
	assert_true(kexecrec_nonce_ok(nonce));
	assert_string_not_equal(nonce, NONCE);
	assert_non_null(strstr(b.data, nonce));
	/* the kexec that never jumped leaves no boot to read as failed */
	assert_string_equal(json_string_value(json_object_get(rec, "state")), "done");
	buf_release(&b);
	json_decref(rec);
	free(log);
}

static void test_resume_same_boot(void **state)
{
	struct fixture *fx = *state;
	struct job_outcome out;
	json_t *rec = booting(fx, 1, 1);
	char *path = kexec_record_path(fx->work, fx->spec.id), bootid[37];
	char *log = xstrfmt("%s/kexec.log", fx->dir);
	struct buf b = BUF_INIT(0);
	struct err e;

	/* a worker that died after the record, before kexec -e: this kernel's boot id */
	kexec_boot_id(bootid);
	assert_int_equal(strlen(bootid), 36);
	json_object_set_new(rec, "boot_id", json_string(bootid));
	assert_int_equal(kexec_record_save(path, rec, &e), 0);
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), -1);
	assert_string_equal(e.detail, "kexec -e"); /* booted again, not boot-failed */
	assert_string_equal(out.status, "run-failed");
	job_outcome_release(&out);
	assert_int_equal(buf_read_file(&b, log), 0);
	assert_non_null(strstr(b.data, "-l /w/bzImage"));
	buf_release(&b);
	json_decref(rec);
	rec = load_record(fx);
	assert_int_equal(json_integer_value(json_object_get(rec, "run")), 1);
	json_decref(rec);
	free(log);
	free(path);
}

static void test_no_result_dev(void **state)
{
	struct fixture *fx = *state;
	struct job_outcome out;
	struct err e;

	fx->env.kexec = NULL;
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), -1);
	assert_int_equal(e.id, ERR_INVALID_JOB);
	assert_string_equal(e.detail, "params.accel");
	job_outcome_release(&out);
}

/* --- a kernel another worker built, fetched by its SHA-256 ------------------ */

/* an image's bytes, a NUL among them */
static const char IMAGE[] = "MZ\0a bzImage that another worker built";
static const char WRONG[] = "not the bytes of that name";

/* GET /api/v1/images/{sha256}: cls is the path served (IMAGE, or WRONG when it ends
 * in a '!'), anything else 404 */
static enum MHD_Result serve_image(void *cls, struct MHD_Connection *conn, const char *url,
				   const char *method UNUSED, const char *version UNUSED,
				   const char *upload UNUSED, size_t *upload_size UNUSED,
				   void **ctx)
{
	const char *want = cls;
	size_t n = strlen(want);
	int wrong = want[n - 1] == '!',
	    hit = !strncmp(url, want, wrong ? n - 1 : n) && strlen(url) == (wrong ? n - 1 : n);
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (!*ctx) {
		*ctx = conn;
		return MHD_YES;
	}
	resp = MHD_create_response_from_buffer(!hit  ? 2 :
					       wrong ? sizeof(WRONG) :
						       sizeof(IMAGE),
					       (void *)(!hit  ? "{}" :
							wrong ? WRONG :
								IMAGE),
					       MHD_RESPMEM_PERSISTENT);
	ret = MHD_queue_response(conn, hit ? 200 : 404, resp);
	MHD_destroy_response(resp);
	return ret;
}

static struct MHD_Daemon *image_server(const char *path, char url[64])
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct MHD_Daemon *d;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, serve_image,
			     (void *)path, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			     MHD_OPTION_END);
	assert_non_null(d);
	snprintf(url, 64, "http://127.0.0.1:%u",
		 MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
	return d;
}

static void touch(const char *dir, const char *name)
{
	char *p = xstrfmt("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs("#!/bin/true\n", f);
	fclose(f);
	free(p);
}

static void test_boot_fetched_image(void **state)
{
	struct fixture *fx = *state;
	char sha[65], other[65], url[64], *want, *wrong, *cached, *log, *arch;
	struct MHD_Daemon *d;
	struct job_outcome out;
	struct buf b = BUF_INIT(0);
	json_t *rec;
	struct err e;

	sha256_hex(IMAGE, sizeof(IMAGE), sha);
	sha256_hex("else", 4, other);
	want = xstrfmt("/api/v1/images/%s", sha);
	wrong = xstrfmt("/api/v1/images/%s!", sha);
	/* the job initramfs: /init and the case, as `make cases` leaves them */
	arch = xstrfmt("%s/x86_64", fx->cases);
	assert_int_equal(mkdir(arch, 0755), 0);
	touch(arch, "init");
	touch(arch, "small-allocs");
	fx->spec.boot_image = sha;
	fx->spec.tree = NULL; /* nothing is built: no tree, no commit fetched */
	d = image_server(want, url);
	fx->kc.server_url = url;
	fx->kc.token = "worker-token";
	fx->kc.http_timeout_s = 10;
	/* fetched, checked, kept under WORK_DIR/images, and kexec'd as it is */
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), -1);
	assert_string_equal(e.detail, "kexec -e"); /* the stand-in kexec does not jump */
	job_outcome_release(&out);
	cached = xstrfmt("%s/images/%s", fx->work, sha);
	assert_int_equal(buf_read_file(&b, cached), 0);
	assert_int_equal(b.len, sizeof(IMAGE));
	assert_memory_equal(b.data, IMAGE, sizeof(IMAGE));
	buf_release(&b);
	log = xstrfmt("%s/kexec.log", fx->dir);
	assert_int_equal(buf_read_file(&b, log), 0);
	assert_non_null(strstr(b.data, cached));
	assert_non_null(strstr(b.data, "--initrd"));
	buf_release(&b);
	rec = load_record(fx);
	assert_string_equal(json_string_value(json_object_get(rec, "image")), cached);
	json_decref(rec);
	MHD_stop_daemon(d);
	/* the cached copy is used with no server at all */
	fx->kc.server_url = NULL;
	unlink(log);
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), -1);
	assert_string_equal(e.detail, "kexec -e");
	job_outcome_release(&out);
	/* bytes that hash to another name are never kept nor booted; nor is a 404 */
	unlink(cached);
	unlink(log);
	d = image_server(wrong, url);
	fx->kc.server_url = url;
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), -1);
	assert_string_equal(e.detail, "image_sha256");
	assert_non_null(strstr(e.message, "hashes to"));
	job_outcome_release(&out);
	fx->spec.boot_image = other;
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), -1);
	assert_string_equal(e.detail, "image_sha256");
	assert_non_null(strstr(e.message, "404"));
	job_outcome_release(&out);
	MHD_stop_daemon(d);
	assert_int_equal(access(cached, F_OK), -1);
	assert_int_equal(access(log, F_OK), -1); /* kexec never ran */
	/* and only for a bare-metal job */
	json_object_set_new(fx->spec.params, "accel", json_string("tcg"));
	fx->spec.boot_image = sha;
	assert_int_equal(job_execute(&fx->spec, &fx->env, NULL, NULL, &out, &e), -1);
	assert_string_equal(e.detail, "image_sha256");
	job_outcome_release(&out);
	free(want);
	free(wrong);
	free(cached);
	free(log);
	free(arch);
}

/* PUT /api/v1/images/{sha256}: what arrived (method, url, body), answered 201 */
struct received {
	char method[8], url[128];
	struct buf body;
};

static enum MHD_Result take_image(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version UNUSED,
				  const char *upload, size_t *upload_size, void **ctx)
{
	struct received *r = cls;
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (!*ctx) {
		*ctx = conn;
		snprintf(r->method, sizeof(r->method), "%s", method);
		snprintf(r->url, sizeof(r->url), "%s", url);
		return MHD_YES;
	}
	if (*upload_size) {
		if (buf_add(&r->body, upload, *upload_size))
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	resp = MHD_create_response_from_buffer(2, (void *)"{}", MHD_RESPMEM_PERSISTENT);
	ret = MHD_queue_response(conn, 201, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void test_upload_image(void **state UNUSED)
{
	struct received r = { .body = BUF_INIT(1 << 20) };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char *dir = tmpdir(), *path = xstrfmt("%s/bzImage", dir), sha[65], url[64], *want;
	struct kexec_conf c = { .http_timeout_s = 10 };
	struct MHD_Daemon *d;
	struct err e;
	FILE *f = fopen(path, "w");

	fwrite(IMAGE, 1, sizeof(IMAGE), f);
	fclose(f);
	sha256_hex(IMAGE, sizeof(IMAGE), sha);
	/* no server: refused before anything is read */
	assert_int_equal(kexec_image_upload(&c, path, sha, &e), -1);
	assert_string_equal(e.detail, "image_sha256");
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, take_image, &r,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	assert_non_null(d);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u",
		 MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
	c.server_url = url;
	c.token = "worker-token";
	assert_int_equal(kexec_image_upload(&c, path, sha, &e), 0);
	MHD_stop_daemon(d);
	want = xstrfmt("/api/v1/images/%s", sha);
	assert_string_equal(r.method, "PUT");
	assert_string_equal(r.url, want);
	assert_int_equal(r.body.len, sizeof(IMAGE));
	assert_memory_equal(r.body.data, IMAGE, sizeof(IMAGE));
	buf_release(&r.body);
	rmrf(dir);
	free(want);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_and_nonce),
		cmocka_unit_test(test_record_format),
		cmocka_unit_test(test_record_device),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_spool_record),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_boot),
		cmocka_unit_test_setup_teardown(test_resume_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_boot_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_run_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_next_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_same_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_result_dev, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot_fetched_image, setup, teardown),
		cmocka_unit_test(test_upload_image),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
