/* Why a job made no run, from its log tail (see failreason.h). */
#include "failreason.h"
#include "xalloc.h"

#include <ctype.h>
#include <string.h>

#define MAX_FAIL_LINE 500

#define WORKER_LINE "regtrack-worker: "
#define WORKER_WARNING "regtrack-worker: warning: "

/* failreason_pick()'s order of the line p (t bytes): 0 first, 3 last */
static int line_kind(const char *p, size_t t, const char *testcase, size_t tc)
{
	int warning = !strncmp(p, WORKER_WARNING, strlen(WORKER_WARNING));

	if (!warning && !strncmp(p, WORKER_LINE, strlen(WORKER_LINE)))
		return 0;
	if (tc && t > tc + 2 && !strncmp(p, testcase, tc) && !strncmp(p + tc, ": ", 2))
		return 1;
	return warning ? 3 : 2;
}

char *failreason_pick(const char *status, const char *log_tail, const char *testcase)
{
	const char *pick[4] = { NULL, NULL, NULL, NULL }, *best = NULL,
		   *p = log_tail ? log_tail : "";
	size_t pick_n[4] = { 0, 0, 0, 0 }, best_n = 0, tc = strlen(testcase);

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		size_t t = n;

		while (t && isspace((unsigned char)p[t - 1]))
			t--;
		if (t) {
			int kind = line_kind(p, t, testcase, tc);

			pick[kind] = p;
			pick_n[kind] = t;
		}
		p += n + (nl ? 1 : 0);
	}
	for (int k = 0; k < 4 && !best; k++) {
		best = pick[k];
		best_n = pick_n[k];
	}
	if (!best)
		return xstrfmt("%s: no log", status);
	if (best_n > MAX_FAIL_LINE) {
		size_t cut = MAX_FAIL_LINE;

		/* not inside a UTF-8 sequence: the column is text */
		while (cut && ((unsigned char)best[cut] & 0xc0) == 0x80)
			cut--;
		return xstrfmt("%s: %.*s…", status, (int)cut, best);
	}
	return xstrfmt("%s: %.*s", status, (int)best_n, best);
}
