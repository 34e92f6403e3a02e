/*
 * kselftest: TAP output of the kselftest runner, nested ("# " per level),
 * and the older "running X" ... "[PASS]" lines of run_vmtests. Each test
 * result becomes a count of 1 (after LKP's stats/kernel-selftests):
 *
 *   kselftest.COLL.pass / .fail / .skip         top level: "ok 1 selftests: futex: run.sh"
 *                                               (COLL = "futex.run.sh")
 *   kselftest.COLL[.ARGS].TEST.pass / …          nested "ok N TEST" inside that
 *                                               collection; ARGS from a preceding
 *                                               "Arguments: a=1 b=2" line, blanks as '_'
 *   kselftest.COLL.NAME.pass / …                 "running NAME" then "[PASS]"
 *
 * A top-level plan "1..N" with fewer than N top-level results is a run cut
 * short: failed.
 */
#include "parse/parse_tool.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct ks_state {
	char *coll;    /* "futex.run.sh" */
	char *args;    /* "broadcast=0_locked=0" */
	char *running; /* "hugepage-mmap" */
};

static void set_str(char **dst, char *v)
{
	free(*dst);
	*dst = v;
}

/* blanks to '_', trimmed; new */
static char *underscore(const char *s)
{
	char *out = xstrdup(parse_skip_blank(s));
	size_t n = 0;
	int blank = 0;

	for (char *p = out; *p; p++) {
		if (*p == ' ' || *p == '\t') {
			blank = 1;
			continue;
		}
		if (blank && n)
			out[n++] = '_';
		blank = 0;
		out[n++] = *p;
	}
	out[n] = '\0';
	return out;
}

/* "selftests: A: B" -> "A.B" (new) or NULL */
static char *collection(const char *s)
{
	const char *p = strstr(s, "selftests: ");
	char *out, *q;

	if (!p)
		return NULL;
	out = underscore(p + 11);
	while ((q = strstr(out, ":_"))) {
		*q = '.';
		memmove(q + 1, q + 2, strlen(q + 2) + 1);
	}
	return out;
}

static void result(struct parse_ctx *c, struct ks_state *st, const char *what, const char *test)
{
	char *t = underscore(test);

	if (!st->coll)
		parse_ctx_addf(c, 1, "%s.%s", t, what);
	else if (st->args)
		parse_ctx_addf(c, 1, "%s.%s.%s.%s", st->coll, st->args, t, what);
	else
		parse_ctx_addf(c, 1, "%s.%s.%s", st->coll, t, what);
	free(t);
	set_str(&st->args, NULL);
}

void parse_kselftest(struct parse_ctx *c, struct parse_lines *l)
{
	struct ks_state st = { NULL, NULL, NULL };
	double plan = -1;
	size_t top = 0, total = 0;

	for (size_t i = 0; i < l->n; i++) {
		char *s = l->v[i];
		int depth = 0, notok;
		char *desc, *hash;
		const char *what;
		double num;

		while (s[0] == '#' && (s[1] == ' ' || s[1] == '\0')) {
			s += s[1] ? 2 : 1;
			depth++;
		}
		s = (char *)parse_skip_blank(s);
		parse_rtrim(s);
		if (!strncmp(s, "TAP version", 11)) {
			set_str(&st.args, NULL);
			continue;
		}
		if (depth == 0 && !strncmp(s, "1..", 3) && !parse_num_full(s + 3, &num)) {
			if (plan < 0)
				plan = num;
			continue;
		}
		if (!strncmp(s, "selftests: ", 11) && depth >= 1) {
			set_str(&st.coll, collection(s));
			set_str(&st.running, NULL);
			continue;
		}
		if (!strncmp(s, "Arguments:", 10)) {
			set_str(&st.args, underscore(s + 10));
			if (!*st.args)
				set_str(&st.args, NULL);
			continue;
		}
		if (!strncmp(s, "running", 7) && (s[7] == ' ' || s[7] == ':')) {
			char *name = xstrdup(parse_skip_blank(s + 8));

			if ((hash = strstr(name, " #")))
				*hash = '\0';
			parse_rtrim(name);
			set_str(&st.running, underscore(name));
			free(name);
			continue;
		}
		if (st.running &&
		    (!strcmp(s, "[PASS]") || !strcmp(s, "[FAIL]") || !strcmp(s, "[SKIP]"))) {
			what = s[1] == 'P' ? "pass" : s[1] == 'F' ? "fail" : "skip";
			result(c, &st, what, st.running);
			set_str(&st.running, NULL);
			total++;
			continue;
		}
		notok = !strncmp(s, "not ok ", 7);
		if (!notok && strncmp(s, "ok ", 3))
			continue;
		desc = s + (notok ? 7 : 3);
		if (parse_num(desc, (const char **)&desc, &num))
			continue;
		desc = (char *)parse_skip_blank(desc);
		if (*desc == '-')
			desc = (char *)parse_skip_blank(desc + 1);
		what = notok ? "fail" : "pass";
		if ((hash = strstr(desc, " # "))) {
			if (!strncmp(parse_skip_blank(hash + 3), "SKIP", 4))
				what = "skip";
			*hash = '\0';
		}
		parse_rtrim(desc);
		if (!*desc)
			continue;
		total++;
		if (depth == 0) {
			char *coll = collection(desc);

			top++;
			if (coll) {
				parse_ctx_addf(c, 1, "%s.%s", coll, what);
				free(coll);
			} else {
				char *t = underscore(desc);

				parse_ctx_addf(c, 1, "%s.%s", t, what);
				free(t);
			}
			set_str(&st.coll, NULL);
			set_str(&st.args, NULL);
			set_str(&st.running, NULL);
		} else {
			result(c, &st, what, desc);
		}
	}
	free(st.coll);
	free(st.args);
	free(st.running);
	if (plan >= 0 && (double)top < plan)
		parse_ctx_fail(c, "plan 1..%.0f but %zu top-level results (cut short?)", plan, top);
	else if (!total)
		parse_ctx_fail(c, "no TAP results");
}
