/*
 * exec_job: a test driver for job_execute() (worker/execute.h) without the
 * agent loop. Runs one job and prints the outcome as one JSON object on
 * stdout:
 *   {"status": …, "runs": […], "log_tail": "…", "kconfig_lines": N,
 *    "phases": [{"phase": "build", "seconds": 12.3, "message": "…"}, …],
 *    "image_sha256": "…", "same_image_as": "…"}
 * and each phase with its duration on stderr as it ends.
 *
 *   exec_job --work-dir DIR --cases-dir DIR --arch ARCH --kconfig NAME
 *            --testcase NAME [--tree NAME --url URL --commit REV]
 *            [--compiler gcc-12] [--params JSON] [--repeat N]
 *            [--ccache-dir DIR] [--jobs N] [--id N] [--skip-image HASH:COMMIT]
 *            [--patches FILE.mbox]
 *            [--monitors perf-profile,perf-stat]
 * (--monitors: the job's "monitors" array, names separated by ',')
 * --skip-image is one entry of the lease's skip_images (worker/execute.h):
 * an image built to HASH is not booted (status same-image).
 * With --patches the JSON also has "commit" (what git am made) and
 * "patch_id" (the series' git patch-id --stable).
 * Exit status: 0 the job ran to an outcome (any status), 1 internal error
 * (the struct err on stderr), 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "worker/execute.h"
#include "worker/sandbox.h"
#include "buf.h"
#include "attr.h"
#include "clock.h"

struct phase_log {
	json_t *phases;
	char current[32];
	char message[256];
	double started;
};

static void close_phase(struct phase_log *pl)
{
	double secs;

	if (!pl->current[0])
		return;
	secs = mono_s() - pl->started;
	fprintf(stderr, "exec_job: %-10s %7.1f s  %s\n", pl->current, secs, pl->message);
	json_array_append_new(pl->phases, json_pack("{s:s, s:f, s:s}", "phase", pl->current,
						    "seconds", secs, "message", pl->message));
	pl->current[0] = '\0';
}

static void on_phase(void *ctx, const char *phase, double progress UNUSED, const char *message)
{
	struct phase_log *pl = ctx;

	close_phase(pl);
	snprintf(pl->current, sizeof(pl->current), "%s", phase);
	snprintf(pl->message, sizeof(pl->message), "%s", message);
	pl->started = mono_s();
}

static int usage(void)
{
	fputs("usage: exec_job --work-dir DIR --cases-dir DIR --arch ARCH --kconfig NAME\n"
	      "                --testcase NAME [--tree NAME --url URL --commit REV]\n"
	      "                [--compiler gcc-12] [--params JSON] [--repeat N]\n"
	      "                [--ccache-dir DIR] [--jobs N] [--id N] [--skip-image HASH:COMMIT]\n"
	      "                [--patches FILE.mbox]\n"
	      "                [--monitors perf-profile,perf-stat]\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct job_spec spec = { .compiler = "gcc-12", .repeat = 1, .tree = "linux" };
	struct worker_env env = { .make_jobs = 2,
				  .qemu_mem_mb = 512,
				  .qemu_cpus = 2,
				  .timeout_fetch_s = 1800,
				  .timeout_build_s = 3600,
				  .timeout_boot_s = 300,
				  .timeout_run_s = 600 };
	struct phase_log pl = { .phases = json_array() };
	struct sandbox sb;
	struct buf mbox = BUF_INIT(8 << 20);
	struct job_outcome out;
	struct err e;
	json_error_t jerr;
	json_t *doc, *monitors = NULL, *skip = json_array();
	const char *p;
	int i, lines = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--work-dir"))
			env.work_dir = v;
		else if (!strcmp(k, "--cases-dir"))
			env.cases_dir = v;
		else if (!strcmp(k, "--arch"))
			env.arch = v;
		else if (!strcmp(k, "--ccache-dir"))
			env.ccache_dir = v;
		else if (!strcmp(k, "--jobs"))
			env.make_jobs = (int)strtol(v, NULL, 10);
		else if (!strcmp(k, "--tree"))
			spec.tree = v;
		else if (!strcmp(k, "--url"))
			spec.url = v;
		else if (!strcmp(k, "--commit"))
			spec.commit = v;
		else if (!strcmp(k, "--kconfig"))
			spec.kconfig = v;
		else if (!strcmp(k, "--compiler"))
			spec.compiler = v;
		else if (!strcmp(k, "--testcase"))
			spec.testcase = v;
		else if (!strcmp(k, "--repeat"))
			spec.repeat = (int)strtol(v, NULL, 10);
		else if (!strcmp(k, "--patches")) {
			if (buf_read_file(&mbox, v)) {
				fprintf(stderr, "exec_job: cannot read '%s'\n", v);
				return 2;
			}
			spec.patches = mbox.data;
		} else if (!strcmp(k, "--id"))
			spec.id = strtoll(v, NULL, 10);
		else if (!strcmp(k, "--skip-image") && strchr(v, ':'))
			json_array_append_new(skip, json_pack("{s:s%, s:s}", "image_sha256", v,
							      (size_t)(strchr(v, ':') - v),
							      "commit", strchr(v, ':') + 1));
		else if (!strcmp(k, "--monitors")) {
			const char *q = v;

			json_decref(monitors);
			monitors = json_array();
			while (*q) {
				size_t n = strcspn(q, ",");

				if (n)
					json_array_append_new(monitors, json_stringn(q, n));
				q += n + (q[n] == ',');
			}
			spec.monitors = monitors;
		} else if (!strcmp(k, "--params")) {
			spec.params = json_loads(v, 0, &jerr);
			if (!spec.params) {
				fprintf(stderr, "exec_job: bad --params: %s\n", jerr.text);
				return 2;
			}
		} else
			return usage();
	}
	if (i != argc || !env.work_dir || !env.cases_dir || !env.arch || !spec.kconfig ||
	    !spec.testcase)
		return usage();
	spec.skip_images = skip;
	/* builds in bubblewrap as a worker makes them (build user nobody when root) */
	if (sandbox_init(&sb, "on", NULL, &e)) {
		fprintf(stderr, "exec_job: %s\n", e.message);
		return 1;
	}
	if (!sb.bwrap)
		fprintf(stderr, "exec_job: no sandbox: %s\n", sb.why);
	env.sandbox = &sb;

	if (job_execute(&spec, &env, on_phase, &pl, &out, &e) < 0) {
		close_phase(&pl);
		fprintf(stderr, "exec_job: %s: %s (%s)\n", e.code, e.message, e.detail);
		job_outcome_release(&out);
		json_decref(pl.phases);
		json_decref(spec.params);
		json_decref(monitors);
		json_decref(skip);
		buf_release(&mbox);
		sandbox_release(&sb);
		return 1;
	}
	close_phase(&pl);
	for (p = out.kconfig_text; p && *p; p++)
		lines += *p == '\n';
	doc = json_pack("{s:s, s:O, s:s, s:i, s:O, s:s, s:s}", "status", out.status, "runs",
			out.runs, "log_tail", out.log_tail ? out.log_tail : "", "kconfig_lines",
			lines, "phases", pl.phases, "image_sha256", out.image_sha256,
			"same_image_as", out.same_image_as);
	if (spec.patches)
		json_object_set_new(doc, "commit", json_string(out.commit));
	if (out.patch_id[0])
		json_object_set_new(doc, "patch_id", json_string(out.patch_id));
	json_dumpf(doc, stdout, JSON_INDENT(1));
	fputc('\n', stdout);
	json_decref(doc);
	job_outcome_release(&out);
	json_decref(pl.phases);
	json_decref(spec.params);
	json_decref(monitors);
	json_decref(skip);
	buf_release(&mbox);
	sandbox_release(&sb);
	return 0;
}
