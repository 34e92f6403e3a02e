/* The worker's cases and their parameter tables, for registration (see caselist.h). */
#include "worker/caselist.h"
#include "names.h"
#include "runcmd.h"
#include "worker/wlog.h"
#include "xalloc.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define TABLE_TIMEOUT_S 10

static int is_exe(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* NAME's table from `BIN --params-json`; NULL (with a warning) when it cannot be read */
static json_t *table_of(const char *bin, const char *name)
{
	const char *argv[] = { bin, "--params-json", NULL };
	struct runcmd cmd;
	struct err e;
	json_t *t = NULL;
	char desc[64];

	runcmd_init(&cmd, argv, TABLE_TIMEOUT_S);
	if (runcmd_run(&cmd, &e) < 0) {
		wlog_warn("case '%s' left out of the registration: %s", name, e.message);
		runcmd_release(&cmd);
		return NULL;
	}
	if (runcmd_ok(&cmd))
		t = json_loadb(cmd.out.data ? cmd.out.data : "", cmd.out.len, 0, NULL);
	if (!json_is_object(t)) {
		wlog_warn("case '%s' left out of the registration: '%s --params-json' gave no table (%s)",
			  name, bin, runcmd_describe(&cmd, desc, sizeof(desc)));
		json_decref(t);
		t = NULL;
	}
	runcmd_release(&cmd);
	return t;
}

json_t *caselist_collect(const char *cases_dir, const char *arch)
{
	char *dir = xstrfmt("%s/%s", cases_dir, arch), **names = NULL;
	size_t n = 0, cap = 0, i;
	struct utsname u;
	const char *host = uname(&u) == 0 ? u.machine : arch;
	struct dirent *d;
	json_t *out;
	DIR *dh = opendir(dir);

	if (!dh) {
		wlog_warn("no cases in '%s': registering without a case list (the server checks no testcase for this worker)",
			  dir);
		free(dir);
		return NULL;
	}
	while ((d = readdir(dh))) {
		char *path;

		if (!names_plain(d->d_name, NAMES_PLAIN_MAX) || d->d_name[0] == '.' ||
		    !strcmp(d->d_name, "init"))
			continue;
		path = xstrfmt("%s/%s", dir, d->d_name);
		if (is_exe(path)) {
			if (n == cap)
				names = xrealloc(names,
						 (cap = cap ? 2 * cap : 16) * sizeof(*names));
			names[n++] = xstrdup(d->d_name);
		}
		free(path);
	}
	closedir(dh);
	qsort(names, n, sizeof(*names), cmp_str);
	out = json_object();
	for (i = 0; i < n; i++) {
		char *native = xstrfmt("%s/%s/%s", cases_dir, host, names[i]);
		char *own = xstrfmt("%s/%s", dir, names[i]);
		json_t *t = table_of(is_exe(native) ? native : own, names[i]);

		if (t)
			json_object_set_new(out, names[i], t);
		free(native);
		free(own);
		free(names[i]);
	}
	free(names);
	free(dir);
	return out;
}
