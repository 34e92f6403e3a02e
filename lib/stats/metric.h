#ifndef REGTRACK_STATS_METRIC_H
#define REGTRACK_STATS_METRIC_H

/*
 * Metric registry defaults, guessed from the metric name (LKP naming:
 * `testcase.name` or `monitor.name`, e.g. `will-it-scale.per_thread_ops`,
 * `perf-stat.ps.cycles`, `time.elapsed_time`). The first matching pattern
 * of a declarative table (fnmatch(3) globs, see metric.c) decides; the
 * API can override the result per metric. Pure and thread-safe.
 */

/*
 * 1 when a higher value is better (throughput, ops, scores, bandwidth),
 * 0 when lower is better (latency, times, cycles per instruction),
 * -1 when the name says nothing. name must not be NULL.
 */
int metric_higher_is_better(const char *name);

/* The unit the name suggests ("ms", "ops/s", "%", ...), "" when unknown. Static string. */
const char *metric_unit_guess(const char *name);

/*
 * 1 for a monitor metric (what LKP's monitors record beside the test:
 * perf-stat.*, perf-profile.*, time.*, vmstat.*, proc-vmstat.*, meminfo.*,
 * slabinfo.*, interrupts.*, sched_debug.*, turbostat.*, ...), 0 for the
 * testcase's own metrics.
 */
int metric_is_monitor(const char *name);

#endif
