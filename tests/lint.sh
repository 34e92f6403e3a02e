#!/usr/bin/env bash
# Mechanical checks (make lint; make check runs it first); each one that
# cannot run (a tool missing) fails too:
#   editorconfig  every tracked file obeys .editorconfig: final newline, no
#                 trailing whitespace, tab indentation where indent_style = tab
#                 (tools/editorconfig-check)
#   clang-format  the C of CLANG_FORMAT_DIRS is as .clang-format lays it out
#                 (clang-format --dry-run --Werror)
#   banned        each function of lib/banned.h fails to compile under the flag
#                 the Makefile forces into every object (-include lib/banned.h)
#   err_set       err_set() (a free error code and status) only where a peer's
#                 code is copied: lib/err.c itself, lib/apiclient.c (the
#                 server's JSON error), server/http/http_reply.c (reply_errf) and
#                 tests/unit/test_err.c; everything else uses err_setc()
#   server        server/'s structure (tests/lint-server.sh): row reads only
#                 under server/db/, no include cycle, no file over 700 lines
#                 without a reason, no "add below" markers; the store as a
#                 type: no statement id, libpq or SQL text outside server/db/;
#                 the HTTP side as a room: no microhttpd.h, server/http/
#                 header or libmicrohttpd call outside server/http/,
#                 server/api/ and main.c, first shown failing on a planted tree
#   tree          lib/, worker/ and cli/ (tests/lint-tree.sh): no file over 700
#                 lines without a reason, no include cycle; no history (issue
#                 numbers, "#35", "this round", "last session") in the
#                 comments of those and server/; each rule first shown failing
#                 on a planted tree, then passing with the violations undone
#   walls         the include closure of each source of the domain rooms
#                 (server/detect, track, bisect, jobs, abtest, mail, inbox)
#                 holds nothing of HTTP (tests/lint-walls.sh), first shown
#                 failing on a planted tree
set -eu
cd "$(dirname "$0")/.."
CC=${CC:-gcc}
bad=0
fail() { echo "lint: $*" >&2; bad=1; }

# --- .editorconfig -----------------------------------------------------------
if ! git ls-files -z | xargs -0 tools/editorconfig-check; then
	fail "files break .editorconfig (above)"
fi

# --- clang-format -------------------------------------------------------------
# The directories whose C (.c .h .cc, subdirectories included) is kept in
# .clang-format's layout.
CLANG_FORMAT_DIRS=${CLANG_FORMAT_DIRS:-"lib worker cli tests/unit server"}
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
	fail "no $CLANG_FORMAT (Debian: clang-format; .clang-format is written for version 14)"
