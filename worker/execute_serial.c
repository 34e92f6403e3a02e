/* A boot's console text read back: the markers /init prints (worker/init/init.c). */
#include "execute_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void exec_parse_serial(const char *log, struct boot_result *r)
{
	const char *p = strstr(log, MARK_INIT), *begin, *end, *line;

	memset(r, 0, sizeof(*r));
	buf_init(&r->text, 0);
	r->guest_s = -1;
	if (!p)
		return;
	r->reached_init = 1;
	p += strlen(MARK_INIT);
	snprintf(r->release, sizeof(r->release), "%.*s", (int)strcspn(p, " \r\n"), p);
	begin = strstr(p, MARK_BEGIN);
	if (!begin)
		return;
	end = strstr(begin, MARK_END);
	if (!end)
		return;
	r->has_end = 1;
	{
		long long ns = 0;

		if (sscanf(end + strlen(MARK_END), "exit=%d signal=%d timeout=%d elapsed_ns=%lld",
			   &r->exit_code, &r->signal, &r->timed_out, &ns) != 4) {
			r->has_end = 0;
			return;
		}
		r->guest_s = ns / 1e9;
	}
	for (line = begin; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		if (n >= 4 && !memcmp(line, "rt| ", 4)) {
			size_t m = n - 4;

			while (m && line[4 + m - 1] == '\r')
				m--;
			if (buf_add(&r->text, line + 4, m) || buf_addch(&r->text, '\n'))
				abort();
		}
		line += n + 1;
	}
}
