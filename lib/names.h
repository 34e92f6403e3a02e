#ifndef REGTRACK_NAMES_H
#define REGTRACK_NAMES_H

#include <stddef.h>

/*
 * The one set of rules for the names and shas that cross the API, the
 * database and the worker's command lines and paths. Each returns 1 when s
 * (borrowed, may be NULL: then 0) obeys the rule, 0 otherwise.
 */

/* A full commit sha: exactly 40 lowercase hex digits (git's canonical form). */
int names_full_sha(const char *s);

/*
 * An abbreviated sha, as a user types it: 7..40 hex digits, either case
 * (compare after lowercasing; 7 is git's default abbreviation length).
 */
int names_abbrev_sha(const char *s);

/*
 * A git ref name or revision a job may name in place of a sha (a branch,
 * a tag, refs/heads/x), under the rules of git check-ref-format that keep
 * it safe and unambiguous on a git command line:
 * 1..NAMES_REF_MAX bytes; no leading '-' (it would be an option) or '/';
 * no control characters, space, DEL, '~', '^', ':', '?', '*', '[', '\\';
 * no "..", "@{", "//"; not "@"; no component that starts with '.' or
 * ends with ".lock"; not ending in '/' or '.'.
 * A full or abbreviated lowercase sha is also a valid ref name.
 */
#define NAMES_REF_MAX 255
int names_ref(const char *s);

/*
 * A plain name: a testcase, tbox_group, tree, kconfig, compiler or a case
 * parameter key. 1..max bytes of [A-Za-z0-9._+-], the first one a letter,
 * a digit or '_' (never '-': an option to a program; never '.': a hidden
 * file or "..").
 */
#define NAMES_PLAIN_MAX 128
int names_plain(const char *s, size_t max);

#endif