else
	cf_files=()
	for d in $CLANG_FORMAT_DIRS; do
		while IFS= read -r -d '' f; do
			cf_files+=("$f")
		done < <(git ls-files -z -- "$d/*.c" "$d/*.h" "$d/*.cc")
	done
	if [ ${#cf_files[@]} -eq 0 ]; then
		fail "no C files under CLANG_FORMAT_DIRS '$CLANG_FORMAT_DIRS'"
	elif ! out=$("$CLANG_FORMAT" --dry-run --Werror "${cf_files[@]}" 2>&1); then
		printf '%s\n' "$out" | grep ': error:' | sed 's/:[0-9]*:[0-9]*: error: .*//' | sort -u |
			sed 's/^/lint: not in .clang-format layout: /' >&2
		fail "run: $CLANG_FORMAT -i FILE... (then check the diff)"
	fi
fi

# --- banned.h: a banned call is an error, an allowed one is not -------------
banned_flags="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $(sed -n 's/^BANNED_FLAGS *:= *//p' Makefile)"
try_cc() { # C source on stdin -> compiler's exit status
	# shellcheck disable=SC2086
	$CC $banned_flags -x c -c -o /dev/null - 2>/dev/null
}
use() { # one expression -> a translation unit calling it
	printf '%s\n' '#include <stdarg.h>' '#include <stdio.h>' '#include <stdlib.h>' \
		'#include <string.h>' '#include <time.h>' \
		'void f(char *d, const char *s, va_list ap, time_t t);' \
		"void f(char *d, const char *s, va_list ap, time_t t) { (void)d; (void)s; (void)ap; (void)t; (void)($1); }"
}
if ! use 'snprintf(d, 4, "%s", s) + vsnprintf(d, 4, s, ap) + (int)strlen(s) + (gmtime_r(&t, NULL) != NULL)' | try_cc; then
	fail "a file with no banned call does not compile with: $banned_flags"
fi
for call in 'strcpy(d, s)' 'strcat(d, s)' 'strncpy(d, s, 1)' 'sprintf(d, "%s", s)' \
	'vsprintf(d, s, ap)' 'strtok(d, s)' 'atoi(s)' 'atol(s)' 'gmtime(&t)' 'localtime(&t)'; do
	if use "$call" | try_cc; then
		fail "'$call' compiles: lib/banned.h is not forced in (BANNED_FLAGS in the Makefile)"
	fi
done

# --- err_set(): only for a peer's code (lib/err.h) -----------------------------
# Calls, not mentions: a line whose text before err_set( opens or continues a
# comment is not one.
err_set_allowed="lib/err.c lib/err.h lib/apiclient.c server/http/http_reply.c tests/unit/test_err.c"
err_set_hits=$(git ls-files -z -- '*.c' '*.h' '*.cc' | xargs -0 grep -nE '\berr_set\(' -- |
	awk -F: -v ok=" $err_set_allowed " '
		{ text = $0; sub(/^[^:]*:[0-9]+:/, "", text); pre = text; sub(/err_set\(.*/, "", pre) }
		index(ok, " " $1 " ") { next }
		pre ~ /^[ \t]*(\*|\/\*|\/\/)/ || pre ~ /\/\*/ { next }
		{ print $1 ":" $2 }') || true
if [ -n "$err_set_hits" ]; then
	printf 'lint: err_set() outside the peer path (use err_setc() with an enum err_code): %s\n' \
		$err_set_hits >&2
	fail "err_set() calls outside $err_set_allowed (above)"
fi

# --- server/'s structure -------------------------------------------------------
if ! tests/lint-server.sh >&2; then
	fail "server/ breaks its structure rules (above)"
fi

# --- lib/, worker/, cli/: size by job, no include cycle, no history ---------
# first each rule on a planted violation in a scratch tree (a rule that
# cannot fail checks nothing), then the same tree with each one undone,
# which holds the text the history rule must let pass; then the tree itself
plant=$(mktemp -d)
mkdir -p "$plant/lib" "$plant/worker" "$plant/cli"
{ echo '/* one job */'; for i in $(seq 700); do echo "int v$i;"; done; } > "$plant/lib/long.c"
printf '%s\n' '/* the lease check (issue 35): why it is here */' 'int x;' > "$plant/worker/old.c"
printf '%s\n' 'int y; /* the lease check, see #35 */' > "$plant/worker/ref.c"
printf '%s\n' '/*' ' * the lease check, moved here this round' ' */' 'int z;' > "$plant/worker/round.c"
printf '%s\n' '// as the last session left it' 'int w;' > "$plant/cli/sess.c"
printf '%s\n' '#include "b.h"' > "$plant/lib/a.h"
printf '%s\n' '#include "a.h"' > "$plant/lib/b.h"
printf '%s\n' '#include "cli/y.h"' > "$plant/worker/x.h"
printf '%s\n' '#include "worker/x.h"' > "$plant/cli/y.h"
# legitimate text: standards and bug trackers, literals, a bisect's round, a
# database session, and one module split over files with its private header
printf '%s\n' '/* RFC 5322 dates; kernel bugzilla 217465; "CPU#1"; &#39; */' \
	'/* an A/B request: "head job 12 (round 0, vm-2p)"; a bisect: its last round */' \
	'/* whether this session holds the lock */' \
	'static const char *m = "If you fix the issue 35 in a separate commit (#1)";' \
	'#include "c_int.h"' > "$plant/lib/c.c"
printf '%s\n' '#include "c_int.h"' > "$plant/lib/c_next.c"
printf '%s\n' '#include "c.h"' > "$plant/lib/c_int.h"
printf '%s\n' '/* one job */' > "$plant/lib/c.h"
planted=$(tests/lint-tree.sh "$plant/lib" "$plant/worker" "$plant/cli" 2>&1 || true)
for want in "lib/long.c:1: 701 lines" "worker/old.c:1: 'issue 35'" "worker/ref.c:1: '#35'" \
	"worker/round.c:2: 'this round'" "cli/sess.c:1: 'last session'" \
	"lib/a.h:1: include cycle: lib/a -> lib/b -> lib/a" \
	"cli/y.h:1: include cycle: cli/y -> worker/x -> cli/y"; do
	case $planted in
	*"$want"*) ;;
	*) fail "tests/lint-tree.sh missed a planted violation ($want): ${planted:-nothing reported}" ;;
	esac
done
{ echo '/* Longer than 700 lines because: a planted table */'; tail -n +2 "$plant/lib/long.c"; } > "$plant/lib/long2.c"
rm "$plant/lib/long.c" "$plant/lib/b.h" "$plant/cli/y.h"
printf '%s\n' '/* the lease check: why it is here */' 'int x;' > "$plant/worker/old.c"
printf '%s\n' 'int y; /* the lease check, so that a reaped job is not run twice */' > "$plant/worker/ref.c"
printf '%s\n' '/*' ' * the lease check, here because the worker owns the job' ' */' 'int z;' > "$plant/worker/round.c"
printf '%s\n' '// as the spool leaves it' 'int w;' > "$plant/cli/sess.c"
if ! planted=$(tests/lint-tree.sh "$plant/lib" "$plant/worker" "$plant/cli" 2>&1); then
	fail "tests/lint-tree.sh flags a clean planted tree: $planted"
fi
rm -rf "$plant"
if ! tests/lint-tree.sh >&2; then
	fail "lib/, worker/, cli/ or comments break the tree rules (above)"
fi

# --- the HTTP side is a room ----------------------------------------------------
# planted: libmicrohttpd included, called or its header names used in
# domain rooms, an HTTP header included by the store, each flagged by
# tests/lint-server.sh; then the same tree with each one undone, beside what
# may stay (the HTTP side's own files, a handler, main.c, an opaque
# struct MHD_Daemon pointer, a mail's curl line naming headers), passes
plant=$(mktemp -d)
mkdir -p "$plant/server/http" "$plant/server/api" "$plant/server/db" "$plant/server/track" \
	"$plant/server/detect" "$plant/server/mail" "$plant/server/jobs"
printf '%s\n' '#include <microhttpd.h>' 'int poll_x;' > "$plant/server/track/poller.c"
printf '%s\n' '#include "server/http/request.h"' 'struct lease_queue;' > "$plant/server/jobs/lease.h"
printf '%s\n' 'const char *detect_h(void *c)' '{' \
	'	return MHD_lookup_connection_value(c, 1, "Authorization");' '}' > "$plant/server/detect/detect.c"
printf '%s\n' 'int mailer_status(void)' '{' '	return MHD_HTTP_OK;' '}' > "$plant/server/mail/mailer.c"
printf '%s\n' '#include "server/http/http.h"' 'int db_x;' > "$plant/server/db/db.c"
printf '%s\n' '#include <microhttpd.h>' 'int http_x;' > "$plant/server/http/http.h"
printf '%s\n' 'struct rq;' > "$plant/server/http/request.h"
planted=$(tests/lint-server.sh "$plant" 2>&1 || true)
for want in "server/track/poller.c:1: microhttpd.h outside" \
	"server/jobs/lease.h:1: server/http/request.h outside" \
	"server/detect/detect.c:3: MHD_lookup_connection_value outside" \
	"server/mail/mailer.c:3: MHD_HTTP_OK outside" "server/db/db.c:1: server/db/ includes the HTTP side"; do
	case $planted in
	*"$want"*) ;;
	*) fail "tests/lint-server.sh missed a planted violation ($want): ${planted:-nothing reported}" ;;
	esac
