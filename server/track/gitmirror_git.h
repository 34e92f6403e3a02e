#ifndef REGTRACK_SERVER_GITMIRROR_GIT_H
#define REGTRACK_SERVER_GITMIRROR_GIT_H

#include <stddef.h>

#include "buf.h"
#include "err.h"

/*
 * The one way the mirror files (gitmirror.c, gitmirror_push.c) run git:
 * argv through lib/runcmd.h in cwd (NULL: the server's), no prompts, only
 * the file/git/http(s)/ssh transports (never ext:: or fd::), no hooks and no
 * fsmonitor whatever a repository's config says, no system config, timeout_s (<= 0: 600). out (may
 * be NULL) receives stdout, at most out_cap bytes. Errors (-1, e filled):
 * ERR_SPAWN when git cannot start; ERR_GIT when it exits non-zero, times
 * out or prints more than out_cap (message: what ran and how it ended;
 * detail: the first line git printed on stderr that starts "fatal: " or
 * "error: ", else its last line).
 */
int gitmirror_run(const char *const *argv, const char *cwd, int timeout_s, size_t out_cap,
		  struct buf *out, struct err *e) __attribute__((warn_unused_result));

#endif
