/* The job's initramfs: /init, every case binary, the job file, perf when monitored or benched. */
#include "execute_int.h"
#include "worker/tools.h"
#include "initramfs.h"
#include "monitors.h"
#include "usersyms.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int exec_build_initramfs(const char *path, const struct worker_env *env,
			 const struct job_spec *spec, const struct case_args *args,
			 int timeout_run_s, unsigned monitors, const char *perf, struct err *e)
{
	char *dir = xstrfmt("%s/%s", env->cases_dir, env->arch);
	char *init = xstrfmt("%s/init", dir);
	char *casebin = xstrfmt("%s/%s", dir, spec->testcase);
	struct initramfs ir;
	struct buf job = BUF_INIT(0), syms = BUF_INIT(0);
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int rc = -1, i;

	if (stat(init, &st) < 0 || !S_ISREG(st.st_mode)) {
		err_setc(e, ERR_IO, init, "no /init binary '%s' (make cases)", init);
		goto out_nofree;
	}
	if (stat(casebin, &st) < 0 || !S_ISREG(st.st_mode)) {
		err_setc(e, ERR_INVALID_JOB, casebin, "no case binary '%s'", casebin);
		goto out_nofree;
	}
	initramfs_init(&ir);
	initramfs_add_dir(&ir, "dev", 0755);
	initramfs_add_node(&ir, "dev/console", S_IFCHR, 0600, 5, 1);
	initramfs_add_dir(&ir, "proc", 0755);
	initramfs_add_dir(&ir, "sys", 0755);
	initramfs_add_dir(&ir, "tmp", 01777);
	initramfs_add_dir(&ir, "regtrack", 0755);
	initramfs_add_dir(&ir, "cases", 0755);
	if (initramfs_add_path(&ir, "init", 0755, init, e) < 0)
		goto out;
	/* every case binary: a case may run another (execl runs itself) */
	d = opendir(dir);
	if (!d) {
		err_setc(e, ERR_IO, dir, "cannot read '%s': %s", dir, strerror(errno));
		goto out;
	}
	{
		char *names[256];
		int n = 0;

		while ((de = readdir(d)) && n < 256) {
			if (de->d_name[0] == '.' || !strcmp(de->d_name, "init"))
				continue;
			names[n++] = xstrdup(de->d_name);
		}
		qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
		for (i = 0; i < n; i++) {
			char *src = xstrfmt("%s/%s", dir, names[i]);
			char *dst = xstrfmt("cases/%s", names[i]);
			int r = 0;

			if (!stat(src, &st) && S_ISREG(st.st_mode)) {
				r = initramfs_add_path(&ir, dst, 0755, src, e);
				if (!r && (monitors & MONITOR_PERF_PROFILE)) {
					/* user frames' names (usersyms.h); a binary
					 * libelf cannot read just leaves them [unknown] */
					char *dso = xstrfmt("/%s", dst);
					struct err ue;

					err_clear(&ue);
					if (usersyms_add(&syms, src, dso, &ue) < 0)
						err_clear(&ue);
					free(dso);
				}
			}
			free(src);
			free(dst);
			if (r < 0) {
				while (i < n)
					free(names[i++]);
				goto out;
			}
			free(names[i]);
		}
	}
	if (buf_addf(&job, "case %s\ntimeout %d\n", spec->testcase, timeout_run_s))
		abort();
	for (i = 0; i < args->n; i++)
		if (buf_addf(&job, "arg %s\n", args->v[i]))
			abort();
	if (monitors) {
		/* only then: an unprofiled initramfs has the same entries as before */
		if ((monitors & MONITOR_PERF_PROFILE) && buf_addstr(&job, "monitor perf-profile\n"))
			abort();
		if ((monitors & MONITOR_PERF_STAT) && buf_addstr(&job, "monitor perf-stat\n"))
			abort();
	}
	/* perf-bench runs the same static perf */
	if (monitors || (tools_case(spec->testcase) && tools_case(spec->testcase)->tree_perf)) {
		initramfs_add_dir(&ir, "bin", 0755);
		if (initramfs_add_path(&ir, "bin/perf", 0755, perf, e) < 0)
			goto out;
	}
	if (syms.len) /* profiled jobs only */
		initramfs_add_file(&ir, "regtrack/usersyms", 0644, syms.data, syms.len);
	/* a tool case's tool with its libraries and loader (only then: the
	 * other cases' initramfs stays as small as before) */
	if (tools_case(spec->testcase) &&
	    tools_add_root(&ir, env->cases_dir, env->arch, tools_case(spec->testcase), e) < 0)
		goto out;
	initramfs_add_file(&ir, "regtrack/job", 0644, job.data, job.len);
	initramfs_finish(&ir);
	rc = initramfs_write(&ir, path, e);
out:
	if (d)
		closedir(d);
	initramfs_release(&ir);
	buf_release(&job);
	buf_release(&syms);
out_nofree:
	free(casebin);
	free(init);
	free(dir);
	return rc;
}
