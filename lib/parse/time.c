/*
 * time: the report of GNU `time -v` (or `/usr/bin/time -v`), one or more
 * in a file (one value per report). Names after LKP's stats/time:
 *   time.user_time, time.system_time (s), time.percent_of_cpu_this_job_got,
 *   time.elapsed_time (s, from h:mm:ss or m:ss), time.maximum_resident_set_size
 *   (KiB), time.major_page_faults, time.minor_page_faults,
 *   time.voluntary_context_switches, time.involuntary_context_switches,
 *   time.file_system_inputs, time.file_system_outputs, time.socket_messages_sent,
 *   time.socket_messages_received, time.signals_delivered, time.page_size (B)
 * "Command terminated by signal" or a non-zero exit fails the run.
 */
#include "parse/parse_tool.h"

#include <string.h>

#include "xalloc.h"

static const struct {
	const char *label;
	const char *name;
} time_keys[] = {
	{ "User time (seconds)", "user_time" },
	{ "System time (seconds)", "system_time" },
	{ "Percent of CPU this job got", "percent_of_cpu_this_job_got" },
	{ "Maximum resident set size (kbytes)", "maximum_resident_set_size" },
	{ "Major (requiring I/O) page faults", "major_page_faults" },
	{ "Minor (reclaiming a frame) page faults", "minor_page_faults" },
	{ "Voluntary context switches", "voluntary_context_switches" },
	{ "Involuntary context switches", "involuntary_context_switches" },
	{ "File system inputs", "file_system_inputs" },
	{ "File system outputs", "file_system_outputs" },
	{ "Socket messages sent", "socket_messages_sent" },
	{ "Socket messages received", "socket_messages_received" },
	{ "Signals delivered", "signals_delivered" },
	{ "Page size (bytes)", "page_size" },
};

/* "h:mm:ss" or "m:ss.ss" -> seconds, or -1 */
static double elapsed(const char *s)
{
	double part[3], v;
	size_t n = 0;
	const char *p = parse_skip_blank(s);

	for (;;) {
		if (n == 3 || parse_num(p, &p, &v) || v < 0)
			return -1;
		part[n++] = v;
		if (*p != ':')
			break;
		p++;
	}
	if (*parse_skip_blank(p) || n < 2)
		return -1;
	return n == 3 ? part[0] * 3600 + part[1] * 60 + part[2] : part[0] * 60 + part[1];
}

void parse_time(struct parse_ctx *c, struct parse_lines *l)
{
	size_t reports = 0;

	for (size_t i = 0; i < l->n; i++) {
		const char *s = parse_skip_blank(l->v[i]);
		const char *colon;
		double v;

		if (!strncmp(s, "Command terminated by signal", 28) ||
		    !strncmp(s, "Command exited with non-zero status", 35)) {
			parse_ctx_fail(c, "%s", s);
			return;
		}
		if (!strncmp(s, "Elapsed (wall clock) time", 25)) {
			colon = strstr(s, "): ");
			if (colon && (v = elapsed(colon + 3)) >= 0) {
				parse_ctx_add(c, "elapsed_time", v);
				reports++;
			}
			continue;
		}
		for (size_t k = 0; k < ARRAY_SIZE(time_keys); k++) {
			size_t n = strlen(time_keys[k].label);
			char *end;

			if (strncmp(s, time_keys[k].label, n) || strncmp(s + n, ": ", 2))
				continue;
			end = (char *)s + n + 2;
			if (!strcmp(time_keys[k].name, "percent_of_cpu_this_job_got")) {
				size_t len = strlen(end);

				if (len && end[len - 1] == '%')
					end[len - 1] = '\0';
			}
			if (!parse_num_full(end, &v))
				parse_ctx_add(c, time_keys[k].name, v);
			break;
		}
	}
	if (!reports)
		parse_ctx_fail(
			c,
			"no \"Elapsed (wall clock) time\" line (not time -v output, or cut short)");
}
