#include "worker/agent.h"
#include "worker/caselist.h"
#include "fsutil.h"
#include "worker/completion.h"
#include "worker/execute.h"
#include "worker/jobspec.h"
#include "worker/upload.h"
#include "worker/wlog.h"
#include "xalloc.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

/* "a b c" -> ["a", "b", "c"] (new) */
static json_t *split_words(const char *s)
{
	json_t *a = json_array();

	while (*s) {
		size_t n = strcspn(s, " ");

		if (n)
			json_array_append_new(a, json_stringn(s, n));
		s += n + (s[n] == ' ');
	}
	return a;
}

#define BACKOFF_START_S 1

static int stopping(const struct agent *a)
{
	return atomic_load(a->stop) != 0;
}

/* Sleeps up to `s` seconds, waking early when a stop is requested. */
static void nap(const struct agent *a, double s)
{
	struct timespec slice = { 0, 200 * 1000 * 1000 };

	for (double left = s; left > 0 && !stopping(a); left -= 0.2)
		nanosleep(&slice, NULL);
}

/* Exponential backoff with jitter: 1, 2, 4, ... retry_max_s seconds, +0..25%. */
static double backoff_next(const struct agent *a, double *cur)
{
	double d = *cur, j = d * 0.25 * ((double)(rand() % 1000) / 1000.0);

	*cur = d * 2 > a->cfg->retry_max_s ? a->cfg->retry_max_s : d * 2;
	return d + j;
}

/* The retries of one step (send the spool, register, lease, one upload). */
struct retry {
	double cur;   /* the next backoff, s */
	double since; /* CLOCK_MONOTONIC of the first failure, 0 = none yet */
	int failures;
};

/* clang-format off */
#define RETRY_INIT { BACKOFF_START_S, 0, 0 }
/* clang-format on */

/*
 * Called after a failed attempt of a step named `what`: waits the next
 * backoff and returns 0 (try again). With --once the step is tried for
 * retry_max_s seconds from its first failure, no longer: the last wait is
 * cut to end at that point, and the failure after it returns -1 (give up,
 * with an error logged) without waiting. Also returns 0 early on a stop:
 * the callers check stopping().
 */
static int retry_wait(const struct agent *a, struct retry *rt, const char *what)
{
	double now = mono_s(), left, d;

	if (!rt->since)
		rt->since = now;
	rt->failures++;
	if (!a->cfg->once) {
		nap(a, backoff_next(a, &rt->cur));
		return 0;
	}
	left = rt->since + a->cfg->retry_max_s - now;
	if (left <= 0) {
		wlog_error("%s: giving up after %d failed attempt(s) in %.0f s (--once retries a step for retry_max_s = %d s)",
			   what, rt->failures, now - rt->since, a->cfg->retry_max_s);
		return -1;
	}
	d = backoff_next(a, &rt->cur);
	nap(a, d < left ? d : left);
	return 0;
}

/* ---- directories ------------------------------------------------------- */

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* cases_dir "": bin/cases beside the executable, else PREFIX/share/regtrack/cases. */
char *agent_cases_dir(const char *configured)
{
	char exe[PATH_MAX], *slash, *cand;
	ssize_t n;

	if (*configured)
		return xstrdup(configured);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return xstrdup("/usr/local/share/regtrack/cases");
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	cand = xstrfmt("%s/cases", exe);
	if (is_dir(cand))
		return cand;
	free(cand);
	return xstrfmt("%s/../share/regtrack/cases", exe);
}

/* ---- the lease request of a job in flight, kept in WORK_DIR --------------- */

/*
 * WORK_DIR/lease-request holds the name (UUID) of the lease request whose
 * job this worker has not finished: written before the request is sent,
 * removed once the job's completion is in the spool (or the job was lost).
 * Only the process that holds the work dir's spool lock reads or writes
 * it, and that lock dies with its holder: a worker that finds the file at
 * its start is the same worker slot restarted after a crash (kill -9, OOM,
 * reboot), and its first lease asks under that name, so the server hands
 * the job that is still leased to this machine under it back at once
 * (lease_try(), sql/0012) instead of letting it wait out its lease. Other
 * worker processes sharing the machine id have their own work dirs and
 * never know the name, so they cannot take it. Best effort: an I/O error
 * is logged and only costs the early hand-back.
 */
