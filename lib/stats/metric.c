#include "metric.h"
#include "xalloc.h"

#include <fnmatch.h>
#include <string.h>

struct metric_rule {
	const char *glob; /* fnmatch(3) pattern, case-insensitive */
	int higher;	  /* 1 higher is better, 0 lower, -1 unknown */
	const char *unit; /* "" when unknown */
};

/*
 * First match wins, so specific names come before general ones. The
 * directions follow LKP's own lists (lkp-tests lib/stats.rb: latency and
 * time metrics are "lower is better", throughput and scores "higher").
 */
static const struct metric_rule rules[] = {
	/* monitors whose direction is a matter of context */
	{ "time.voluntary_context_switches", -1, "" },
	{ "time.involuntary_context_switches", -1, "" },
	{ "time.*_page_faults", -1, "" },
	{ "time.file_system_*", -1, "" },
	{ "time.percent_of_cpu_this_job_got", -1, "%" },
	{ "time.maximum_resident_set_size", 0, "KiB" },
	{ "time.elapsed_time*", 0, "s" },
	{ "time.user_time", 0, "s" },
	{ "time.system_time", 0, "s" },
	{ "perf-stat.*cpi", 0, "" },
	{ "perf-stat.*ipc", 1, "" },
	{ "perf-stat.*miss-rate*", 0, "%" },
	{ "perf-stat.*", -1, "" },
	{ "perf-profile.*", -1, "%" },
	/* throughput-like: higher is better */
	/* vm-scalability's (and our small-allocs') median is the median task's KB/s */
	{ "vm-scalability.median", 1, "KB/s" },
	{ "small-allocs.median", 1, "KB/s" },
	{ "small-allocs.throughput", 1, "KB/s" },
	{ "vm-scalability.throughput", 1, "KB/s" },
	{ "execl.lps", 1, "lps" },
	{ "*.lps", 1, "lps" },
	{ "*works/sec", 1, "works/s" },
	{ "*ops_per_sec", 1, "ops/s" },
	{ "*ops/s", 1, "ops/s" },
	{ "*per_sec", 1, "1/s" },
	{ "*.throughput", 1, "" },
	{ "*throughput*", 1, "" },
	{ "*_ops", 1, "ops" },
	{ "*.ops", 1, "ops" },
	{ "*.score", 1, "" },
	{ "*.iops", 1, "IO/s" },
	{ "*_iops", 1, "IO/s" },
	{ "*bandwidth*", 1, "" },
	{ "*.bw*", 1, "" },
	{ "*_bw", 1, "" },
	{ "*_mbps", 1, "MB/s" },
	{ "*_mb_s", 1, "MB/s" },
	{ "*_kb_s", 1, "KB/s" },
	{ "*.speedup", 1, "" },
	{ "*.workload", 1, "" },
	{ "*.bogo_ops*", 1, "ops" },
	/* latency and time: lower is better */
	{ "*latency*_ms", 0, "ms" },
	{ "*latency*_us", 0, "us" },
	{ "*latency*_ns", 0, "ns" },
	{ "*latency*", 0, "" },
	{ "*_ms", 0, "ms" },
	{ "*_us", 0, "us" },
	{ "*_ns", 0, "ns" },
	{ "*.usecs", 0, "us" },
	{ "*.msecs", 0, "ms" },
	{ "*_sec", 0, "s" },
	{ "*_seconds", 0, "s" },
	{ "*time*", 0, "" },
	{ "*.cpi", 0, "" },
	{ "*cycles*", 0, "cycles" },
	/*
	 * a statistic's name alone (.max, .median: of a latency or of a rate?) says no
	 * direction: a guess would turn a throughput's fall into an improvement
	 */
	{ "*.max", -1, "" },
	{ "*.median", -1, "" },
	{ "*_percent", -1, "%" },
	{ "*_pct", -1, "%" },
};

static const char *const monitor_prefixes[] = {
	"perf-stat.",	 "perf-profile.",  "perf-sched.",    "perf-c2c.",   "perf-lock.",
	"time.",	 "vmstat.",	   "proc-vmstat.",   "meminfo.",    "numa-meminfo.",
	"numa-vmstat.",	 "numa-numastat.", "slabinfo.",	     "interrupts.", "softirqs.",
	"sched_debug.",	 "turbostat.",	   "mpstat.",	     "iostat.",	    "cpuidle.",
	"cpufreq.",	 "pmeter.",	   "latency_stats.", "lock_stat.",  "buddyinfo.",
	"pagetypeinfo.", "diskstats.",	   "nfsstat.",	     "sar.",	    "kmsg.",
	"dmesg.",	 "boot-time.",	   "proc-stat.",     "uptime.",	    "ftrace.",
	"lkp-stat.",	 "energy.",	   "power.",	     "memory.",	    "netstat.",
};

static const struct metric_rule *rule_for(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
		if (!fnmatch(rules[i].glob, name, FNM_CASEFOLD))
			return &rules[i];
	return NULL;
}

int metric_higher_is_better(const char *name)
{
	const struct metric_rule *r = rule_for(name);

	return r ? r->higher : -1;
}

const char *metric_unit_guess(const char *name)
{
	const struct metric_rule *r = rule_for(name);

	return r ? r->unit : "";
}

int metric_is_monitor(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(monitor_prefixes); i++)
		if (!strncmp(name, monitor_prefixes[i], strlen(monitor_prefixes[i])))
			return 1;
	return 0;
}
