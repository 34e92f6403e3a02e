#ifndef REGTRACK_WORKER_KEXEC_H
#define REGTRACK_WORKER_KEXEC_H

/*
 * Bare-metal host mode: the job's kernel booted with kexec on the machine
 * the worker runs on (job param accel "kexec", capabilities kexec-x86_64,
 * kexec-aarch64). One boot per run:
 *
 *   worker (own kernel)                        test kernel
 *   build kernel + job initramfs
 *   kexec_record_save(): the spool record
 *     "job J kexec'd at T, boot nonce N, run i of R", fsynced
 *   kexec -l IMAGE --initrd INITRD --append "... rt.result=DEV rt.nonce=N"
 *   kexec -e  ───────────────────────────────> /init runs the case, writes the
 *                                              result record to DEV (lib/kexecrec.h)
 *                                              first, then reboots; a panic
 *                                              reboots by panic=N, a hang is
 *                                              power-cycled (README "Bare metal")
 *   worker starts (own kernel again) <─────────┘
 *   leases again under the lease request it kept (agent.h "Crash and
 *   restart"): the server hands back job J, same attempt
 *   job_execute() finds the spool record:
 *     kexec_decide(): a result of this boot → the run; next boot or done
 *                     no result            → boot-failed
 *
 * The spool record is WORK_DIR/kexec/job-J.json, written durably (a temp
 * file fsynced, renamed, the dir fsynced) before `kexec -l`. A record is
 * kept after its job's outcome was handed to the agent, marked "done" and
 * with the runs in it (the agent spools the completion right after):
 * results that were read from the device are never only in memory.
 */
#include <jansson.h>

#include "err.h"
#include "kexecrec.h"

struct kexec_conf {
	const char *bin;	/* kexec-tools' kexec; looked up in PATH unless a path */
	const char *result_dev; /* the raw device (or file) the result record goes to */
	const char *append;	/* the test kernel's own command-line words (console=...) */
	int panic_s;		/* panic=N: a panicking test kernel reboots after N s */
	int timeout_s;		/* limit of each kexec command */
	/* the server, for an image another worker built (kexec_image_fetch) */
	const char *server_url, *token; /* borrowed; NULL url: no fetching */
	long http_timeout_s;		/* limit of the fetch */
	int upload;			/* 1: images built are uploaded (kexec_image_upload) */
};

/* Largest image kexec_image_fetch() takes (the server's image_limit caps it lower). */
#define KEXEC_IMAGE_MAX (256L << 20)

/*
 * A kernel image another worker built and uploaded (README "Bare metal":
 * PUT /api/v1/images/SHA256), for a job that names it: WORK_DIR/images/
 * SHA256 when it is there with those bytes, else fetched with GET
 * /api/v1/images/SHA256 and written there durably (a temp file fsynced and
 * renamed). The bytes are checked against sha256 either way: a file or a
 * reply that hashes to another name is never booted. *path: a new string
 * (free()). Returns 0, or -1 with e: ERR_INVALID_JOB (detail
 * "image_sha256": not 64 lowercase hex, no server_url, the server has no
 * such image (404) or sent bytes of another hash), ERR_TRANSPORT and the
 * other errors of api_client_send(), ERR_IO (the work dir).
 */
/*
 * Uploads the kernel image at path, whose bytes hash to sha256, with PUT
 * /api/v1/images/SHA256 (201 stored, 200 the server had it), so that a
 * bare-metal host's job can name it. Returns 0, or -1 with e:
 * ERR_IO (the file), ERR_INVALID_JOB (detail "image_sha256": no
 * server_url, or the server refused it: its status and reply in the
 * message), the errors of api_client_send().
 */
int kexec_image_upload(const struct kexec_conf *c, const char *path, const char *sha256,
		       struct err *e) __attribute__((warn_unused_result));

int kexec_image_fetch(const struct kexec_conf *c, const char *work_dir, const char *sha256,
		      char **path, struct err *e) __attribute__((warn_unused_result));

