/*
 * fio: the output of --output-format=json (text before the first '{' is
 * skipped). From the first job, after LKP's programs/fio/parse, for OP in
 * read, write:
 *   fio.OP_bw_MBps         bw (KiB/s) / 1024
 *   fio.OP_iops
 *   fio.OP_clat_mean_ns, fio.OP_clat_stddev
 *   fio.OP_clat_90%_ns, _95%_ns, _99%_ns   (clat percentiles)
 *   fio.OP_slat_mean_us, fio.OP_slat_stddev (LKP's names; fio 3 gives ns)
 *   fio.latency_Xus%, fio.latency_Xms%     (latency distribution)
 *   fio.workload           read + write total_ios
 * Invalid JSON or no job fails the run.
 */
#include "parse/parse_tool.h"

#include <string.h>

#include "xalloc.h"

static const char *const percentiles[] = { "90.000000", "95.000000", "99.000000" };

static int num(json_t *v, double *out)
{
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return 0;
}

static double fio_op(struct parse_ctx *c, json_t *job, const char *op)
{
	json_t *o = json_object_get(job, op), *lat, *pct;
	double v;

	if (!json_is_object(o))
		return 0;
	if (!num(json_object_get(o, "bw"), &v))
		parse_ctx_addf(c, v / 1024, "%s_bw_MBps", op);
	if (!num(json_object_get(o, "iops"), &v))
		parse_ctx_addf(c, v, "%s_iops", op);
	lat = json_object_get(o, "clat");
	if (!lat)
		lat = json_object_get(o, "clat_ns");
	if (!num(json_object_get(lat, "mean"), &v))
		parse_ctx_addf(c, v, "%s_clat_mean_ns", op);
	if (!num(json_object_get(lat, "stddev"), &v))
		parse_ctx_addf(c, v, "%s_clat_stddev", op);
	pct = json_object_get(lat, "percentile");
	for (size_t i = 0; i < ARRAY_SIZE(percentiles); i++)
		if (!num(json_object_get(pct, percentiles[i]), &v))
			parse_ctx_addf(c, v, "%s_clat_%.2s%%_ns", op, percentiles[i]);
	lat = json_object_get(o, "slat");
	if (!lat)
		lat = json_object_get(o, "slat_ns");
	if (!num(json_object_get(lat, "mean"), &v))
		parse_ctx_addf(c, v, "%s_slat_mean_us", op);
	if (!num(json_object_get(lat, "stddev"), &v))
		parse_ctx_addf(c, v, "%s_slat_stddev", op);
	return num(json_object_get(o, "total_ios"), &v) ? 0 : v;
}

void parse_fio(struct parse_ctx *c, struct parse_lines *l)
{
	const char *start = memchr(l->text, '{', l->len);
	json_error_t jerr;
	json_t *doc, *job, *dist;
	double workload;
	const char *k;
	json_t *v;

	if (!start) {
		parse_ctx_fail(c, "no JSON object in the fio output");
		return;
	}
	doc = json_loadb(start, l->len - (size_t)(start - l->text), JSON_DISABLE_EOF_CHECK, &jerr);
	if (!doc) {
		parse_ctx_fail(c, "fio JSON: %s at line %d (truncated output?)", jerr.text,
			       jerr.line);
		return;
	}
	job = json_array_get(json_object_get(doc, "jobs"), 0);
	if (!json_is_object(job)) {
		parse_ctx_fail(c, "fio JSON has no job");
		json_decref(doc);
		return;
	}
	workload = fio_op(c, job, "read") + fio_op(c, job, "write");
	dist = json_object_get(job, "latency_us");
	json_object_foreach (dist, k, v)
		if (json_is_number(v))
			parse_ctx_addf(c, json_number_value(v), "latency_%sus%%", k);
	dist = json_object_get(job, "latency_ms");
	json_object_foreach (dist, k, v)
		if (json_is_number(v))
			parse_ctx_addf(c, json_number_value(v), "latency_%sms%%", k);
	parse_ctx_add(c, "workload", workload);
	json_decref(doc);
}
