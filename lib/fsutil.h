#ifndef REGTRACK_FSUTIL_H
#define REGTRACK_FSUTIL_H

#include <sys/types.h>

#include "err.h"

/*
 * mkdir -p: creates path and every missing parent with mode (before the
 * umask); levels that exist are left as they are. path and code are
 * borrowed. Returns 0, or -1 with e = 500 `code` (the caller module's
 * I/O error code: "io" in the worker, "io_error" in the server), detail
 * path, naming the level that could not be created and strerror(errno).
 */
int fs_mkdirs(const char *path, mode_t mode, const char *code, struct err *e)
	__attribute__((warn_unused_result));

#endif
