/*
 * regtrack parse TOOL FILE — tool output -> metrics JSON on stdout
 * (lib/parse/parse.h), keys sorted, indented by 2, reals with 15
 * significant digits. FILE "-" reads stdin. Exit 0 for a parsed document
 * (also when its status is "failed"), 2 for usage, an unreadable or too
 * large file (cap 256 MiB) or an unknown tool.
 *
 * Memory: a regular file is read into one buffer of its size, parsed in
 * place (parse_run) and freed before the document is written value by
 * value (parse_result_write): about the input's size plus 8 bytes per
 * value, not a JSON value per number.
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "err.h"
#include "parse/parse.h"
#include "xalloc.h"

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

/* The whole of f: new (caller frees), NUL-terminated, *len bytes; a
 * regular file in one allocation of its size, else through a buf. */
static char *read_file(FILE *f, size_t *len)
{
	struct buf b = BUF_INIT(PARSE_INPUT_CAP);
	struct stat st;

	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (unsigned long long)st.st_size <= PARSE_INPUT_CAP) {
		size_t want = (size_t)st.st_size, n;
		char *data = xmalloc(want + 2);

		/* one byte more than the size: a file that grew is noticed */
		n = fread(data, 1, want + 1, f);
		if (!ferror(f) && n <= want) {
			data[n] = '\0';
			*len = n;
			return data;
		}
		/* grew while read: the general path from the start */
		free(data);
		if (ferror(f) || fseek(f, 0, SEEK_SET))
			return NULL;
	}
	if (read_all(f, &b)) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, len);
}

int cmd_parse(int argc, char **argv)
{
	struct parse_result *r;
	struct err e;
	const char *path;
	size_t len;
	char *text;
	FILE *f;
	int rc;

	if (argc != 3)
		return parse_usage();
	path = argv[2];
	f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "regtrack parse: cannot open '%s': %s\n", path, strerror(errno));
		return 2;
	}
	text = read_file(f, &len);
	if (f != stdin)
		fclose(f);
	if (!text) {
		fprintf(stderr, "regtrack parse: cannot read '%s' (error or larger than %u MiB)\n",
			path, PARSE_INPUT_CAP >> 20);
		return 2;
	}
	err_clear(&e);
	r = parse_run(argv[1], text, len, &e);
	free(text);
	if (!r) {
		fprintf(stderr, "regtrack parse: %s\n", e.message);
		parse_usage();
		return 2;
	}
	rc = parse_result_write(r, stdout) || fputc('\n', stdout) == EOF || fflush(stdout);
	parse_result_free(r);
	return rc ? 2 : 0;
}
