#ifndef REGTRACK_SERVER_SMTP_H
#define REGTRACK_SERVER_SMTP_H

#include <stddef.h>

#include "err.h"
#include "server/config.h"

/*
 * The SMTP client: one composed message to its recipients through
 * libcurl's SMTP (which speaks EHLO/HELO, STARTTLS, AUTH, MAIL FROM, RCPT
 * TO, DATA and does the dot-stuffing and the final "."). Config:
 * smtp_url, smtp_user and smtp_password (AUTH when smtp_user is set),
 * smtp_starttls (none|try|required), mail_from (the envelope sender's
 * addr-spec). Timeouts: 10 s to connect, 120 s for the whole exchange.
 */

/*
 * Sends msg[0..len) (CRLF line ends, headers included) to the nr
 * addr-specs in rcpt. Returns 0 once the server said 250 to the DATA, or
 * -1 with e: ERR_CONFIG (400) when mail_from has no valid address,
 * ERR_INTERNAL (500) when curl cannot start, ERR_SMTP (502, detail the
 * URL, message curl's) when connecting, a command or the upload failed.
 */
int smtp_send(const struct config *cfg, char *const *rcpt, size_t nr, const char *msg, size_t len,
	      struct err *e) __attribute__((warn_unused_result));

#endif
