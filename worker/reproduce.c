/* regtrack-worker reproduce: one data point on one's own machine; see reproduce.h. */
#include "worker/reproduce.h"
#include "worker/agent.h"
#include "worker/execute.h"
#include "arch.h"
#include "attr.h"
#include "buf.h"
#include "clock.h"
#include "runcmd.h"
#include "stats/compare.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_PATCH_BYTES (4 * 1024 * 1024) /* as the service's requests */

static volatile sig_atomic_t cancel;

static void on_signal(int sig UNUSED)
{
	cancel = 1;
}

json_t *reproduce_parse_params(const char *s, struct err *e)
{
	json_t *o = json_object();
	char *copy = xstrdup(s), *save = NULL;

	for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), *end;
		double d;

		if (!eq || eq == kv || json_object_get(o, (*eq = '\0', kv))) {
			err_setc(e, ERR_INVALID_FIELD, "params",
				 "--params is k=v,k2=v2 with distinct non-empty keys, not '%s'",
				 kv);
			json_decref(o);
			free(copy);
			return NULL;
		}
		errno = 0;
		d = strtod(eq + 1, &end);
		if (eq[1] && !*end && !errno && strspn(eq + 1, "0123456789.-+eE") == strlen(eq + 1))
			json_object_set_new(o, kv,
					    d == floor(d) && fabs(d) < 1e15 ?
						    json_integer((json_int_t)d) :
						    json_real(d));
		else
			json_object_set_new(o, kv, json_string(eq + 1));
	}
	free(copy);
	return o;
}

char *reproduce_table(json_t *runs)
{
	struct buf b = BUF_INIT(1 << 20);
	json_t *names = json_object(), *run, *v;
	const char *k;
	size_t i;
	int bad = 0;

	/* per metric, the run means in run order */
	json_array_foreach (runs, i, run) {
		json_object_foreach (json_object_get(run, "metrics"), k, v) {
			double sum = 0;
			size_t n = 0, j;
			json_t *x, *list = json_object_get(names, k);

			json_array_foreach (v, j, x)
				if (json_is_number(x)) {
					sum += json_number_value(x);
					n++;
				}
			if (!n)
				continue;
			if (!list) {
				list = json_array();
				json_object_set_new(names, k, list);
			}
			json_array_append_new(list, json_real(sum / (double)n));
		}
	}
	bad |= buf_addf(&b, "%-44s %4s %14s %8s %14s %14s  %s\n", "metric", "runs", "mean",
			"%stddev", "min", "max", "values");
	{
		const char **keys = xcalloc(json_object_size(names) + 1, sizeof(*keys));
		size_t nk = 0;

		json_object_foreach (names, k, v)
			keys[nk++] = k;
		for (size_t a = 1; a < nk; a++)
			for (size_t c = a; c > 0 && strcmp(keys[c - 1], keys[c]) > 0; c--) {
				const char *t = keys[c];

				keys[c] = keys[c - 1];
				keys[c - 1] = t;
			}
		for (size_t a = 0; a < nk; a++) {
			json_t *list = json_object_get(names, keys[a]);
			size_t n = json_array_size(list);
			double *vals = xcalloc(n + 1, sizeof(*vals));
			struct sample_stats st;

			for (size_t j = 0; j < n; j++)
				vals[j] = json_real_value(json_array_get(list, j));
			sample_stats_compute(vals, n, &st);
			bad |= buf_addf(&b, "%-44s %4zu %14.6g %7.2f%% %14.6g %14.6g ", keys[a], n,
					st.mean, st.stddev_pct, st.min, st.max);
			for (size_t j = 0; j < n; j++)
				bad |= buf_addf(&b, " %.6g", vals[j]);
			bad |= buf_addch(&b, '\n');
			free(vals);
		}
		free(keys);
	}
	json_decref(names);
	if (bad)
		bad |= buf_addstr(&b, "(table cut)\n");
	return buf_detach(&b, NULL);
}

static void on_phase(void *ctx UNUSED, const char *phase, double progress UNUSED,
		     const char *message)
{
	fprintf(stderr, "reproduce: %-10s %s\n", phase, message);
}