done
printf '%s\n' '#include <stddef.h>' 'int poll_x;' > "$plant/server/track/poller.c"
printf '%s\n' 'struct lease_queue;' > "$plant/server/jobs/lease.h"
printf '%s\n' 'const char *detect_h(const char *authorization)' '{' '	return authorization;' '}' \
	> "$plant/server/detect/detect.c"
printf '%s\n' 'int mailer_status(void)' '{' '	return 200;' '}' > "$plant/server/mail/mailer.c"
printf '%s\n' '#include "server/db/db.h"' 'int db_x;' > "$plant/server/db/db.c"
printf '%s\n' 'int db_y;' > "$plant/server/db/db.h"
printf '%s\n' '#include <microhttpd.h>' '#include "server/http/http.h"' \
	'void http_ct(struct MHD_Response *r) { MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "x"); }' \
	> "$plant/server/http/http.c"
printf '%s\n' '#include <microhttpd.h>' 'int api_x(void) { return MHD_HTTP_NOT_FOUND; }' > "$plant/server/api/a.c"
printf '%s\n' '#include "server/http/http.h"' 'int main(void) { return MHD_NO; }' > "$plant/server/main.c"
printf '%s\n' 'struct MHD_Daemon;' 'struct server { struct MHD_Daemon *daemon; };' > "$plant/server/server.h"
printf '%s\n' 'static const char *cmd = "curl -H \"Authorization: Bearer $T\" -H '"'"'Content-Type: x'"'"' MHD_HTTP_OK";' \
	> "$plant/server/mail/mail_reproduce.c"
