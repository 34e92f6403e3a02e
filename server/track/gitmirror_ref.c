/* Refs of a tree as commit shas, in its mirror (see gitmirror.h). */
#include "server/track/gitmirror.h"
#include "runcmd.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int gitmirror_ref_check(const char *ref, const char *field, struct err *e)
{
	if (!*ref || ref[0] == '-' || strstr(ref, ".."))
		return err_setc(e, ERR_INVALID_FIELD, field, "'%s' is not a ref or sha", field);
	for (const char *p = ref; *p; p++)
		if (iscntrl((unsigned char)*p) || *p == ' ')
			return err_setc(e, ERR_INVALID_FIELD, field, "'%s' is not a ref or sha",
					field);
	return 0;
}

int gitmirror_rev_parse(const char *dir, const char *ref, const char *field, int timeout_s,
			char sha[41], struct err *e)
{
	const char *argv[] = { "git",	   "--git-dir",	       dir,  "rev-parse", "-q",
			       "--verify", "--end-of-options", NULL, NULL };
	char *spec;
	struct runcmd cmd;
	int got = 0;

	if (gitmirror_ref_check(ref, field, e))
		return -1;
	spec = xstrfmt("%s^{commit}", ref);
	argv[7] = spec;
	runcmd_init(&cmd, argv, timeout_s);
	if (runcmd_run(&cmd, e) < 0) {
		free(spec);
		runcmd_release(&cmd);
		return -1;
	}
	if (runcmd_ok(&cmd) && cmd.out.len >= 40) {
		memcpy(sha, cmd.out.data, 40);
		sha[40] = '\0';
		got = 1;
		for (int i = 0; i < 40; i++)
			if (!isxdigit((unsigned char)sha[i]))
				got = 0;
	}
	free(spec);
	runcmd_release(&cmd);
	return got;
}

int gitmirror_resolve(const char *data_dir, const char *tree, const char *url, int timeout_s,
		      size_t n, const char *const *refs, const char *const *fields,
		      char (*shas)[41], struct err *e)
{
	char dir[4096];
	struct stat st;
	int fetched = 0;

	if (!url || !*url)
		return err_setc(e, ERR_INVALID_FIELD, "tree",
				"tree '%s' has no url to resolve refs in", tree);
	if (gitmirror_path(data_dir, tree, dir, sizeof(dir), e))
		return -1;
	if (stat(dir, &st)) {
		if (gitmirror_sync(data_dir, tree, url, timeout_s, e))
			return -1;
		fetched = 1;
	}
	for (;;) {
		size_t missing = n;

		for (size_t i = n; i-- > 0;) {
			int got = gitmirror_rev_parse(dir, refs[i], fields[i], timeout_s, shas[i],
						      e);

			if (got < 0)
				return -1;
			if (!got)
				missing = i;
		}
		if (missing == n)
			return 0;
		/* a ref pushed since the last poll: one fetch, then it is a typo */
		if (fetched)
			return err_setc(e, ERR_INVALID_FIELD, fields[missing],
					"'%s' is not a commit of tree '%s'", refs[missing], tree);
		if (gitmirror_sync(data_dir, tree, url, timeout_s, e))
			return -1;
		fetched = 1;
	}
}
