#ifndef REGTRACK_LKPTEXT_H
#define REGTRACK_LKPTEXT_H

#include <stddef.h>

#include "buf.h"

/*
 * The comparison table in the layout of LKP's `lkp compare` and the 0-day
 * kernel test robot's mails: a `=====` line, the axis line (sorted
 * dimension names joined by '/') and its values, the two commits, the
 * `%stddev %change %stddev` header, then one row per metric:
 *
 *     108849 ±  2%     +13.3%     123316        will-it-scale.per_process_ops
 *       0.25 ±  9%       -0.0       0.23 ±  5%  perf-profile.children.cycles-pp.x
 *
 * `±NN%` appears only when the population %stddev is above 2 %; rows of
 * perf-profile.* metrics and of metrics whose name ends in '%' show the
 * absolute delta (head - base) instead of %change, as LKP does.
 */
struct lkp_row {
	const char *metric;
	double base_mean, base_stddev_pct; /* NAN stddev = no ± */
	double head_mean, head_stddev_pct;
	double change_pct; /* NAN = no base (printed as blank) */
};

struct lkp_axis {
	const char *name; /* "compiler", "kconfig", "tbox_group", "testcase", param keys… */
	const char *value;
};

/*
 * Appends the table to out. axes[0..nr_axes) are sorted by name here (the
 * array is reordered). base/head: full shas (at least 12 chars); subjects
 * may be NULL. rows are printed in the order given. Returns 0, or -1 when
 * out's cap was reached (the text is then cut).
 */
int lkp_render(struct buf *out, struct lkp_axis *axes, size_t nr_axes, const char *base_sha,
	       const char *base_subject, const char *head_sha, const char *head_subject,
	       const struct lkp_row *rows, size_t nr_rows) __attribute__((warn_unused_result));

/* 1 when `metric` is shown with an absolute delta (perf-profile.*, ends in '%'). */
int lkp_absolute_delta(const char *metric);

/* Formats v the way the table does (at most 10 chars) into out[32]. */
void lkp_format_number(double v, char out[32]);

#endif
