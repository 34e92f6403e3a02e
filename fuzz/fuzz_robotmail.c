/*
 * libFuzzer target: bytes -> robotmail_parse() (a kernel test robot mail,
 * lib/robotmail.h) -> robotmail_json() and robotmail_request(). None may
 * crash, leak or read out of bounds; a mail it accepts has a commit of
 * 7..40 lowercase hex, a testcase and a machine, and a request made from it
 * has head and base (or an error naming from_mail.testcase); a refused one
 * is a 400 or a 413.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "robotmail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct robotmail m;
	struct err e;
	json_t *j, *req;
	size_t n;

	if (robotmail_parse((const char *)data, size, &m, &e)) {
		if ((e.status != 400 && e.status != 413) || m.params)
			abort();
		return 0;
	}
	n = strlen(m.commit);
	if (n < 7 || n > 40 || strspn(m.commit, "0123456789abcdef") != n || !m.testcase[0] ||
	    (!m.machine[0] && !m.tbox_group[0]) || !json_is_object(m.params))
		abort();
	j = robotmail_json(&m);
	if (!json_is_object(j) || !json_is_string(json_object_get(j, "commit")))
		abort();
	json_decref(j);
	req = json_object();
	if (robotmail_request(&m, req, &e)) {
		if (strcmp(e.detail, "from_mail.testcase") || json_object_size(req))
			abort();
	} else if (!json_is_string(json_object_get(req, "head")) ||
		   !json_is_string(json_object_get(req, "base")) ||
		   json_array_size(json_object_get(req, "testcases")) != 1) {
		abort();
	}
	json_decref(req);
	robotmail_release(&m);
	return 0;
}
