#ifndef REGTRACK_MAILHDR_H
#define REGTRACK_MAILHDR_H

#include <stddef.h>
#include <time.h>

/*
 * Reading the header of one RFC 5322 message (a public-inbox archive's
 * blob `m`, a mail file): pure functions, text in, fields out, nothing
 * allocated. The header ends at the first empty line (or the text's end);
 * a field's continuation lines (starting with a space or tab) are unfolded
 * into one space-separated value; "\r\n" is read as "\n". Encoded words
 * (=?UTF-8?...?=) are left as written.
 */

/*
 * The value of the first field called `name` (case-insensitive, without
 * the colon) of text[0..len), leading and trailing blanks removed, into
 * out (NUL-terminated, cut to size-1 bytes). 1 found, 0 absent (out "").
 */
int mailhdr_get(const char *text, size_t len, const char *name, char *out, size_t size);

/*
 * The k-th (0-based) message id "<...>" of a field value such as
 * References: or In-Reply-To:, without its brackets, into out (cut to
 * size-1). 1 found, 0 when the value holds fewer than k+1 ids.
 */
int mailhdr_msgid(const char *value, size_t k, char *out, size_t size);

/*
 * An RFC 5322 date ("Mon, 5 Jan 2026 10:00:00 +0000", the day name and
 * seconds optional) as seconds since the epoch in *t: 0, or -1 when it
 * does not read as one.
 */
int mailhdr_date(const char *value, time_t *t);

#endif
