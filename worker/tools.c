/* Tool cases: their parser, their root tree, their versions (see tools.h). */
#include "worker/tools.h"
#include "parse/parse.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* testcase, parser, root, tree_perf: deploy/fetch-tools has the roots' side */
static const struct tool_case tool_cases[] = {
	{ "stress-ng", "stress-ng", "stress-ng", 0 },
	{ "hackbench", "hackbench", "hackbench", 0 },
	{ "sysbench", "sysbench", "sysbench", 0 },
	{ "fio", "fio", "fio", 0 }, /* a static build of Debian's source */
	{ "perf-bench", "perf-bench", NULL, 1 },
};

/* a tool's root is a binary and its libraries: far below either limit */
#define MAX_ENTRIES 1024
#define MAX_DEPTH 16
#define MARK "regtrack-tool: "

const struct tool_case *tools_case(const char *testcase)
{
	for (size_t i = 0; testcase && i < sizeof(tool_cases) / sizeof(tool_cases[0]); i++)
		if (!strcmp(tool_cases[i].testcase, testcase))
			return &tool_cases[i];
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dir (host path) as rel (archive path, "" at the top) into ir, recursively */
static int add_tree(struct initramfs *ir, const char *dir, const char *rel, int depth,
		    struct err *e)
{
	char **names = NULL;
	size_t n = 0, i;
	struct dirent *d;
	int rc = 0;
	DIR *dh;

	if (depth > MAX_DEPTH)
		return err_setc(e, ERR_IO, dir,
				"'%s' is more than %d levels below the tool's root, the limit", dir,
				MAX_DEPTH);
	dh = opendir(dir);
	if (!dh)
		return err_setc(e, ERR_IO, dir, "cannot read '%s': %s", dir, strerror(errno));
	/* all entries or an error: a partial list would depend on readdir's order */
	while ((d = readdir(dh))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    (!depth && !strcmp(d->d_name, "VERSION")))
			continue;
		if (n == MAX_ENTRIES) {
			rc = err_setc(e, ERR_IO, dir,
				      "'%s' has more than %d entries, the limit of a tool's root",
				      dir, MAX_ENTRIES);
			break;
		}
		if (!names)
			names = xcalloc(MAX_ENTRIES, sizeof(*names));
		names[n++] = xstrdup(d->d_name);
	}
	closedir(dh);
	if (rc == 0 && n)
		qsort(names, n, sizeof(names[0]), cmp_str);
	for (i = 0; i < n; i++) {
		char *src = xstrfmt("%s/%s", dir, names[i]);
		char *dst = *rel ? xstrfmt("%s/%s", rel, names[i]) : xstrdup(names[i]);
		struct stat st;

		if (rc == 0 && lstat(src, &st) < 0)
			rc = err_setc(e, ERR_IO, src, "cannot stat '%s': %s", src, strerror(errno));
		else if (rc == 0 && S_ISDIR(st.st_mode)) {
			initramfs_add_dir(ir, dst, st.st_mode & 0777);
			rc = add_tree(ir, src, dst, depth + 1, e);
		} else if (rc == 0 && S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t len = readlink(src, target, sizeof(target) - 1);

			if (len < 0)
				rc = err_setc(e, ERR_IO, src, "cannot read link '%s': %s", src,
					      strerror(errno));
			else {
				target[len] = '\0';
				initramfs_add_symlink(ir, dst, target);
			}
		} else if (rc == 0 && S_ISREG(st.st_mode)) {
			rc = initramfs_add_path(ir, dst, st.st_mode & 0777, src, e);
		}
		free(src);
		free(dst);
		free(names[i]);
	}
	free(names);
	return rc;
}

int tools_add_root(struct initramfs *ir, const char *cases_dir, const char *arch,
		   const struct tool_case *t, struct err *e)
{
	char *root;
	struct stat st;
	int rc;

	if (!t->root)
		return 0;
	root = xstrfmt("%s/tools/%s/%s", cases_dir, arch, t->root);

	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode)) {
		rc = err_setc(e, ERR_IO, root,
			      "no root of tool '%s' at '%s' (run deploy/fetch-tools)", t->root,
			      root);
		free(root);
		return rc;
	}
	rc = add_tree(ir, root, "", 0, e);
	free(root);
	return rc;
}

json_t *tools_versions(const char *log, size_t len)
{
	json_t *out = NULL;
	const char *p = log, *end = log + len;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		const char *m = memmem(p, (size_t)(stop - p), MARK, strlen(MARK));

		if (m) {
			const char *tool = m + strlen(MARK), *sp;
			size_t vlen;

			sp = memchr(tool, ' ', (size_t)(stop - tool));
			if (sp && sp > tool) {
				char *name = xstrndup(tool, (size_t)(sp - tool));

				vlen = (size_t)(stop - (sp + 1));
				while (vlen && strchr(" \t\r", sp[1 + vlen - 1]))
					vlen--;
				if (vlen > 200)
					vlen = 200;
				if (!out)
					out = json_object();
				json_object_set_new(out, name, json_stringn(sp + 1, vlen));
				free(name);
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return out;
}

json_t *tools_metrics(const struct tool_case *t, const char *text, size_t len)
{
	struct err e;
	json_t *doc = parse_output(t->parser, text, len, &e), *metrics, *vals, *out;
	const char *key;

	if (!doc)
		return NULL;
	metrics = json_object_get(doc, "metrics");
	if (strcmp(json_string_value(json_object_get(doc, "status")) ?: "", "ok") ||
	    !json_is_object(metrics)) {
		json_decref(doc);
		return NULL;
	}
	out = json_object();
	json_object_foreach (metrics, key, vals) {
		json_t *arr = json_array(), *v;
		size_t i;

		json_array_foreach (vals, i, v)
			if (json_is_number(v) && isfinite(json_number_value(v)))
				json_array_append_new(arr, json_real(json_number_value(v)));
		if (json_array_size(arr))
			json_object_set_new(out, key, arr);
		else
			json_decref(arr);
	}
	json_decref(doc);
	if (!json_object_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}
