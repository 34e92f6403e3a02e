/*
 * Kernel images keyed by SHA-256 (server/jobs/imagestore.h, README "Bare metal"):
 *   PUT /api/v1/images/{sha256} (worker)  the body is the image file's bytes;
 *       201 {"sha256", "size"} stored, 200 the same when the store had it;
 *       400 detail "sha256" (not 64 lowercase hex, or the bytes hash to
 *       another name), 413 detail "image" past image_limit
 *   GET /api/v1/images/{sha256} (worker)  the bytes, application/octet-stream;
 *       404 detail "sha256" when the store has none
 */
#include "server/api/api.h"
#include "server/jobs/imagestore.h"

#include <stdlib.h>

enum MHD_Result api_image_put(struct request *rq)
{
	const char *name = rq->path_params[0];
	const struct config *cfg = rq->srv->cfg;
	struct err e;
	int r;

	r = imagestore_put(cfg->data_dir, name, rq->body.data, rq->body.len, cfg->image_limit, &e);
	if (r < 0)
		return reply_err(rq, &e);
	return reply_json(rq, r ? 201 : 200,
			  json_pack("{s:s, s:I}", "sha256", name, "size",
				    (json_int_t)rq->body.len));
}

enum MHD_Result api_image_get(struct request *rq)
{
	const char *name = rq->path_params[0];
	struct err e;
	char *data;
	size_t len;
	enum MHD_Result ret;
	int r;

	if (!imagestore_name_ok(name))
		return reply_errc(rq, ERR_INVALID_FIELD, "sha256",
				  "an image is named by the SHA-256 of its bytes: 64 lowercase hex "
				  "digits");
	r = imagestore_get(rq->srv->cfg->data_dir, name, &data, &len, &e);
	if (r < 0)
		return reply_err(rq, &e);
	if (!r)
		return reply_errc(rq, ERR_NOT_FOUND, "sha256", "no image %s: upload it first",
				  name);
	ret = reply_text(rq, 200, "application/octet-stream", data, len);
	free(data);
	return ret;
}
