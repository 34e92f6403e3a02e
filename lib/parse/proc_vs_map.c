/*
 * proc-vs-map: the raw-data table of run-proc-vs-map.sh --rawdata, one row
 * per sample, latencies in ms:
 *     Median  Minimum  Maximum
 *     0.132  0.121  2.600
 * Each column gives proc-vs-map.COLUMN_ms (lowercase: median_ms,
 * minimum_ms, maximum_ms), one value per row in file order. A header line
 * (all words) starts a table; rows must have as many numbers as the header
 * has columns; other lines end the table. Several tables add rows.
 */
#include "parse/parse_tool.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define PVM_MAXCOLS 8

void parse_proc_vs_map(struct parse_ctx *c, struct parse_lines *l)
{
	char *cols[PVM_MAXCOLS];
	size_t ncols = 0, rows = 0;

	for (size_t i = 0; i < l->n; i++) {
		char *copy = xstrdup(l->v[i]);
		char *tok[PVM_MAXCOLS + 1];
		size_t n = parse_split_blank(copy, tok, PVM_MAXCOLS + 1);
		double v[PVM_MAXCOLS];
		int words = n > 0 && n <= PVM_MAXCOLS, nums = words;

		for (size_t k = 0; k < n && (words || nums); k++) {
			for (const char *p = tok[k]; *p; p++)
				if (!isalpha((unsigned char)*p))
					words = 0;
			if (k < PVM_MAXCOLS && parse_num_full(tok[k], &v[k]))
				nums = 0;
		}
		if (words && !strcmp(tok[0], "Median")) {
			for (size_t k = 0; k < ncols; k++)
				free(cols[k]);
			for (size_t k = 0; k < n; k++)
				cols[k] = parse_slug(tok[k]);
			ncols = n;
		} else if (ncols && nums && n == ncols) {
			for (size_t k = 0; k < n; k++)
				parse_ctx_addf(c, v[k], "%s_ms", cols[k]);
			rows++;
		} else if (ncols) {
			for (size_t k = 0; k < ncols; k++)
				free(cols[k]);
			ncols = 0;
		}
		free(copy);
	}
	for (size_t k = 0; k < ncols; k++)
		free(cols[k]);
	if (!rows)
		parse_ctx_fail(c,
			       "no proc-vs-map sample rows (no \"Median Minimum Maximum\" table)");
}
