/* A lease reply's job as the executor's job_spec (see jobspec.h). */
#include "worker/jobspec.h"
#include "xalloc.h"

#include <string.h>

static const char *job_str(const json_t *job, const char *key)
{
	return json_string_value(json_object_get(job, key));
}

int job_spec_from_json(const json_t *job, struct job_spec *spec, struct err *e)
{
	/* host jobs have no tree: the executor checks tree/url for kernel jobs */
	static const char *const required[] = { "commit", "kconfig", "testcase" };
	json_t *repeat = json_object_get(job, "repeat");
	json_t *params = json_object_get(job, "params");

	memset(spec, 0, sizeof(*spec));
	spec->id = json_integer_value(json_object_get(job, "id"));
	for (size_t i = 0; i < ARRAY_SIZE(required); i++)
		if (!job_str(job, required[i]) || !*job_str(job, required[i]))
			return err_setc(e, ERR_INVALID_JOB, required[i], "job %lld has no '%s'",
					spec->id, required[i]);
	if (params && !json_is_null(params) && !json_is_object(params))
		return err_setc(e, ERR_INVALID_JOB, "params", "job %lld: params is not an object",
				spec->id);
	if (repeat && !json_is_null(repeat) &&
	    (!json_is_integer(repeat) || json_integer_value(repeat) < 1 ||
	     json_integer_value(repeat) > 1000))
		return err_setc(e, ERR_INVALID_JOB, "repeat", "job %lld: bad repeat", spec->id);
	spec->tree = job_str(job, "tree");
	spec->url = job_str(job, "url");
	spec->commit = job_str(job, "commit");
	spec->kconfig = job_str(job, "kconfig");
	spec->compiler = job_str(job, "compiler") ? job_str(job, "compiler") : "gcc";
	spec->testcase = job_str(job, "testcase");
	spec->params = json_is_object(params) ? params : NULL;
	spec->repeat = json_is_integer(repeat) ? (int)json_integer_value(repeat) : 1;
	spec->patches = job_str(job, "patches");
	spec->boot_image = job_str(job, "image_sha256");
	spec->monitors = json_object_get(job, "monitors"); /* checked by job_execute */
	spec->skip_images = json_is_array(json_object_get(job, "skip_images")) ?
				    json_object_get(job, "skip_images") :
				    NULL;
	return 0;
}
