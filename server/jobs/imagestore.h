#ifndef REGTRACK_SERVER_IMAGESTORE_H
#define REGTRACK_SERVER_IMAGESTORE_H

#include <stddef.h>

#include "err.h"

/*
 * Kernel images keyed by their SHA-256 (README "Bare metal": kernels that
 * another worker built). A worker that built a kernel uploads the image
 * file (bzImage, Image) under the SHA-256 of its bytes, the hash the
 * worker reports as the job's image_sha256 (worker/kernel.h); a
 * bare-metal host fetches it by that name instead of building. Stored as
 * DATA_DIR/images/SHA256, one file per image, written whole or not at all
 * (a temp file fsynced, renamed, the directory fsynced), so a name always
 * holds the bytes it names.
 */

/* 1 when name is 64 lowercase hex digits (the only names the store takes). */
int imagestore_name_ok(const char *name);

/*
 * Stores len bytes of data as name under data_dir, after checking that
 * their SHA-256 is name. Returns 1 when stored, 0 when the store holds it
 * already (the same bytes: nothing written), or -1 with e:
 * ERR_INVALID_FIELD (detail "sha256": name is not 64 lowercase hex, or
 * the bytes hash to another name, which the message gives), ERR_TOO_LARGE
 * (detail "image": len past limit bytes, or 0 bytes), ERR_IO (detail
 * "image": the store cannot be written; nothing is left behind).
 */
int imagestore_put(const char *data_dir, const char *name, const void *data, size_t len, long limit,
		   struct err *e) __attribute__((warn_unused_result));

/*
 * Reads image name from the store into *data (new, caller free()s) and
 * *len. Returns 1, 0 when there is no such image, -1 with e ERR_IO
 * (detail "image").
 */
int imagestore_get(const char *data_dir, const char *name, char **data, size_t *len, struct err *e)
	__attribute__((warn_unused_result));

/* 1 when the store holds image name, else 0. */
int imagestore_has(const char *data_dir, const char *name);

#endif
