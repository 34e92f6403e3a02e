#ifndef REGTRACK_FSUTIL_H
#define REGTRACK_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/*
 * mkdir -p: creates path and every missing parent with mode (before the
 * umask); levels that exist are left as they are. path is borrowed.
 * Returns 0, or -1 with e ERR_IO, detail path, the message naming the
 * level that could not be created and strerror(errno).
 */
int fs_mkdirs(const char *path, mode_t mode, struct err *e) __attribute__((warn_unused_result));

/*
 * Writes all n bytes at p to fd, retrying short writes and EINTR.
 * Returns 0, or -1 with errno set (a write that wrote nothing: EIO when
 * the kernel gave no errno).
 */
int fs_write_all(int fd, const void *p, size_t n) __attribute__((warn_unused_result));

#endif
