#ifndef REGTRACK_PATCHSUBJ_H
#define REGTRACK_PATCHSUBJ_H

#include <stddef.h>

/*
 * What a mailing-list subject says about the patch it carries, as
 * `git format-patch` and the kernel's lists write it:
 * "[PATCH v2 RESEND 1/3] mm: make small allocs faster",
 * "[RFC PATCH 0/5] ...", "[PATCH net-next v3 2/7] ...", "Re: [PATCH] ...".
 * Pure: text in, fields out, nothing allocated.
 */
struct patchsubj {
	int is_patch;	 /* the first bracket holds the word PATCH */
	int is_reply;	 /* "Re:" (or "Aw:", "Antw:", "Sv:") before it: a reply, no patch */
	int resend, rfc; /* the words RESEND, RFC in the bracket */
	int version;	 /* vN (1 without one) */
	int part, total; /* m/n (1/1 without one; 0/n is a cover letter) */
	char prefix
		[128]; /* the bracket's words without vN, m/n and RESEND, e.g. "RFC PATCH net-next" */
	char title[512]; /* what follows the bracket, blanks trimmed */
};

/*
 * Reads subject (NUL-terminated) into *out. 1 when it is a patch or a
 * cover letter (not a reply), 0 otherwise (out filled as far as it read).
 * Fields longer than their buffer are cut.
 */
int patchsubj_parse(const char *subject, struct patchsubj *out);

/*
 * Whether prefix (a patchsubj's) starts with one of the n words given
 * (case-insensitive, word by word: "RFC PATCH" matches "RFC PATCH
 * net-next"); n 0: whether it holds the word PATCH.
 */
int patchsubj_prefix_match(const char *prefix, const char *const *words, size_t n);

#endif