/*
 * The argv of loading the test kernel: {bin, "-l", image, "--initrd",
 * initrd, "--append", cmdline, NULL}; of starting it: {bin, "-e", NULL}.
 * Pointers borrowed from the arguments; argv must hold 8 entries.
 */
void kexec_load_argv(const char *argv[8], const char *bin, const char *image, const char *initrd,
		     const char *cmdline);
void kexec_exec_argv(const char *argv[8], const char *bin);

/*
 * The test kernel's command line: c->append, "panic=N", "rt.result=DEV",
 * "rt.nonce=NONCE", "rt.job=J", space-separated. New string (free()).
 */
char *kexec_cmdline(const struct kexec_conf *c, long long job_id, const char *nonce);

/* A fresh boot nonce: KEXECREC_NONCE_LEN hex digits from getrandom into nonce[17]. */
void kexec_new_nonce(char nonce[KEXECREC_NONCE_LEN + 1]);

/* WORK_DIR/kexec/job-J.json (new string). */
char *kexec_record_path(const char *work_dir, long long job_id);

/*
 * Writes rec (borrowed) to path durably: PATH.tmp written and fsynced,
 * renamed over path, the directory (created if needed) fsynced. Returns
 * 0, or -1 with e ERR_IO (detail the path).
 */
int kexec_record_save(const char *path, const json_t *rec, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Reads the record at path: 1 with *rec a new reference, 0 when there is
 * none, -1 with e ERR_TORN (not a JSON object with a job_id and a nonce:
 * moved aside to PATH.torn, never deleted) or ERR_IO.
 */
int kexec_record_load(const char *path, json_t **rec, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Deletes the records under WORK_DIR/kexec/ whose job ended here: state
 * "done" (the outcome was handed to the agent, which calls this once the
 * completion is spooled or sent). A "booting" record is kept (its machine
 * is still to come back, or its job to be leased again), and so are torn
 * ones (moved to PATH.torn, for a person) and files of other names.
 * Returns how many were deleted (0 when there is no kexec directory), or
 * -1 when the directory or a record cannot be read or deleted (logged as
 * a warning: the agent goes on, a later sweep tries again).
 */
int kexec_records_sweep(const char *work_dir);

/* What a restarted worker does with a job it finds a spool record of. */
enum kexec_next {
	KEXEC_FRESH,	   /* no record (or a done one): build and boot run 1 */
	KEXEC_BOOT_AGAIN,  /* the record's boot never happened (same_boot): boot it again */
	KEXEC_BOOT_NEXT,   /* the run came back ok and more are due: boot the next */
	KEXEC_DONE,	   /* the last run came back ok: status ok */
	KEXEC_BOOT_FAILED, /* no result of the boot: it panicked, hung and was power-cycled,
			      or never reached /init */
	KEXEC_RUN_FAILED   /* a result that is torn, unreadable, or of a failed case */
};

/*
 * The decision, pure: have_record (a record in state "booting"),
 * same_boot (the record was written in the kernel running now: the
 * machine never left it, so no kexec happened: the worker died between
 * the record and `kexec -e`, and the boot is made again), the device's
 * answer for its job and nonce, run_ok (the payload's result block parsed
 * into metrics; read only with KEXECREC_VALID), the runs done before this
 * boot and the job's repeat.
 */
enum kexec_next kexec_decide(int have_record, int same_boot, enum kexecrec_state dev, int run_ok,
			     int runs_done, int repeat);

/* The running kernel's boot id (/proc/sys/kernel/random/boot_id) into id[37]; "" if unreadable. */
void kexec_boot_id(char id[37]);

/*
 * Loads and starts the test kernel: kexec -l with rec's "image", "initrd"
 * and "cmdline", then kexec -e. Returns only when that failed (on success
 * the machine is running the test kernel): -1 with e ERR_SPAWN (kexec
 * missing, or either step failed or timed out: kexec's stderr in the
 * message, detail "kexec -l" or "kexec -e"), ERR_INVALID_JOB (rec lacks a
 * field).
 */
int kexec_boot(const struct kexec_conf *c, const json_t *rec, struct err *e)
	__attribute__((warn_unused_result));

#endif
