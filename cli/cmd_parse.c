/*
 * regtrack parse TOOL FILE — tool output -> metrics JSON on stdout
 * (lib/parse/parse.h), keys sorted, indented by 2, reals with 15
 * significant digits. FILE "-" reads stdin. Exit 0 for a parsed document
 * (also when its status is "failed"), 2 for usage, an unreadable or too
 * large file (cap 256 MiB) or an unknown tool.
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "parse/parse.h"

#define PARSE_INPUT_CAP (256u << 20)

static int parse_usage(void)
{
	const char *const *t = parse_tools();

	fprintf(stderr, "usage: regtrack parse TOOL FILE\ntools:");
	for (; *t; t++)
		fprintf(stderr, " %s", *t);
	fprintf(stderr, "\n");
	return 2;
}

static int read_all(FILE *f, struct buf *b)
{
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (buf_add(b, chunk, n))
			return -1;
	return ferror(f) ? -1 : 0;
}

int cmd_parse(int argc, char **argv)
{
	struct buf b = BUF_INIT(PARSE_INPUT_CAP);
	struct err e;
	const char *path;
	FILE *f;
	json_t *doc;
	int rc;

	if (argc != 3)
		return parse_usage();
	path = argv[2];
	f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "regtrack parse: cannot open '%s': %s\n", path, strerror(errno));
		return 2;
	}
	rc = read_all(f, &b);
	if (f != stdin)
		fclose(f);
	if (rc) {
		fprintf(stderr, "regtrack parse: cannot read '%s' (error or larger than %u MiB)\n",
			path, PARSE_INPUT_CAP >> 20);
		buf_release(&b);
		return 2;
	}
	err_clear(&e);
	doc = parse_output(argv[1], b.data, b.len, &e);
	buf_release(&b);
	if (!doc) {
		fprintf(stderr, "regtrack parse: %s\n", e.message);
		parse_usage();
		return 2;
	}
	if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) ||
	    fputc('\n', stdout) == EOF || fflush(stdout)) {
		json_decref(doc);
		return 2;
	}
	json_decref(doc);
	return 0;
}
