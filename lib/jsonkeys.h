#ifndef REGTRACK_JSONKEYS_H
#define REGTRACK_JSONKEYS_H

#include "err.h"

#include <jansson.h>

/*
 * Checks that every key of the JSON object o is one of the NULL-terminated
 * `names`, so that a misspelt field ("repat", "tbox_grop") is refused
 * instead of silently taking the default. o that is not an object passes
 * (its own field check says what it must be). where: the field path of o
 * for the error ("" at the top level, "machine" for a nested object: the
 * detail is then "machine.tbox_grop"). All arguments borrowed.
 * Returns 0, or -1 with e filled: 400 "invalid_field", detail the first
 * unknown key (with where's prefix), message "unknown field 'K' (known: a,
 * b, c)". Keys are compared byte for byte.
 */
int json_keys_only(const json_t *o, const char *const *names, const char *where, struct err *e)
	__attribute__((warn_unused_result));

/*
 * json_keys_only() on each element of the array a, with the same where
 * ("testcases": the detail is "testcases.paramz"). a that is not an array
 * passes, and so does an element that is not an object. Same errors.
 */
int json_each_keys_only(const json_t *a, const char *const *names, const char *where, struct err *e)
	__attribute__((warn_unused_result));

#endif
