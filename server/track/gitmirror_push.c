/* The mirror's branch heads and pushed ranges, for the poller (see gitmirror.h). */
#include "server/track/gitmirror.h"
#include "names.h"
#include "utf8.h"
#include "server/track/gitmirror_git.h"
#include "buf.h"
#include "resultdoc.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_CAP (512u << 20)

int gitmirror_heads(const char *dir, int timeout_s, struct gitmirror_head **heads, size_t *n,
		    struct err *e)
{
	const char *argv[] = {
		"git",	       "-C", dir, "for-each-ref", "--format=%(objectname) %(refname)",
		"refs/heads/", NULL
	};
	struct buf out = BUF_INIT(OUT_CAP);
	size_t alloc = 0;
	char *save = NULL, *line;

	*heads = NULL;
	*n = 0;
	if (gitmirror_run(argv, NULL, timeout_s, OUT_CAP, &out, e)) {
		buf_release(&out);
		return -1;
	}
	for (line = strtok_r(out.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		const char *name;

		if (!sp)
			continue;
		*sp = '\0';
		name = sp + 1;
		if (!names_full_sha(line) || strncmp(name, "refs/heads/", 11) ||
		    strlen(name + 11) >= 256 || !name[11] || !utf8_valid(name, strlen(name)))
			continue; /* not a commit sha (sha256 repositories), a name too long, or one
				   * that is no UTF-8 (no reply or table could carry it) */
		ALLOC_GROW(*heads, *n + 1, alloc);
		memcpy((*heads)[*n].branch, name + 11, strlen(name + 11) + 1);
		snprintf((*heads)[*n].sha, sizeof((*heads)[*n].sha), "%s", line);
		(*n)++;
	}
	buf_release(&out);
	return 0;
}

int gitmirror_merge_base(const char *dir, const char *a, const char *b, int timeout_s,
			 char base[41], struct err *e)
{
	/* a and b are checked shas: they cannot be read as options */
	const char *argv[] = { "git", "-C", dir, "merge-base", a, b, NULL };
	struct buf out = BUF_INIT(1 << 16);
	struct err ge;
	int got;

	base[0] = '\0';
	if (!names_full_sha(a) || !names_full_sha(b))
		return err_setc(e, ERR_INVALID_FIELD, "sha", "merge-base of '%s' and '%s'", a, b);
	/* git merge-base says "none" by exiting 1 with nothing on stderr */
	if (gitmirror_run(argv, NULL, timeout_s, 1 << 16, &out, &ge)) {
		buf_release(&out);
		if (ge.detail[0])
			return err_setc(e, ERR_GIT, ge.detail, "%s", ge.message);
		return 0;
	}
	got = out.len >= 40 && (out.data[40] = '\0', names_full_sha(out.data));
	if (got)
		snprintf(base, 41, "%s", out.data);
	buf_release(&out);
	return got;
}

void gitmirror_range_free(struct gitmirror_commit *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < list[i].nr_files; k++)
			free(list[i].files[k]);
		free(list[i].files);
	}
	free(list);
}

int gitmirror_range(const char *dir, const char *base, const char *head, size_t max, int timeout_s,
		    struct gitmirror_commit **list, size_t *n, struct err *e)
{
	char range[96], lim[48];
	const char *argv[] = { "git",
			       "-C",
			       dir,
			       "log",
			       "--first-parent",
			       "--reverse",
			       "--no-renames",
			       "--diff-merges=first-parent",
			       "--name-only",
			       "-z",
			       "--format=%x01%H",
			       lim,
			       range,
			       "--",
			       NULL };
	struct buf out = BUF_INIT(OUT_CAP);
	size_t alloc = 0, falloc = 0, pos = 0;

	*list = NULL;
	*n = 0;
	if (!names_full_sha(head) || (base && !names_full_sha(base)))
		return err_setc(e, ERR_INVALID_FIELD, "sha", "'%s' is not a 40-hex sha",
				names_full_sha(head) ? base : head);
	snprintf(lim, sizeof(lim), "--max-count=%zu", max ? max : 1);
	if (base)
		snprintf(range, sizeof(range), "%s..%s", base, head);
	else
		snprintf(range, sizeof(range), "%s", head);
	if (gitmirror_run(argv, NULL, timeout_s, OUT_CAP, &out, e)) {
		buf_release(&out);
		return -1;
	}
	/* "\x01SHA\0" then "\nPATH\0" per file it touched, per commit */
	while (pos < out.len) {
		char *tok = out.data + pos;
		size_t len = strnlen(tok, out.len - pos);

		pos += len + 1;
		while (len && *tok == '\n') {
			tok++;
			len--;
		}
		if (!len)
			continue;
		if (*tok == '\x01') {
			ALLOC_GROW(*list, *n + 1, alloc);
			memset(&(*list)[*n], 0, sizeof(**list));
			snprintf((*list)[*n].sha, sizeof((*list)[*n].sha), "%.40s", tok + 1);
			(*n)++;
			falloc = 0;
			continue;
		}
		if (!*n)
			continue;
		{
			struct gitmirror_commit *cm = &(*list)[*n - 1];

			ALLOC_GROW(cm->files, cm->nr_files + 1, falloc);
			cm->files[cm->nr_files++] = xstrndup(tok, len);
		}
	}
	buf_release(&out);
	return 0;
}
