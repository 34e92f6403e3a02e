#include "runlogs.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct runlog {
	unsigned long long job, run;
	char *name;
};

/* "PREFIX-JOB-RUN.log" with decimal JOB and RUN: 1 and both numbers; else 0 */
static int parse_name(const char *name, const char *prefix, size_t plen, unsigned long long *job,
		      unsigned long long *run)
{
	const char *p = name + plen;
	char *end;

	if (strncmp(name, prefix, plen) || *p != '-' || !(p[1] >= '0' && p[1] <= '9'))
		return 0;
	errno = 0;
	*job = strtoull(p + 1, &end, 10);
	if (errno || *end != '-' || !(end[1] >= '0' && end[1] <= '9'))
		return 0;
	*run = strtoull(end + 1, &end, 10);
	return !errno && !strcmp(end, ".log");
}

static int cmp_age(const void *a, const void *b)
{
	const struct runlog *x = a, *y = b;

	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	return x->run < y->run ? -1 : x->run > y->run;
}

int runlogs_prune(const char *dir, const char *prefix, int keep, struct err *e)
{
	struct runlog *logs = NULL;
	size_t n = 0, cap = 0, plen = strlen(prefix), i;
	struct dirent *de;
	DIR *d;
	int deleted = 0, rc = 0;

	if (keep <= 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return err_setc(e, ERR_IO, dir, "cannot read '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		unsigned long long job, run;

		if (!parse_name(de->d_name, prefix, plen, &job, &run))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			logs = xrealloc(logs, cap * sizeof(*logs));
		}
		logs[n].job = job;
		logs[n].run = run;
		logs[n++].name = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > (size_t)keep) {
		qsort(logs, n, sizeof(*logs), cmp_age);
		for (i = 0; i < n - (size_t)keep; i++) {
			char *path = xstrfmt("%s/%s", dir, logs[i].name);

			if (unlink(path) < 0 && errno != ENOENT) {
				rc = err_setc(e, ERR_IO, path, "cannot remove '%s': %s", path,
					      strerror(errno));
				free(path);
				break;
			}
			free(path);
			deleted++;
		}
	}
	for (i = 0; i < n; i++)
		free(logs[i].name);
	free(logs);
	return rc < 0 ? rc : deleted;
}
