/* Kernel images keyed by SHA-256, on disk under DATA_DIR/images (see imagestore.h). */
#include "server/jobs/imagestore.h"
#include "fsutil.h"
#include "sha256.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int imagestore_name_ok(const char *name)
{
	size_t i;

	for (i = 0; name && name[i]; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return 0;
	return name && i == 64;
}

static char *path_of(const char *data_dir, const char *name)
{
	return xstrfmt("%s/images/%s", data_dir, name);
}

int imagestore_has(const char *data_dir, const char *name)
{
	char *p;
	int r;

	if (!imagestore_name_ok(name))
		return 0;
	p = path_of(data_dir, name);
	r = access(p, R_OK) == 0;
	free(p);
	return r;
}

int imagestore_put(const char *data_dir, const char *name, const void *data, size_t len, long limit,
		   struct err *e)
{
	char got[65], *dir, *path, *tmp;
	int fd, dfd, rc = -1;

	if (!imagestore_name_ok(name))
		return err_setc(e, ERR_INVALID_FIELD, "sha256",
				"an image is named by the SHA-256 of its bytes: 64 lowercase hex "
				"digits");
	if (!len || (limit > 0 && len > (size_t)limit))
		return err_setc(e, ERR_TOO_LARGE, "image",
				"an image is 1 to %ld bytes (image_limit); this one is %zu", limit,
				len);
	sha256_hex(data, len, got);
	if (strcmp(got, name))
		return err_setc(e, ERR_INVALID_FIELD, "sha256",
				"the image's bytes hash to %s, not to the name it was sent under",
				got);
	if (imagestore_has(data_dir, name))
		return 0;
	dir = xstrfmt("%s/images", data_dir);
	path = path_of(data_dir, name);
	tmp = xstrfmt("%s/.%s.XXXXXX", dir, name);
	if (fs_mkdirs(dir, 0755, e)) {
		err_setc(e, ERR_IO, "image", "cannot create the image store");
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err_setc(e, ERR_IO, "image", "cannot write to the image store: %s",
			 strerror(errno));
		goto out;
	}
	if (fs_write_all(fd, data, len) < 0 || fsync(fd) < 0 || fchmod(fd, 0644) < 0) {
		err_setc(e, ERR_IO, "image", "cannot write to the image store: %s",
			 strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		err_setc(e, ERR_IO, "image", "cannot store the image: %s", strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		/* the rename is durable before the upload is acknowledged */
		if (fsync(dfd) < 0)
			rc = err_setc(e, ERR_IO, "image", "cannot sync the image store: %s",
				      strerror(errno));
		close(dfd);
	}
out:
	free(tmp);
	free(path);
	free(dir);
	return rc;
}

int imagestore_get(const char *data_dir, const char *name, char **data, size_t *len, struct err *e)
{
	char *p;
	FILE *f;
	struct stat st;
	int rc = -1;

	*data = NULL;
	*len = 0;
	if (!imagestore_name_ok(name))
		return 0;
	p = path_of(data_dir, name);
	f = fopen(p, "rbe");
	if (!f) {
		rc = errno == ENOENT ? 0 :
				       err_setc(e, ERR_IO, "image", "cannot read the image: %s",
						strerror(errno));
		free(p);
		return rc;
	}
	if (fstat(fileno(f), &st) == 0 && st.st_size > 0) {
		*data = xmalloc((size_t)st.st_size);
		if (fread(*data, 1, (size_t)st.st_size, f) == (size_t)st.st_size) {
			*len = (size_t)st.st_size;
			rc = 1;
		}
	}
	if (rc != 1) {
		free(*data);
		*data = NULL;
		err_setc(e, ERR_IO, "image", "cannot read the image");
	}
	fclose(f);
	free(p);
	return rc;
}
