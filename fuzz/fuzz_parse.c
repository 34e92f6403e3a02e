/*
 * libFuzzer target: bytes -> parse_output(FUZZ_TOOL, ...) for one parser
 * (FUZZ_TOOL is set at build time, one binary per tool in parse_tools()).
 * The parser must never crash, leak or read past len (the input is not
 * NUL-terminated), and its output must keep the documented shape: tool,
 * status ok|failed, metrics NAME -> non-empty array of finite numbers,
 * failed => no metrics.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse/parse.h"

#ifndef FUZZ_TOOL
#error "build with -DFUZZ_TOOL=\"name\""
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e;
	/* an exact-size heap copy, so ASan sees any read past the end */
	char *text = malloc(size ? size : 1);
	json_t *doc, *metrics, *vals, *v;
	const char *name, *status;
	size_t i;

	if (size)
		memcpy(text, data, size);
	doc = parse_output(FUZZ_TOOL, text, size, &e);
	if (!doc)
		abort(); /* the tool is in the registry */
	status = json_string_value(json_object_get(doc, "status"));
	metrics = json_object_get(doc, "metrics");
	if (!status || (strcmp(status, "ok") && strcmp(status, "failed")) ||
	    !json_is_object(metrics) || !json_is_array(json_object_get(doc, "errors")) ||
	    strcmp(json_string_value(json_object_get(doc, "tool")), FUZZ_TOOL))
		abort();
	if (!strcmp(status, "failed") && json_object_size(metrics))
		abort();
	json_object_foreach (metrics, name, vals) {
		if (!*name || !json_is_array(vals) || !json_array_size(vals))
			abort();
		json_array_foreach (vals, i, v)
			if (!json_is_number(v) || !isfinite(json_number_value(v)))
				abort();
	}
	/* what the worker does with it next: dump it for upload */
	free(json_dumps(doc, JSON_COMPACT));
	json_decref(doc);
	free(text);
	return 0;
}
