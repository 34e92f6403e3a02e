#include "initramfs.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEWC_HEADER_LEN 110

void initramfs_init(struct initramfs *ir)
{
	buf_init(&ir->data, 0);
	ir->ino = 0;
	ir->finished = 0;
}

void initramfs_release(struct initramfs *ir)
{
	buf_release(&ir->data);
	ir->ino = 0;
	ir->finished = 0;
}

static void pad4(struct buf *b)
{
	static const char zeros[4];

	if (b->len % 4 && buf_add(b, zeros, 4 - b->len % 4))
		abort(); /* uncapped buffer: cannot fail */
}

/* One newc entry: header, NUL-terminated name, padding, data, padding. */
static void add_entry(struct initramfs *ir, const char *path, unsigned int mode, unsigned int nlink,
		      const void *data, size_t len, unsigned int rmajor, unsigned int rminor)
{
	char hdr[NEWC_HEADER_LEN + 1];
	size_t namesize;
	unsigned int ino;

	if (ir->finished)
		abort(); /* programming error: entry after the trailer */
	while (*path == '/')
		path++;
	namesize = strlen(path) + 1;
	ino = strcmp(path, "TRAILER!!!") ? ++ir->ino : 0;
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 ino, mode, 0u, 0u, nlink, 0u, (unsigned int)len, 0u, 0u, rmajor, rminor,
		 (unsigned int)namesize, 0u);
	if (buf_add(&ir->data, hdr, NEWC_HEADER_LEN) || buf_add(&ir->data, path, namesize))
		abort();
	pad4(&ir->data);
	if (len && buf_add(&ir->data, data, len))
		abort();
	pad4(&ir->data);
}

void initramfs_add_dir(struct initramfs *ir, const char *path, unsigned int perm)
{
	add_entry(ir, path, S_IFDIR | (perm & 07777), 2, NULL, 0, 0, 0);
}

void initramfs_add_file(struct initramfs *ir, const char *path, unsigned int perm, const void *data,
			size_t len)
{
	add_entry(ir, path, S_IFREG | (perm & 07777), 1, data, len, 0, 0);
}

int initramfs_add_path(struct initramfs *ir, const char *path, unsigned int perm, const char *src,
		       struct err *e)
{
	struct buf data = BUF_INIT(0);
	struct stat st;
	int fd = open(src, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return err_setc(e, ERR_IO, src, "cannot open '%s': %s", src, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_setc(e, ERR_IO, src, "'%s' is not a regular file", src);
	}
	if (buf_read_fd(&data, fd)) {
		int saved = errno;

		close(fd);
		buf_release(&data);
		return err_setc(e, ERR_IO, src, "cannot read '%s': %s", src, strerror(saved));
	}
	close(fd);
	initramfs_add_file(ir, path, perm, data.data, data.len);
	buf_release(&data);
	return 0;
}

void initramfs_add_node(struct initramfs *ir, const char *path, unsigned int type,
			unsigned int perm, unsigned int major, unsigned int minor)
{
	add_entry(ir, path, (type & S_IFMT) | (perm & 07777), 1, NULL, 0, major, minor);
}

void initramfs_add_symlink(struct initramfs *ir, const char *path, const char *target)
{
	add_entry(ir, path, S_IFLNK | 0777, 1, target, strlen(target), 0, 0);
}

void initramfs_finish(struct initramfs *ir)
{
	add_entry(ir, "TRAILER!!!", 0, 1, NULL, 0, 0, 0);
	ir->finished = 1;
}

int initramfs_write(const struct initramfs *ir, const char *out, struct err *e)
{
	char *tmp = xstrfmt("%s.tmp", out);
	size_t off = 0;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		err_setc(e, ERR_IO, out, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	while (off < ir->data.len) {
		ssize_t w = write(fd, ir->data.data + off, ir->data.len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err_setc(e, ERR_IO, out, "cannot write '%s': %s", tmp,
				 strerror(w < 0 ? errno : EIO));
			close(fd);
			unlink(tmp);
			free(tmp);
			return -1;
		}
		off += (size_t)w;
	}
	if (close(fd) < 0 || rename(tmp, out) < 0) {
		err_setc(e, ERR_IO, out, "cannot write '%s': %s", out, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
