#include "lkptext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lkp_absolute_delta(const char *metric)
{
	size_t n = strlen(metric);

	return !strncmp(metric, "perf-profile.", 13) || (n && metric[n - 1] == '%');
}

void lkp_format_number(double v, char out[32])
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(out, 32, " ");
	else if (a == 0)
		snprintf(out, 32, "0.00");
	else if (a >= 1e10)
		snprintf(out, 32, "%.3e", v);
	else if (a >= 1e4)
		snprintf(out, 32, "%.0f", v);
	else if (a >= 100)
		snprintf(out, 32, "%.1f", v);
	else if (a >= 0.01)
		snprintf(out, 32, "%.2f", v);
	else
		snprintf(out, 32, "%.2e", v);
}

static void format_stddev(double pct, char out[16])
{
	if (isnan(pct) || pct <= 2)
		snprintf(out, 16, "      ");
	else
		snprintf(out, 16, " \xc2\xb1%3.0f%%", pct > 999 ? 999 : pct);
}

static int cmp_axis(const void *a, const void *b)
{
	return strcmp(((const struct lkp_axis *)a)->name, ((const struct lkp_axis *)b)->name);
}

static int commit_line(struct buf *out, const char *sha, const char *subject)
{
	if (subject)
		return buf_addf(out, "  %.10s (\"%s\")\n", sha, subject);
	return buf_addf(out, "  %.10s\n", sha);
}

int lkp_render(struct buf *out, struct lkp_axis *axes, size_t nr_axes, const char *base_sha,
	       const char *base_subject, const char *head_sha, const char *head_subject,
	       const struct lkp_row *rows, size_t nr_rows)
{
	int r = 0;

	qsort(axes, nr_axes, sizeof(*axes), cmp_axis);
	r |= buf_addstr(out, "=========================================================="
			     "===============================\n");
	for (size_t i = 0; i < nr_axes; i++)
		r |= buf_addf(out, "%s%s", i ? "/" : "", axes[i].name);
	r |= buf_addstr(out, ":\n  ");
	for (size_t i = 0; i < nr_axes; i++)
		r |= buf_addf(out, "%s%s", i ? "/" : "", axes[i].value);
	r |= buf_addstr(out, "\n\ncommit: \n");
	r |= commit_line(out, base_sha, base_subject);
	r |= commit_line(out, head_sha, head_subject);
	r |= buf_addf(out, "\n%.16s %.16s \n", base_sha, head_sha);
	r |= buf_addstr(out, "---------------- --------------------------- \n");
	r |= buf_addstr(out, "         %stddev     %change         %stddev\n");
	r |= buf_addstr(out, "             \\          |                \\  \n");
	for (size_t i = 0; i < nr_rows; i++) {
		const struct lkp_row *row = &rows[i];
		char a[32], b[32], ch[32], sa[16], sb[16];

		lkp_format_number(row->base_mean, a);
		lkp_format_number(row->head_mean, b);
		format_stddev(row->base_stddev_pct, sa);
		format_stddev(row->head_stddev_pct, sb);
		if (lkp_absolute_delta(row->metric)) {
			if (isnan(row->base_mean) || isnan(row->head_mean))
				snprintf(ch, sizeof(ch), " ");
			else
				snprintf(ch, sizeof(ch), "%+.1f", row->head_mean - row->base_mean);
		} else if (isnan(row->change_pct)) {
			snprintf(ch, sizeof(ch), " ");
		} else if (row->change_pct == 0) {
			snprintf(ch, sizeof(ch), "0.0%%"); /* did not move (0 -> 0 too): no sign */
		} else if (fabs(row->change_pct) < 100000) {
			snprintf(ch, sizeof(ch), "%+.1f%%", row->change_pct);
		} else {
			/* LKP's show_perf_change: '.2g' from 100000 % (a zero base is 1e-100) */
			snprintf(ch, sizeof(ch), "%+.2g%%", row->change_pct);
		}
		r |= buf_addf(out, "%10s%s %10s %10s%s  %s\n", a, sa, ch, b, sb, row->metric);
	}
	return r ? -1 : 0;
}
