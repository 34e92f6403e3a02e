#!/usr/bin/env bash
# What perf-profile costs the case it watches: the same kernel
# (x86_64-tiny-mm at the kernel tree's base commit) and the same
# small-allocs job booted under icount without monitors and with
# "perf-profile" (perf record -a -g -e cpu-clock around the measured phase,
# /init's folding after it), through tests/kernel/exec_job as the worker
# runs jobs. Under icount the guest's clock is its instruction count, so
# the case's throughput with / without is the perturbation in instructions;
# duration_s (qemu's wall time, boot to power-off) shows the wall-time
# cost, folding included.
#
# Reuses a warm worker cache: REGTRACK_CACHE (default var/cache, as
# tests/kernel/run.sh leaves it: kernel tree, build dir, ccache, the cached
# static perf). A cold cache builds the kernel and perf first (minutes).
# Prints one JSON object on stdout (bench/bench.py reads it); progress on
# stderr. BENCH_PERF_REPS boots per side (default 2).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
CACHE=${REGTRACK_CACHE:-$top/var/cache}
REPS=${BENCH_PERF_REPS:-2}
EXEC=${REGTRACK_EXEC_JOB:-}
if [[ -z $EXEC ]]; then
	make -s B=build/kernel-test BIN=build/kernel-test/bin build/kernel-test/tests/kernel/exec_job cases >&2
	EXEC=$top/build/kernel-test/tests/kernel/exec_job
fi
BASE=$(deploy/make-kernel-tree "$CACHE/linux")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--work-dir "$CACHE/worker" --cases-dir "$top/bin/cases" --ccache-dir "$CACHE/ccache"
	--url "$CACHE/linux" --tree linux --compiler gcc-12 --jobs 2 --testcase small-allocs
	--arch x86_64 --kconfig x86_64-tiny-mm --commit "$BASE" --repeat "$REPS"
	--params '{"nr_task": 1, "iterations": 20, "measure": "icount"}')
for side in off on; do
	extra=()
	[[ $side == on ]] && extra=(--monitors perf-profile)
	echo "perf_perturb: $REPS icount boot(s), perf-profile $side" >&2
	timeout 3600 "$EXEC" "${common[@]}" "${extra[@]}" > "$tmp/$side.json" 2> "$tmp/$side.err" ||
		{ cat "$tmp/$side.err" >&2; exit 1; }
	[[ $(jq -r .status "$tmp/$side.json") == ok ]] ||
		{ jq -r .log_tail "$tmp/$side.json" | tail -20 >&2; exit 1; }
done
jq -n --slurpfile off "$tmp/off.json" --slurpfile on "$tmp/on.json" '
	def side(d): {throughput: [d.runs[].metrics["small-allocs.throughput"][0]],
		      guest_elapsed_s: [d.runs[].guest_elapsed_s], duration_s: [d.runs[].duration_s],
		      samples: [d.runs[].profile.samples // 0],
		      folded_bytes: [d.runs[].profile.folded // "" | length]};
	{off: side($off[0]), on: side($on[0]),
	 note: "x86_64-tiny-mm, small-allocs nr_task=1 iterations=20 under icount (1 vCPU), \($off[0].runs | length) boot(s) per side"}'
