#ifndef REGTRACK_UTF8_H
#define REGTRACK_UTF8_H

#include <stddef.h>

/*
 * UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates
 * (U+D800..U+DFFF), nothing past U+10FFFF. Text that git hands over (an
 * author, a subject, a branch name) is bytes, and PostgreSQL's text and
 * jansson's strings refuse anything else, so one such commit would fail
 * every poll of its tree.
 */

/*
 * The length of the valid sequence starting at s[0] (1..4 bytes, at most
 * n), or 0 when s[0..n) does not start with one (n = 0 included).
 */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/* 1 when s[0..n) is valid UTF-8 throughout (a NUL byte counts as invalid), else 0. */
int utf8_valid(const char *s, size_t n);

/*
 * Replaces, in place, each byte of s[0..n) that starts no valid sequence
 * with '?' (one byte for one: lengths and offsets stay), and each NUL
 * byte too. Valid text is left as it is.
 */
void utf8_scrub(char *s, size_t n);

#endif