static int usage(void)
{
	fputs("usage: regtrack-worker reproduce --kconfig K --testcase T [--params k=v,...]\n"
	      "           [--measure wallclock|icount] [--arch x86_64|aarch64] [--commit SHA]\n"
	      "           [--patches FILE.mbox] [--repeat N] [--compiler gcc-12]\n"
	      "           [--work-dir DIR] [--cases-dir DIR] [--jobs N] [--json]\n"
	      "           [--sandbox on|off] [--build-user USER]\n"
	      "run inside a kernel tree (kconfig host: none needed); no server, no token;\n"
	      "the build runs in bubblewrap (off: directly); patches are refused without it\n",
	      stderr);
	return 2;
}

/* git -C dir ARGS: its first output line (new) or NULL */
static char *git_line(const char *dir, const char *a1, const char *a2, const char *a3,
		      const char *a4)
{
	const char *argv[] = { "git", "-C", dir, a1, a2, a3, a4, NULL };
	struct runcmd cmd;
	struct err e;
	char *out = NULL;

	runcmd_init(&cmd, argv, 60);
	if (runcmd_run(&cmd, &e) == 0 && runcmd_ok(&cmd) && cmd.out.len) {
		out = xstrdup(cmd.out.data);
		out[strcspn(out, "\n")] = '\0';
	}
	runcmd_release(&cmd);
	return out;
}