if ! planted=$(tests/lint-server.sh "$plant" 2>&1); then
	fail "tests/lint-server.sh flags a clean planted tree: $planted"
fi
rm -rf "$plant"

# --- domain rooms never include the HTTP side ---------------------------------
# planted: a poller whose lease header pulls server/http/http.h and with it
# microhttpd.h must be flagged; the same tree without that include must not
plant=$(mktemp -d)
for f in detect/detect.c track/poller.c bisect/bisect_step.c jobs/lease.c jobs/jobdone.c \
	abtest/abtest.c mail/mailer.c inbox/inbox_poll.c; do
	mkdir -p "$(dirname "$plant/server/$f")"
	printf '%s\n' '#include "server/jobs/lease.h"' 'int f_x;' > "$plant/server/$f"
done
mkdir -p "$plant/server/http" "$plant/lib"
printf '%s\n' '#include <microhttpd.h>' > "$plant/server/http/http.h"
printf '%s\n' '#include "server/http/http.h"' 'struct lease_queue;' > "$plant/server/jobs/lease.h"
planted=$(tests/lint-walls.sh "$plant" 2>&1 || true)
case $planted in
*"server/track/poller.c: includes "*"microhttpd.h"*"server/track/poller.c: includes server/http/http.h"*) ;;
*) fail "tests/lint-walls.sh missed a planted violation: ${planted:-nothing reported}" ;;
esac
printf '%s\n' '#include <stddef.h>' 'struct lease_queue;' > "$plant/server/jobs/lease.h"
if ! planted=$(tests/lint-walls.sh "$plant" 2>&1); then
	fail "tests/lint-walls.sh flags a clean planted tree: $planted"
fi
rm -rf "$plant"
if ! tests/lint-walls.sh >&2; then
	fail "a domain room's sources include the HTTP side (above)"
fi

exit $bad
