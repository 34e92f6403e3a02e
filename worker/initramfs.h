#ifndef REGTRACK_INITRAMFS_H
#define REGTRACK_INITRAMFS_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"
#include "err.h"

/*
 * An initramfs image built in memory: an uncompressed cpio archive in the
 * "newc" format (magic 070701) that the kernel unpacks into its rootfs
 * (Documentation/driver-api/early-userspace/buffer-format.rst). No root
 * rights or external tools are needed: device nodes are only described in
 * the archive, the kernel creates them.
 *
 * Every entry gets uid 0, gid 0, mtime 0 and a fresh inode number, so the
 * same inputs give byte-identical archives. Paths are relative to the root
 * ("init", "cases/small-allocs"; a leading '/' is dropped); parents must be
 * added before their children.
 *
 * Lifecycle: initramfs_init, initramfs_add_*, initramfs_finish (writes the
 * trailer), initramfs_write or use `data`, initramfs_release.
 */
struct initramfs {
	struct buf data;  /* the archive bytes so far */
	unsigned int ino; /* last inode number handed out */
	int finished;
};

void initramfs_init(struct initramfs *ir);
void initramfs_release(struct initramfs *ir);

/* A directory with permission bits `perm` (e.g. 0755). */
void initramfs_add_dir(struct initramfs *ir, const char *path, unsigned int perm);

/* A regular file with the given bytes (borrowed; copied into the archive). */
void initramfs_add_file(struct initramfs *ir, const char *path, unsigned int perm, const void *data,
			size_t len);

/*
 * A regular file whose contents are read from src (a host path).
 * Returns 0, or -1 with e filled (ERR_IO, src in detail) when src
 * cannot be read or is not a regular file; nothing is added then.
 */
int initramfs_add_path(struct initramfs *ir, const char *path, unsigned int perm, const char *src,
		       struct err *e) __attribute__((warn_unused_result));

/* A character (S_IFCHR) or block (S_IFBLK) device node: `type` is one of those. */
void initramfs_add_node(struct initramfs *ir, const char *path, unsigned int type,
			unsigned int perm, unsigned int major, unsigned int minor);

/* A symbolic link at path pointing to target. */
void initramfs_add_symlink(struct initramfs *ir, const char *path, const char *target);

/* Appends the TRAILER!!! entry; no entry may be added afterwards. */
void initramfs_finish(struct initramfs *ir);

/*
 * Writes the finished archive to `out` (through out.tmp and rename, so a
 * reader never sees half a file). Returns 0, or -1 with e filled
 * (ERR_IO, the path in detail).
 */
int initramfs_write(const struct initramfs *ir, const char *out, struct err *e)
	__attribute__((warn_unused_result));

#endif