static void lease_request_save(const struct agent *a)
{
	char *tmp = xstrfmt("%s.tmp", a->lease_file);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t n = strlen(a->lease_request);
	int bad = fd < 0;

	/* kill -9 keeps what is in the page cache: no fsync (a power cut only costs the hand-back) */
	if (!bad)
		bad = write(fd, a->lease_request, n) != (ssize_t)n || write(fd, "\n", 1) != 1;
	if (fd >= 0 && close(fd))
		bad = 1;
	if (!bad)
		bad = rename(tmp, a->lease_file) != 0;
	if (bad) {
		wlog_warn("cannot write '%s' (a job in flight is not handed back early after a crash): %s",
			  a->lease_file, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
}

static void lease_request_forget(const struct agent *a)
{
	if (unlink(a->lease_file) && errno != ENOENT)
		wlog_warn("cannot remove '%s': %s", a->lease_file, strerror(errno));
}

/* At start: the name a previous run of this work dir left, if any. */
static void lease_request_load(struct agent *a)
{
	char text[64] = "";
	int fd = open(a->lease_file, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	uuid_t u;

	if (fd < 0)
		return;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	text[strcspn(text, "\n")] = '\0';
	if (uuid_parse(text, u)) {
		wlog_warn("ignoring '%s': not a UUID", a->lease_file);
		lease_request_forget(a);
		return;
	}
	uuid_unparse_lower(u, a->lease_request);
	wlog_info("a previous run left lease request %s unfinished; asking under it first, so its job comes back if still leased to this machine",
		  a->lease_request);
}

/* ---- setup ------------------------------------------------------------- */

json_t *agent_register_body(const struct agent *a)
{
	json_t *caps = json_array();
	const char *p = a->cfg->capabilities;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		json_array_append_new(caps, json_stringn(p, n));
		p = end ? end + 1 : NULL;
	}
	json_t *body = json_pack("{s:s?, s:s, s:s, s:I, s:I, s:s?, s:o, s:o}", "hostname",
				 a->fp.hostname, "arch", a->cfg->arch, "tbox_group",
				 a->cfg->tbox_group, "nr_cpus", (json_int_t)a->fp.nr_cpus,
				 "memory_mb", (json_int_t)a->fp.memory_mb, "cpu_model",
				 a->fp.cpu_model, "capabilities", caps, "fingerprint",
				 fingerprint_json(&a->fp));

	/* the cases and their params: the server refuses jobs that name others */
	if (body && a->cases)
		json_object_set(body, "cases", a->cases);
	return body;
}

int agent_init(struct agent *a, struct worker_config *cfg, const atomic_int *stop, struct err *e)
{
	char *spool_dir;
	long cpus;

	memset(a, 0, sizeof(*a));
	a->cfg = cfg;
	a->stop = stop;
	srand((unsigned)getpid() ^ (unsigned)time(NULL));

	if (fingerprint_collect(&a->fp, "/", e))
		return -1;
	a->machine = json_pack("{s:s?, s:s, s:s?, s:I, s:I, s:s}", "hostname", a->fp.hostname,
			       "arch", cfg->arch, "cpu_model", a->fp.cpu_model, "nr_cpus",
			       (json_int_t)a->fp.nr_cpus, "memory_mb", (json_int_t)a->fp.memory_mb,
			       "tbox_group", cfg->tbox_group);
	if (fs_mkdirs(cfg->work_dir, 0755, e))
		return -1;
	spool_dir = xstrfmt("%s/spool", cfg->work_dir);
	if (spool_open(&a->spool, spool_dir, e)) {
		free(spool_dir);
		return -1;
	}
	free(spool_dir);
	/* under the spool lock: no other live process uses this work dir */
	a->lease_file = xstrfmt("%s/lease-request", cfg->work_dir);
	lease_request_load(a);
	if (api_client_init(&a->api, cfg->server_url, cfg->token, cfg->http_timeout_s, e) ||
	    heartbeat_init(&a->hb, cfg, e))
		return -1;
	a->cases_dir = agent_cases_dir(cfg->cases_dir);
	a->cases = caselist_collect(a->cases_dir, cfg->arch);
	a->ccache_dir = *cfg->ccache_dir ? xstrdup(cfg->ccache_dir) :
					   xstrfmt("%s/ccache", cfg->work_dir);
	worker_config_kexec(cfg, &a->kexec);
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	a->make_jobs = cfg->make_jobs ? cfg->make_jobs : (cpus > 0 ? (int)cpus : 1);
	if (sandbox_init(&a->sandbox, cfg->sandbox, cfg->build_user, e))
		return -1;
	if (a->sandbox.off)
		wlog_warn("sandbox = off: builds (patched ones too) run with the worker's rights");
	else if (!a->sandbox.bwrap)
		wlog_warn("no sandbox: %s; jobs with patches will be refused", a->sandbox.why);
	else
		wlog_info("builds run in bubblewrap ('%s')%s", a->sandbox.bwrap,
			  a->sandbox.uid >= 0 ? " as the build user" : "");
	return 0;
}

void agent_release(struct agent *a)
{
	sandbox_release(&a->sandbox);
	heartbeat_release(&a->hb);
	api_client_release(&a->api);
	spool_close(&a->spool);
	fingerprint_release(&a->fp);
	json_decref(a->machine);
	json_decref(a->machine_id);
	json_decref(a->cases);
	a->cases = NULL;
	free(a->cases_dir);
	free(a->ccache_dir);
	free(a->lease_file);
	a->machine = a->machine_id = NULL;
	a->cases_dir = a->ccache_dir = a->lease_file = NULL;
}

/* ---- protocol steps ---------------------------------------------------- */

/*
 * Sends the spool until it is empty; with backoff; gives up early on stop,
 * and with --once after retry_max_s (retry_wait()): the entries stay in the
 * spool. Returns the entries left; *aside (may be NULL) counts entries dropped or
 * rejected on the way.
 */
static size_t drain_spool(struct agent *a, size_t *aside)
{
	struct retry rt = RETRY_INIT;
	size_t left = 0;

	kexec_records_sweep(a->cfg->work_dir); /* ended jobs' boot records (kexec.h) */
	if (aside)
		*aside = 0;
	for (;;) {
		struct err e;
		size_t n = 0;

		if (upload_flush(&a->spool, &a->api, &left, NULL, &n, &e)) {
			wlog_error("spool: %s", e.message);
			/* a broken spool dir: keep trying, results are still on disk */
		}
		if (aside)
			*aside += n;
		if (!left)
			return 0;
		if (stopping(a)) {
			wlog_warn("stopping with %zu completion(s) in '%s'; they are sent on the next start",
				  left, a->spool.dir);
			return left;
		}
		if (retry_wait(a, &rt, "sending the spool")) {
			wlog_error("%zu completion(s) left in '%s'; they are sent on the next start",
				   left, a->spool.dir);
			return left;
		}
	}
}

/* 0 registered; -1 refused for good, given up (--once), or stopped. */
static int do_register(struct agent *a)
{
	json_t *body = agent_register_body(a);
	struct retry rt = RETRY_INIT;
	char *what = xstrfmt("register at '%s'", a->cfg->server_url);
	int ret = -1;

	while (!stopping(a)) {
		struct api_reply r;
		struct err e;
		json_t *id;

		if (api_client_post(&a->api, "/api/v1/workers/register", body, 0, &r, &e)) {
			wlog_warn("register at '%s' failed, will retry: %s", a->cfg->server_url,
				  e.message);
			if (retry_wait(a, &rt, what))
				break;
			continue;
		}
		id = json_object_get(r.body, "machine_id");
		if (r.status == 200 && (json_is_integer(id) || json_is_string(id))) {
			json_decref(a->machine_id);
			a->machine_id = json_incref(id);
			/* 0 (an old server that does not say): the configured periods */
			heartbeat_set_lease_timeout(&a->hb,
						    json_integer_value(
							    json_object_get(r.body,
									    "lease_timeout_s")),
						    "register");
			char *shown = json_dumps(id, JSON_ENCODE_ANY);

			wlog_info("registered at '%s' as machine %s (arch %s, tbox_group %s, capabilities %s, %zu case(s))",
				  a->cfg->server_url, shown ? shown : "?", a->cfg->arch,
				  a->cfg->tbox_group, a->cfg->capabilities,
				  a->cases ? json_object_size(a->cases) : 0);
			free(shown);
			api_reply_release(&r);
			ret = 0;
			break;
		}
		api_reply_error(&r, "register", &e);
		if (r.status >= 400 && r.status < 500 && r.status != 408 && r.status != 429) {
			wlog_error("%s", e.message);
			api_reply_release(&r);
			break;
		}
		wlog_warn("%s; will retry", e.message);
		api_reply_release(&r);
		if (retry_wait(a, &rt, what))
			break;
	}
	free(what);
	json_decref(body);
	return ret;
}

enum lease_result { LEASE_JOB, LEASE_NONE, LEASE_RETRY, LEASE_REREGISTER, LEASE_FATAL };

static enum lease_result do_lease(struct agent *a, json_t **job)
{
	json_t *body;
	struct api_reply r;
	struct err e;
	enum lease_result res;
	int rc;

	*job = NULL;
	if (!a->lease_request[0]) {
		uuid_t u;

		uuid_generate_random(u);
		uuid_unparse_lower(u, a->lease_request);
		lease_request_save(a); /* before the server may lease under it */
	}
	body = json_pack("{s:O, s:i, s:s}", "machine_id", a->machine_id, "wait_s",
			 a->cfg->lease_wait_s, "request_id", a->lease_request);
	api_client_set_cancel(&a->api, a->stop); /* a stop cuts the long-poll short */
	rc = api_client_post(&a->api, "/api/v1/jobs/lease", body, a->cfg->lease_wait_s, &r, &e);
	api_client_set_cancel(&a->api, NULL);
	json_decref(body);
	if (rc) {
		/* the server may have leased a job to this request: ask again by the same name */
		if (e.id != ERR_CANCELLED)
			wlog_warn("lease failed: %s", e.message);
		return LEASE_RETRY;
	}
	if (r.status == 204) {
		res = LEASE_NONE;
	} else if (r.status == 200 && json_is_object(json_object_get(r.body, "job"))) {
		*job = json_incref(json_object_get(r.body, "job"));
		/* before the job starts: its heartbeats fit the timeout in force now */
		heartbeat_learn_lease_timeout(&a->hb, r.body, "lease");
		res = LEASE_JOB;
	} else {
		api_reply_error(&r, "lease", &e);
		if (r.status == 404 || r.status == 410) {
			/* the server does not know this machine (e.g. a new database) */
			wlog_warn("%s; registering again", e.message);
			res = LEASE_REREGISTER;
		} else if (r.status == 401 || r.status == 403) {
			wlog_error("%s", e.message);
			res = LEASE_FATAL;
		} else {
			wlog_warn("%s", e.message);
			res = LEASE_RETRY;
		}
	}
	/* an answer: the next lease is a new request, unless a gateway or the server failed */
	if (!(res == LEASE_RETRY && r.status >= 500)) {
		a->lease_request[0] = '\0';
		if (res != LEASE_JOB)
			lease_request_forget(a); /* no job under it */
	}
	api_reply_release(&r);
	return res;
}

static const char *job_str(const json_t *job, const char *key)
{
	return json_string_value(json_object_get(job, key));
}

/*
 * Runs one leased job and delivers its completion. Returns 0 when the
 * completion was acknowledged (or no completion is due), 1 when the lease
 * was lost or the completion is left in the spool.
 */
static int run_job(struct agent *a, json_t *job)
{
	struct worker_env env = {
		.work_dir = a->cfg->work_dir,
		.arch = a->cfg->arch,
		.cases_dir = a->cases_dir,
		.ccache_dir = a->ccache_dir,
		.make_jobs = a->make_jobs,
		.qemu_mem_mb = a->cfg->qemu_mem_mb,
		.qemu_cpus = a->cfg->qemu_cpus,
		.timeout_fetch_s = a->cfg->timeout_fetch_s,
		.timeout_build_s = a->cfg->timeout_build_s,
		.timeout_boot_s = a->cfg->timeout_boot_s,
		.timeout_run_s = a->cfg->timeout_run_s,
		.keep_logs = a->cfg->keep_logs,
		.sandbox = &a->sandbox,
		.kexec = &a->kexec,
	};
	struct job_spec spec;
	struct job_outcome out;
	struct err e, xe;
	const char *status;
	char *log = NULL;
	json_t *body, *entry;
	long long id = json_integer_value(json_object_get(job, "id"));
	int rc, hb_failures;
	size_t left, aside;

	memset(&out, 0, sizeof(out));
	err_clear(&xe);
	wlog_info("job %lld: leased: commit %.12s kconfig %s testcase %s repeat %lld%s%s", id,
		  job_str(job, "commit") ? job_str(job, "commit") : "?",
		  job_str(job, "kconfig") ? job_str(job, "kconfig") : "?",
		  job_str(job, "testcase") ? job_str(job, "testcase") : "?",
		  (long long)json_integer_value(json_object_get(job, "repeat")),
		  job_str(job, "tree") ? " tree " : "",
		  job_str(job, "tree") ? job_str(job, "tree") : "");
	heartbeat_set_job(&a->hb, id, a->machine_id, "fetch");
	if (job_spec_from_json(job, &spec, &xe)) {
		rc = -1;
	} else {
		rc = job_execute(&spec, &env, heartbeat_on_phase, &a->hb, &out, &xe);
	}
	/*
	 * From here the main thread talks to the server alone: one heartbeat
	 * for the "upload" phase (which also tells whether the lease is still
	 * ours), then the completion. The heartbeat thread stays quiet.
	 */
	heartbeat_completing(&a->hb);
	wlog_info("job %lld: phase upload", id);
	if (heartbeat_post(&a->api, a->machine_id, id, "upload", 1.0, "", NULL, &e) == 1)
		atomic_store(&a->hb.abandon, 1);
	hb_failures = atomic_load(&a->hb.failures);
	if (hb_failures)
		wlog_warn("job %lld: %d heartbeat(s) failed during the job", id, hb_failures);

	/*
	 * One exit path for every job failure: the completion. Never "ok"
	 * without a run: the server refuses that (400, the completion would
	 * be set aside and the job's lease left to expire, three times), and
	 * the reason would not reach the job page. An executor error is a
	 * run failure unless the executor already named another failure.
	 */
	status = out.status;
	if (!completion_status_valid(status) ||
	    (!strcmp(status, "ok") && (rc || !json_array_size(out.runs)))) {
		status = "run-failed";
		log = xstrfmt("%s\nregtrack-worker: %s: %s\n", out.log_tail ? out.log_tail : "",
			      rc ? xe.code : "internal",
			      rc ? xe.message :
			      completion_status_valid(out.status) ?
				   "the executor reported ok without a run" :
				   "the executor returned no status");
	} else if (rc) {
		log = xstrfmt("%s\nregtrack-worker: %s: %s\n", out.log_tail ? out.log_tail : "",
			      xe.code, xe.message);
	}
	wlog_info("job %lld: %s, %zu run(s)%s%s", id, status, json_array_size(out.runs),
		  rc ? ": " : "", rc ? xe.message : "");
	if (out.commit[0]) {
		/* the runs are of the commit git am made; each names its base */
		json_t *run;
		size_t i;

		wlog_info("job %lld: patches applied on %.12s: %.12s", id, spec.commit, out.commit);
		json_array_foreach (out.runs, i, run) {
			json_object_set(run, "base_commit", json_object_get(job, "commit"));
			/* the series' identity across bases and rebases */
			if (out.patch_id[0])
				json_object_set_new(run, "patch_id", json_string(out.patch_id));
			if (out.patch_ids)
				json_object_set_new(run, "patch_ids", split_words(out.patch_ids));
		}
		json_object_set_new(job, "commit", json_string(out.commit));
	}
	/* what of the host can move a metric, per run, the accelerator it used included: a
	 * comparison across a change of it is flagged, a step at one is an environment
	 * change (ARCHITECTURE.md) */
	fingerprint_stamp_runs(&a->fp, out.runs);
	body = completion_build(job, a->machine, status, out.runs, log ? log : out.log_tail,
				out.kconfig_text, &e);
	if (body && out.image_sha256[0])
		json_object_set_new(body, "image_sha256", json_string(out.image_sha256));
	if (body && out.same_image_as[0])
		json_object_set_new(body, "same_image_as", json_string(out.same_image_as));
	free(log);
	job_outcome_release(&out);
	if (!body) {
		/* cannot happen with a valid status and runs from the executor */
		wlog_error("job %lld: cannot build the completion: %s", id, e.message);
		lease_request_forget(a);
		heartbeat_set_job(&a->hb, 0, NULL, "");
		return 1;
	}
	/* the server then checks the lease is ours, and acknowledges a retried copy */
	json_object_set(body, "machine_id", a->machine_id);
	entry = upload_entry_complete(id, body);
	if (atomic_load(&a->hb.abandon)) {
		/* not sent (another worker redoes the job), but kept for a person */
		char *name = NULL;

		lease_request_forget(a);
		if (!spool_put(&a->spool, entry, &name, &e) &&
		    !spool_set_aside(&a->spool, name, "dropped", &e))
			wlog_warn("job %lld: lease lost while running; completion not sent, kept in '%s/dropped/%s'",
				  id, a->spool.dir, name);
		else
			wlog_warn("job %lld: lease lost while running; completion discarded (%s)",
				  id, e.message);
		free(name);
		json_decref(entry);
		heartbeat_set_job(&a->hb, 0, NULL, "");
		return 1;
	}
	if (spool_put(&a->spool, entry, NULL, &e)) {
		/* disk trouble: still try to deliver it from memory */
		struct retry rt = RETRY_INIT;
		enum upload_verdict v;

		wlog_error("job %lld: cannot spool the completion (%s); sending it from memory", id,
			   e.message);
		while ((v = upload_send(&a->api, entry, &e)) == UPLOAD_RETRY && !stopping(a) &&
		       !retry_wait(a, &rt, "sending the completion"))
			;
		lease_request_forget(a);
		json_decref(entry);
		heartbeat_set_job(&a->hb, 0, NULL, "");
		if (v != UPLOAD_SENT)
			wlog_error("job %lld: completion not delivered: %s", id, e.message);
		return v == UPLOAD_SENT ? 0 : 1;
	}
	json_decref(entry);
	lease_request_forget(a); /* the job's end is on disk now */
	left = drain_spool(a, &aside);
	heartbeat_set_job(&a->hb, 0, NULL, "");
	/* set aside: this completion (lease lost) or an older one */
	return left || aside ? 1 : 0;
}

int agent_run(struct agent *a)
{
	int ret = 0, jobs = 0;
	struct retry rt = RETRY_INIT;

	wlog_info("regtrack-worker starting: server '%s', work dir '%s', arch %s, tbox_group %s, capabilities %s, cases '%s'",
		  a->cfg->server_url, a->cfg->work_dir, a->cfg->arch, a->cfg->tbox_group,
		  a->cfg->capabilities, a->cases_dir);
	/* 1. what a previous run left behind goes first */
	if (drain_spool(a, NULL))
		return 1;
	/* 2. register */
	if (do_register(a))
		return stopping(a) ? 0 : 1;
	if (heartbeat_start(&a->hb)) {
		wlog_error("cannot start the heartbeat thread");
		return 1;
	}
	/* 3. lease, run, complete */
	while (!stopping(a)) {
		json_t *job;
		enum lease_result lr = do_lease(a, &job);

		if (lr == LEASE_NONE) {
			rt = (struct retry)RETRY_INIT;
			if (a->cfg->once) {
				wlog_info("no job offered within %d s", a->cfg->lease_wait_s);
				break;
			}
			continue;
		}
		if (lr == LEASE_FATAL) {
			ret = 1;
			break;
		}
		if (lr == LEASE_REREGISTER) {
			if (do_register(a)) {
				ret = stopping(a) ? 0 : 1;
				break;
			}
			continue;
		}
		if (lr == LEASE_RETRY) {
			if (retry_wait(a, &rt, "lease")) {
				ret = 1;
				break;
			}
			continue;
		}
		rt = (struct retry)RETRY_INIT;
		if (stopping(a)) {
			wlog_warn("job %lld: stopping before it started; handing it back (a restart on this work dir takes it again at once, else its lease expires on the server)",
				  (long long)json_integer_value(json_object_get(job, "id")));
			json_decref(job);
			break;
		}
		ret = run_job(a, job);
		json_decref(job);
		jobs++;
		if (a->cfg->once)
			break;
		ret = 0;
	}
	if (stopping(a))
		wlog_info("stopped after %d job(s)", jobs);
	return ret;
}
