/*
 * libFuzzer target: bytes -> json_loadb (as the server reads a body, with
 * duplicate keys rejected) -> resultdoc_check(). The check must never
 * crash, leak or read out of bounds; a document it accepts must have the
 * required fields filled and sane counts.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "resultdoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	struct resultdoc rd;
	struct err e;
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);

	if (!doc)
		return 0;
	if (!resultdoc_check(doc, &rd, &e)) {
		/* an accepted document: its invariants */
		if (!rd.run_id || !is_uuid(rd.run_id) || !rd.commit || !names_full_sha(rd.commit) ||
		    !rd.testcase || !rd.status || !rd.metrics || !json_is_object(rd.metrics) ||
		    rd.nr_metrics > RESULTDOC_MAX_METRICS || rd.nr_values > RESULTDOC_MAX_VALUES ||
		    rd.nr_values < rd.nr_metrics)
			abort();
		/* a profile is bounded and comes with perf-profile among the monitors */
		if (rd.profile_folded &&
		    (rd.profile_folded_len > RESULTDOC_MAX_PROFILE_BYTES ||
		     !monitors_has(rd.monitors, "perf-profile") || rd.profile_samples < 0))
			abort();
	} else if (e.status != 400 && e.status != 413) {
		abort();
	}
	json_decref(doc);
	return 0;
}
