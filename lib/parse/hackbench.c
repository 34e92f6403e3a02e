/*
 * hackbench: one "Time: S" line per iteration, after the lines that give
 * the size of the run:
 *   Running in process mode with G groups using F file descriptors each (== T tasks)
 *   Each sender will pass M messages of B bytes
 * Per iteration (after LKP's programs/hackbench/parse):
 *   hackbench.throughput = ((T * M * B) >> 10) / S   KB/s
 * LKP reports throughput (best time), throughput_best, throughput_avg
 * (KB / mean time) and throughput_worst; we give the value of every
 * iteration, from which those follow (max, harmonic mean, min).
 */
#include "parse/parse_tool.h"

#include <math.h>
#include <string.h>

#include "xalloc.h"
#include "banned.h"

void parse_hackbench(struct parse_ctx *c, struct parse_lines *l)
{
	double tasks = 0, messages = 0, bytes = 0;
	size_t times = 0;

	for (size_t i = 0; i < l->n; i++) {
		const char *s = l->v[i], *p;
		double v;

		if (!strncmp(s, "Running in ", 11) && (p = strstr(s, "(== ")) &&
		    !parse_num(p + 4, NULL, &v)) {
			tasks = v;
		} else if ((!strncmp(s, "Each sender will pass ", 22) &&
			    !parse_num(s + 22, &p, &v)) ||
			   (!strncmp(s, "Each sender passed ", 19) && !parse_num(s + 19, &p, &v))) {
			messages = v;
			if (!strncmp(p, " messages of ", 13) && !parse_num(p + 13, NULL, &v))
				bytes = v;
		} else if (!strncmp(s, "Time: ", 6) && !parse_num_full(s + 6, &v)) {
			double size = tasks * messages * bytes;
			/* LKP's (T * M * B) >> 10, exact while the product fits a double */
			double kb = size > 0 && size < 9e15 ? floor(size / 1024) : 0;

			times++;
			if (v <= 0 || kb <= 0) {
				parse_ctx_note(c, "line %zu: time without the size of the run, left out",
					       i + 1);
				continue;
			}
			parse_ctx_add(c, "throughput", kb / v);
		}
	}
	if (!times)
		parse_ctx_fail(c, "no \"Time:\" line (hackbench failed or was cut short)");
}
