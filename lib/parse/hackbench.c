/*
 * hackbench: one "Time: S" line per iteration, after the lines that give
 * the size of the run:
 *   Running in process mode with G groups using F file descriptors each (== T tasks)
 *   Each sender will pass M messages of B bytes
 * Per iteration (after LKP's programs/hackbench/parse):
 *   ((T * M * B) >> 10) / S   KB/s
 * and, as LKP, one figure per run (the file) from them:
 *   hackbench.throughput        the best iteration (LKP's meaning)
 *   hackbench.throughput_best   the same
 *   hackbench.throughput_avg    KB / mean time (harmonic mean of the
 *                               iterations; LKP rounds it to 2 decimals)
 *   hackbench.throughput_worst  the worst iteration
 *   hackbench.iteration_throughput  every iteration, in order (not in LKP)
 */
#include "parse/parse_tool.h"

#include <math.h>
#include <string.h>

#include "xalloc.h"

void parse_hackbench(struct parse_ctx *c, struct parse_lines *l)
{
	double tasks = 0, messages = 0, bytes = 0;
	double best = 0, worst = 0, kb_sum = 0, time_sum = 0;
	size_t times = 0, good = 0;

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
				parse_ctx_note(c,
					       "line %zu: time without the size of the run, left out",
					       i + 1);
				continue;
			}
			parse_ctx_add(c, "iteration_throughput", kb / v);
			best = good && best > kb / v ? best : kb / v;
			worst = good && worst < kb / v ? worst : kb / v;
			kb_sum += kb;
			time_sum += v;
			good++;
		}
	}
	if (!times) {
		parse_ctx_fail(c, "no \"Time:\" line (hackbench failed or was cut short)");
		return;
	}
	if (good) {
		parse_ctx_add(c, "throughput", best);
		parse_ctx_add(c, "throughput_best", best);
		parse_ctx_add(c, "throughput_avg", kb_sum / time_sum);
		parse_ctx_add(c, "throughput_worst", worst);
	}
}
