#ifndef REGTRACK_MBOX_H
#define REGTRACK_MBOX_H

#include <stddef.h>

/*
 * What an mbox of patches (as `git format-patch --stdout` writes it, or a
 * mailing-list archive's mbox of a series) says about itself: how many
 * patches it holds and who sent the first one when. The worker applies the
 * series with `git am` and fixes the committer from this (GIT_COMMITTER_NAME,
 * GIT_COMMITTER_EMAIL, GIT_COMMITTER_DATE = the first patch's From: and
 * Date:), so every worker that applies the same mbox on the same base
 * derives the same head sha; the server checks a submission holds a patch.
 * Pure: text in, fields out; no allocation.
 *
 * A message starts at a line "From " at the beginning of the text or after
 * a blank line (mboxrd's separator); it is a patch when its body holds a
 * line starting "diff --git " or "--- " followed by a "+++ " line, i.e. a
 * unified diff git am can apply. Header continuation lines (folded
 * Subject:/From:) are unfolded into the fields.
 */

struct mbox_info {
	size_t nr_messages; /* "From " separated messages */
	size_t nr_patches;  /* of them, those holding a diff */
	/* of the first patch; "" when the header is absent */
	char name[256];	   /* From: display name, quotes removed ("" for a bare address) */
	char email[256];   /* From: address, without <> */
	char date[128];	   /* Date: as written (RFC 2822), git parses it */
	char subject[512]; /* Subject: unfolded */
};

/*
 * Fills *out from text[0..len) (need not be NUL-terminated). Returns the
 * number of patches (out->nr_patches); 0 for text that holds none (not an
 * mbox, a cover letter alone). Fields longer than their buffer are cut.
 */
size_t mbox_scan(const char *text, size_t len, struct mbox_info *out);

/*
 * The two limits sized together: the server takes an mbox of at most
 * MBOX_MAX_BYTES (an A/B request's `patches`, 413 past it), and the worker
 * gives `git am` of an mbox of `bytes` (and the patch-id of its diff)
 * mbox_am_timeout_s(bytes) seconds: 120 s, plus 1 s per 8 KiB. A 4 MiB
 * series of small patches took 167 s of git am on a test machine (git am
 * forks per patch); at the limit this gives 632 s, nearly 4x that.
 */
#define MBOX_MAX_BYTES (4 * 1024 * 1024)
static inline int mbox_am_timeout_s(size_t bytes)
{
	return 120 + (int)(bytes / 8192);
}

#endif