int reproduce_main(int argc, char **argv)
{
	struct job_spec spec = { .compiler = "gcc-12", .repeat = 1, .tree = "linux", .id = 0 };
	struct worker_env env = { .qemu_mem_mb = 512,
				  .qemu_cpus = 0, /* the worker's default */
				  .timeout_fetch_s = 1800,
				  .timeout_build_s = 7200,
				  .timeout_boot_s = 300,
				  .timeout_run_s = 600 };
	const char *params = "", *measure = NULL, *patches_file = NULL, *cases = "", *work = NULL;
	const char *sandbox_mode = "on", *build_user = NULL;
	struct sandbox sb = { .uid = -1, .gid = -1 };
	char *top = NULL, *sha = NULL, *cases_dir = NULL, *work_dir = NULL, *table;
	struct buf mbox = BUF_INIT(MAX_PATCH_BYTES);
	struct job_outcome out;
	struct utsname u;
	struct sigaction sa;
	struct err e;
	int as_json = 0, rc = 1, host;
	long nproc = sysconf(_SC_NPROCESSORS_ONLN);

	memset(&out, 0, sizeof(out));
	uname(&u);
	env.arch = arch_normalize(u.machine) ? arch_normalize(u.machine) : u.machine;
	env.make_jobs = nproc > 0 ? (int)nproc : 1;
	for (int i = 1; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(k, "--json")) {
			as_json = 1;
			continue;
		}
		if (!v)
			return usage();
		i++;
		if (!strcmp(k, "--kconfig"))
			spec.kconfig = v;
		else if (!strcmp(k, "--testcase"))
			spec.testcase = v;
		else if (!strcmp(k, "--params"))
			params = v;
		else if (!strcmp(k, "--measure"))
			measure = v;
		else if (!strcmp(k, "--arch"))
			env.arch = arch_normalize(v) ? arch_normalize(v) : v;
		else if (!strcmp(k, "--commit"))
			spec.commit = v;
		else if (!strcmp(k, "--patches"))
			patches_file = v;
		else if (!strcmp(k, "--repeat"))
			spec.repeat = (int)strtol(v, NULL, 10);
		else if (!strcmp(k, "--compiler"))
			spec.compiler = v;
		else if (!strcmp(k, "--work-dir"))
			work = v;
		else if (!strcmp(k, "--cases-dir"))
			cases = v;
		else if (!strcmp(k, "--jobs"))
			env.make_jobs = (int)strtol(v, NULL, 10);
		else if (!strcmp(k, "--sandbox"))
			sandbox_mode = v;
		else if (!strcmp(k, "--build-user"))
			build_user = v;
		else
			return usage();
	}
	if (!spec.kconfig || !spec.testcase || spec.repeat < 1 || spec.repeat > 1000 ||
	    (measure && strcmp(measure, "wallclock") && strcmp(measure, "icount")))
		return usage();
	spec.params = reproduce_parse_params(params, &e);
	if (!spec.params) {
		fprintf(stderr, "regtrack-worker reproduce: %s\n", e.message);
		return 2;
	}
	if (measure)
		json_object_set_new(spec.params, "measure", json_string(measure));
	/* a worker's token is nothing the tree's code may see here either */
	unsetenv("REGTRACK_TOKEN");
	if (sandbox_init(&sb, sandbox_mode, build_user, &e)) {
		fprintf(stderr, "regtrack-worker reproduce: %s\n", e.message);
		rc = 2;
		goto out;
	}
	if (!sb.off && !sb.bwrap)
		fprintf(stderr, "reproduce: no sandbox: %s\n", sb.why);
	env.sandbox = &sb;
	host = !strcmp(spec.kconfig, "host");
	if (!host) {
		/* the kernel tree is where we are; its commit unless told */
		top = git_line(".", "rev-parse", "--show-toplevel", NULL, NULL);
		if (!top) {
			fprintf(stderr,
				"regtrack-worker reproduce: run it inside a kernel tree (a git "
				"work tree), or use --kconfig host\n");
			rc = 2;
			goto out;
		}
		sha = git_line(top, "rev-parse", "--verify", "-q",
			       spec.commit ? spec.commit : "HEAD");
		if (!sha) {
			fprintf(stderr, "regtrack-worker reproduce: '%s' is not a commit of %s\n",
				spec.commit ? spec.commit : "HEAD", top);
			rc = 2;
			goto out;
		}
		spec.url = top;
		spec.commit = sha;
	}
	if (patches_file) {
		if (buf_read_file(&mbox, patches_file)) {
			fprintf(stderr, "regtrack-worker reproduce: cannot read '%s': %s\n",
				patches_file, strerror(errno));
			rc = 2;
			goto out;
		}
		spec.patches = mbox.data;
	}
	if (work) {
		work_dir = xstrdup(work);
	} else {
		const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

		work_dir = xdg && *xdg ?
				   xstrfmt("%s/regtrack-reproduce", xdg) :
				   xstrfmt("%s/.cache/regtrack-reproduce", home ? home : "/tmp");
	}
	{
		const char *mk[] = { "mkdir", "-p", work_dir, NULL };
		struct runcmd cmd;

		runcmd_init(&cmd, mk, 60);
		if (runcmd_run(&cmd, &e) || !runcmd_ok(&cmd)) {
			fprintf(stderr, "regtrack-worker reproduce: cannot create '%s'\n",
				work_dir);
			runcmd_release(&cmd);
			goto out;
		}
		runcmd_release(&cmd);
	}
	env.work_dir = work_dir;
	cases_dir = agent_cases_dir(cases);
	env.cases_dir = cases_dir;
	env.cancel = &cancel;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "reproduce: %s %s on %s (%s, %s), %d run(s)%s%s, work dir %s\n",
		spec.testcase, params, sha ? sha : "the running kernel", spec.kconfig, env.arch,
		spec.repeat, spec.patches ? ", patches " : "", spec.patches ? patches_file : "",
		work_dir);
	if (job_execute(&spec, &env, on_phase, NULL, &out, &e) < 0) {
		fprintf(stderr, "%s\nregtrack-worker reproduce: %s: %s\n",
			out.log_tail ? out.log_tail : "", e.code, e.message);
		goto out;
	}
	if (as_json) {
		json_t *o = json_pack("{s:s,s:O,s:s?,s:s?}", "status", out.status, "runs", out.runs,
				      "commit", out.commit[0] ? out.commit : sha, "patch_id",
				      out.patch_id[0] ? out.patch_id : NULL);

		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', stdout);
		json_decref(o);
	} else {
		table = reproduce_table(out.runs);
		printf("%s %s at %.12s%s%s: %s, %zu run(s)\n\n%s", spec.testcase, params,
		       out.commit[0] ? out.commit :
		       sha	     ? sha :
				       "host",
		       out.patch_id[0] ? ", patch-id " : "", out.patch_id, out.status,
		       json_array_size(out.runs), table);
		free(table);
	}
	if (strcmp(out.status, "ok"))
		fprintf(stderr, "%s\nregtrack-worker reproduce: %s\n",
			out.log_tail ? out.log_tail : "", out.status);
	rc = strcmp(out.status, "ok") ? 1 : 0;
out:
	sandbox_release(&sb);
	job_outcome_release(&out);
	json_decref(spec.params);
	buf_release(&mbox);
	free(top);
	free(sha);
	free(cases_dir);
	free(work_dir);
	return rc;
}
