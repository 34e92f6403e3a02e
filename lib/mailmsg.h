#ifndef REGTRACK_MAILMSG_H
#define REGTRACK_MAILMSG_H

#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "err.h"

/*
 * RFC 5322 message building for the report mails (lib/report.h renders
 * their text): headers, addresses, Message-ID checks, RFC 2047 encoding,
 * CRLF line ends. Pure: no database, no network (server/mail/mailer.c sends).
 * The functions keep their report_ prefix: server/mail/, server/inbox/ and
 * server/api/subscriptions.c call them by these names.
 *
 * Header safety: text that came from git or from users (commit subjects,
 * metric names, tree names) never reaches a header raw. report_compose()
 * turns every control character (CR and LF included) in the subject into a
 * space and encodes a subject with non-ASCII bytes as RFC 2047 encoded
 * words (UTF-8, base64), folded; addresses and message ids are checked
 * (report_addr_ok, report_msgid_ok) and rejected, not repaired.
 */

/* The longest addr-spec report_addr_ok() accepts, in bytes. */
#define REPORT_ADDR_MAX 254

/*
 * Extracts the addr-spec from "Name <addr>" or "addr" into out[len].
 * Returns 0, or -1 when the result is not report_addr_ok().
 */
int report_addr_spec(const char *from, char *out, size_t len);

/*
 * 1 when addr is a plain addr-spec we are willing to put in a header or an
 * SMTP envelope: local@domain, printable ASCII only, no space, no
 * '<>()[],;:"\\', one '@', at most 254 bytes.
 */
int report_addr_ok(const char *addr);

/* 1 when id looks like "<local@host>" with only printable ASCII, no spaces, <= 250 bytes. */
int report_msgid_ok(const char *id);

/*
 * Appends "Name: value\r\n" with value made safe: control characters
 * become spaces, runs of spaces collapse, and a value with non-ASCII bytes
 * is encoded as RFC 2047 "=?UTF-8?B?…?=" words (<= 75 chars each, split
 * on UTF-8 character boundaries) folded onto continuation lines. Returns
 * 0, or -1 when out's cap was reached.
 */
int report_header_text(struct buf *out, const char *name, const char *value)
	__attribute__((warn_unused_result));

/* One mail, ready to compose. Borrowed pointers. */
struct report_mail {
	const char *from;      /* "Name <addr>" or "addr"; Name is encoded like text */
	const char *const *to; /* addr-specs */
	size_t nr_to;
	const char *const *cc;
	size_t nr_cc;
	const char *subject;
	const char *message_id;	 /* "<…@…>" */
	const char *in_reply_to; /* NULL, or the parent's message id */
	const char *references;	 /* NULL, or message ids separated by spaces */
	time_t date;
	const char *body; /* UTF-8, '\n' or "\r\n" line ends */
};

/*
 * Appends the complete message (headers, blank line, body; CRLF line ends;
 * body lines longer than 998 bytes are broken) to out. Errors (-1, e
 * filled, ERR_INVALID_FIELD): no recipient (detail "to"), an address that
 * is not report_addr_ok() (detail: the address), a message id that is not
 * report_msgid_ok() (detail: the header's field); ERR_TOO_LARGE when
 * out's cap is reached.
 */
int report_compose(struct buf *out, const struct report_mail *m, struct err *e)
	__attribute__((warn_unused_result));

#endif
