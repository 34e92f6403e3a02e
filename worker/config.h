#ifndef REGTRACK_WORKER_CONFIG_H
#define REGTRACK_WORKER_CONFIG_H

#include <stdio.h>

#include "err.h"
#include "worker/kexec.h"

/*
 * Configuration of regtrack-worker: one declarative table of keys (name,
 * command-line flag, type, default, bounds, help) in config.c, read from a
 * `key = value` file and overridden by flags (after redis' static_configs[]
 * and pgbouncer's bouncer_params[]).
 *
 * Precedence, lowest first: built-in default, config file (--config FILE),
 * environment REGTRACK_TOKEN (token only), command-line flag.
 *
 * File syntax: one `key = value` per line; blank lines and lines whose
 * first non-blank character is '#' are ignored; whitespace around key and
 * value is trimmed; a value may be wrapped in double quotes (kept verbatim
 * inside, no escapes). A key given twice: the last one wins. Unknown keys,
 * lines without '=', values of the wrong type and values out of bounds are
 * errors naming the file and line. See deploy/etc/regtrack-worker.conf.
 *
 * Every string field is new, owned by the struct and freed by
 * worker_config_release(); a string is never NULL (an unset one is "").
 */
struct worker_config {
	char *server_url;   /* http(s)://host[:port][/prefix], no trailing '/' */
	char *token;	    /* bearer token, worker scope */
	char *token_file;   /* "" or a file holding the token (worker_config_read_token) */
	char *sandbox;	    /* "on" | "off" (worker/sandbox.h) */
	char *build_user;   /* user sandboxed builds run as when the worker is root */
	char *work_dir;	    /* mirrors, builds and spool/ live here */
	char *arch;	    /* x86_64 | aarch64; default: uname -m */
	char *tbox_group;   /* default: the host name */
	char *capabilities; /* validated, comma-separated: host,qemu-x86_64,qemu-aarch64 */
	char *cases_dir;    /* static case binaries; "" = next to the executable */
	char *ccache_dir;   /* "" = WORK_DIR/ccache */
	int make_jobs;	    /* 0 = number of online CPUs */
	int qemu_mem_mb;
	int qemu_cpus; /* 0 = the host's CPUs under KVM, 2 under TCG */
	int timeout_fetch_s;
	int timeout_build_s;
	int timeout_boot_s;
	int timeout_run_s;
	int keep_logs;	     /* run logs kept per run dir (worker/runlogs.h); 0 = all */
	int lease_wait_s;    /* long-poll wait of one lease request, <= 60 */
	int heartbeat_s;     /* heartbeat period outside the "run" phase */
	int heartbeat_run_s; /* heartbeat period while a case is measuring */
	int http_timeout_s;  /* per request, added to lease_wait_s for leases */
	int retry_max_s;     /* cap of the upload/register retry backoff */
	int once;	     /* --once: one lease, then exit */
	char *config_file;   /* the --config FILE read, "" if none */

	/* bare metal (worker/kexec.h): capabilities kexec-ARCH */
	char *kexec_bin;	/* kexec-tools' kexec */
	char *kexec_result_dev; /* "" or the raw device of kexec results */
	char *kexec_append;	/* the kexec'd kernel's own command-line words */
	int kexec_panic_s;	/* its panic=N */
	int upload_images;	/* 1: each kernel image built is uploaded for kexec hosts */
};

/* Fills c with the built-in defaults (arch from uname(2), tbox_group from
 * gethostname(2)). Release with worker_config_release(). */
void worker_config_init(struct worker_config *c);
void worker_config_release(struct worker_config *c);

/*
 * Sets one key from its text form, with the key's type and bounds checked.
 * `key` is the file name of the key ("make_jobs"). Errors (c unchanged):
 * ERR_CONFIG: an unknown key, a value that is not a number, a bad URL, an
 * unknown capability, a number out of range (e->message says which and
 * names the bounds). e->detail is the key.
 */
int worker_config_set(struct worker_config *c, const char *key, const char *value, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Reads a config file (syntax above) into c. Errors: ERR_IO (cannot open or
 * read; e->detail the path), ERR_CONFIG (a line that is not "key = value")
 * and those of worker_config_set() with
 * e->detail "PATH:LINE: KEY" — c may then hold the keys of earlier lines.
 */
int worker_config_load_file(struct worker_config *c, const char *path, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Applies the command line after the subcommand name (argv[0] is "run";
 * argv[1..argc-1] are options): first the file named by --config, then
 * env_token (the value of REGTRACK_TOKEN, NULL or "" for none), then every
 * flag (`--flag VALUE` or `--flag=VALUE`; `--once` takes no value).
 * Errors: ERR_CONFIG (unknown flag, missing value, stray argument; e->detail
 * the argument) and those of worker_config_load_file()/_set().
 */
int worker_config_from_args(struct worker_config *c, int argc, char **argv, const char *env_token,
			    struct err *e) __attribute__((warn_unused_result));

/*
 * Checks what `run` needs that defaults cannot give: server_url and token
 * set, heartbeat_run_s >= heartbeat_s, kexec_result_dev with a kexec-ARCH
 * capability. Error ERR_CONFIG,
 * e->detail the key.
 */
int worker_config_check(const struct worker_config *c, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Reads c->token_file (when set) into c->token: the first line, blanks
 * around it dropped. The file must be a regular file that neither group nor
 * others may read or write (a token anyone on the host can read is not a
 * secret). Errors: ERR_IO (cannot open or read it; detail the path),
 * ERR_CONFIG (its mode lets others read it, or it is empty; detail
 * "token_file").
 */
int worker_config_read_token(struct worker_config *c, struct err *e)
	__attribute__((warn_unused_result));

/* 1 if the comma-separated capability list of c contains `cap`, else 0. */
int worker_config_has_cap(const struct worker_config *c, const char *cap);

/* The kexec keys of c as kexec.h's settings (strings borrowed from c; result_dev NULL when ""). */
void worker_config_kexec(const struct worker_config *c, struct kexec_conf *k);

/* Prints every flag with its key, default and bounds (for --help). */
void worker_config_usage(FILE *f);

#endif
