/*
 * regtrack parse TOOL FILE — tool output -> metrics JSON on stdout
 * (lib/parse/parse.h), keys sorted, indented by 2, reals with 15
 * significant digits. FILE "-" reads stdin. Exit 0 for a parsed document
 * (also when its status is "failed"), 2 for usage, an unreadable or too
 * large file (cap 256 MiB) or an unknown tool.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

int cmd_parse(int argc, char **argv)
{
	struct buf b = BUF_INIT(PARSE_INPUT_CAP);
	struct err e;
	const char *path;
	int fd, rc;
	json_t *doc;

	if (argc != 3)
		return parse_usage();
	path = argv[2];
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		fprintf(stderr, "regtrack parse: cannot open '%s': %s\n", path, strerror(errno));
		return 2;
	}
	rc = buf_read_fd(&b, fd);
	if (fd)
		close(fd);
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
