#!/usr/bin/env bash
# tests/cases/run.sh — host-mode checks of the benchmark cases (worker/cases/).
#
# Runs every case binary of bin/cases/x86_64 on this machine with short
# params (and bin/cases/aarch64 through qemu-aarch64 when qemu-user is
# installed) and checks:
#   - exit status 0, stdout made only of `key: number` lines, the exact set of
#     keys with the exact number of lines each (one per sample/iteration),
#     every value positive and finite;
#   - relations that hold by construction (min <= median <= max, total = mean
#     per task * tasks, one task: no median, ...);
#   - bad params: non-zero exit, a message on stderr, nothing on stdout.
# No timing assertion: values are only checked to be positive and consistent.
#
# Usage: tests/cases/run.sh            (after `make cases`; `make check-cases`)
# Env:   CASES_DIR (default bin/cases), CASE_TIMEOUT seconds per run (120)
set -u
cd "$(dirname "$0")/../.."
CASES_DIR=${CASES_DIR:-bin/cases}
CASE_TIMEOUT=${CASE_TIMEOUT:-120}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# run LABEL CMD... : runs with a timeout, stdout to $TMP/out, stderr to $TMP/err, rc in $rc
run() {
	local label=$1
	shift
	rc=0
	timeout -k 5 "$CASE_TIMEOUT" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "  ($label timed out)" >&2
	fi
}

# well_formed SPEC : stdout has exactly the keys of SPEC ("key=N key=N ...")
# with N lines each, every line `key: number`, every value > 0 and finite.
well_formed() {
	awk -v spec="$1" '
	BEGIN {
		n = split(spec, s, " ")
		for (i = 1; i <= n; i++) {
			split(s[i], kv, "=")
			want[kv[1]] = kv[2]
		}
	}
	{
		if ($0 !~ /^[a-z_]+: -?[0-9]+(\.[0-9]+)?$/) {
			print "malformed line: " $0
			bad = 1
			next
		}
		key = substr($1, 1, length($1) - 1)
		got[key]++
		if (!(key in want)) {
			print "unexpected key: " key
			bad = 1
		}
		if (!($2 + 0 > 0)) {
			print "not positive: " $0
			bad = 1
		}
	}
	END {
		for (k in want)
			if (got[k] + 0 != want[k] + 0) {
				print "key " k ": " got[k] + 0 " lines, want " want[k]
				bad = 1
			}
		exit bad
	}' "$TMP/out"
}

# relation AWK-PROGRAM : run an awk check over the values; v[key] is the list
# v[key, i] (i from 1), n[key] the count.  The program prints why and exits 1.
relation() {
	awk '
	{ key = substr($1, 1, length($1) - 1); n[key]++; v[key, n[key]] = $2 + 0 }
	END { '"$1"' }' "$TMP/out"
}

# expect_ok LABEL SPEC [RELATION] -- CMD...
expect_ok() {
	local label=$1 spec=$2 rel=$3
	shift 4
	run "$label" "$@"
	if [ "$rc" != 0 ]; then
		bad "$label: exit $rc: $(tail -n 3 "$TMP/err" | tr '\n' ' ')"
		return
	fi
	local why
	if ! why=$(well_formed "$spec"); then
		bad "$label: $why"
		return
	fi
	if [ -n "$rel" ] && ! why=$(relation "$rel"); then
		bad "$label: $why"
		return
	fi
	ok
	echo "ok   $label: $(tr '\n' ' ' <"$TMP/out" | cut -c1-150)"
}

# expect_fail LABEL -- CMD... : non-zero exit, message on stderr, empty stdout
expect_fail() {
	local label=$1
	shift 2
	run "$label" "$@"
	if [ "$rc" = 0 ]; then
		bad "$label: exit 0 for bad params"
	elif [ ! -s "$TMP/err" ]; then
		bad "$label: exit $rc without a message on stderr"
	elif [ -s "$TMP/out" ]; then
		bad "$label: printed on stdout: $(head -c 200 "$TMP/out")"
	else
		ok
		echo "ok   $label: exit $rc, $(head -n 1 "$TMP/err")"
	fi
}

# --- relations that hold by construction --------------------------------
# two tasks: the median is the mean of both, so throughput = 2 * median
REL_TWO_TASKS='
	d = v["throughput", 1] - 2 * v["median", 1]; if (d < 0) d = -d
	if (d > 1e-7 * v["throughput", 1]) { print "throughput != 2 * median"; exit 1 }'
rel_total() { # total_ops_per_sec = ops_per_sec * tasks (printed with 9 digits)
	echo '
	for (i = 1; i <= n["ops_per_sec"]; i++) {
		t = v["ops_per_sec", i] * '"$1"'; d = t - v["total_ops_per_sec", i]
		if (d < 0) d = -d
		if (d > 1e-7 * t) { print "window " i ": total " v["total_ops_per_sec", i] " != " t; exit 1 }
	}'
}
REL_PVM='
	for (i = 1; i <= n["median_ms"]; i++) {
		if (!(v["min_ms", i] <= v["median_ms", i] && v["median_ms", i] <= v["max_ms", i])) {
			print "sample " i ": not min <= median <= max"; exit 1 }
		if (!(v["min_ms", i] <= v["avg_ms", i] && v["avg_ms", i] <= v["max_ms", i])) {
			print "sample " i ": not min <= avg <= max"; exit 1 }
		if (!(v["read_median_ms", i] <= v["read_max_ms", i])) {
			print "sample " i ": read median > read max"; exit 1 }
	}'

# mrelease_spec N : exit-teardown prints mrelease_ms only where the kernel
# (or qemu-user) has process_mrelease; the case says so on stderr otherwise.
mrelease_spec() {
	local label=$1
	shift 2
	run "$label" "$@"
	if grep -q 'ENOSYS' "$TMP/err"; then
		echo "teardown_ms=$N_IT"
	else
		echo "teardown_ms=$N_IT mrelease_ms=$N_IT"
	fi
}

# --- one architecture -----------------------------------------------------
# check_arch ARCH RUNNER... : RUNNER is empty for native, qemu-aarch64 for arm64
check_arch() {
	local arch=$1
	shift
	local d=$CASES_DIR/$arch r=("$@")
	local c
	for c in small-allocs execl proc-vs-map page-fault exit-teardown; do
		if [ ! -x "$d/$c" ]; then
			bad "$arch: $d/$c missing (run make cases)"
			return
		fi
	done
	echo "== $arch ${r[*]:-(native)}"

	# small-allocs
	# one task: no median (it would be throughput again)
	expect_ok "$arch small-allocs devzero 1 task" "throughput=1" "" -- \
		"${r[@]}" "$d/small-allocs" nr_task=1 runtime=0.2 source=devzero
	expect_ok "$arch small-allocs anon 2 processes" "throughput=1 median=1" "$REL_TWO_TASKS" -- \
		"${r[@]}" "$d/small-allocs" nr_task=2 runtime=0.2 source=anon
	expect_ok "$arch small-allocs devzero 2 threads, iterations" "throughput=1 median=1" \
		"$REL_TWO_TASKS" -- \
		"${r[@]}" "$d/small-allocs" nr_task=2 mode=thread iterations=5 nr_maps=64
	expect_ok "$arch small-allocs nr_task=100%" "throughput=1 median=1" "" -- \
		"${r[@]}" "$d/small-allocs" nr_task=100% runtime=0.1
	expect_fail "$arch small-allocs source=file" -- "${r[@]}" "$d/small-allocs" source=file
	expect_fail "$arch small-allocs nr_task=0" -- "${r[@]}" "$d/small-allocs" nr_task=0
	expect_fail "$arch small-allocs nr_task=abc" -- "${r[@]}" "$d/small-allocs" nr_task=abc
	expect_fail "$arch small-allocs unknown key" -- "${r[@]}" "$d/small-allocs" bogus=1
	expect_fail "$arch small-allocs not key=value" -- "${r[@]}" "$d/small-allocs" runtime
	expect_fail "$arch small-allocs runtime=1x" -- "${r[@]}" "$d/small-allocs" runtime=1x
	expect_fail "$arch small-allocs twice" -- "${r[@]}" "$d/small-allocs" runtime=1 runtime=2

	# execl: execs the binary itself, so under qemu-user it needs binfmt_misc
	if [ ${#r[@]} -eq 0 ] || [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
		expect_ok "$arch execl 1 copy" "lps=1" "" -- "${r[@]}" "$d/execl" runtime=0.3 warmup=0.1
		expect_ok "$arch execl 2 copies" "lps=1" "" -- "${r[@]}" "$d/execl" nr_task=2 runtime=0.3
		# from a path with a space, and with argv[0] unrelated to the path
		mkdir -p "$TMP/a dir"
		cp "$d/execl" "$TMP/a dir/e x"
		expect_ok "$arch execl from another path" "lps=1" "" -- \
			"${r[@]}" "$TMP/a dir/e x" runtime=0.2 warmup=0
		rm -rf "$TMP/a dir"
	else
		echo "skip $arch execl: exec of an $arch binary needs binfmt_misc for qemu-user"
	fi
	expect_fail "$arch execl runtime=0" -- "${r[@]}" "$d/execl" runtime=0
	expect_fail "$arch execl mode=thread" -- "${r[@]}" "$d/execl" mode=thread

	# proc-vs-map
	expect_ok "$arch proc-vs-map smaps_rollup" \
		"median_ms=2 min_ms=2 max_ms=2 avg_ms=2 read_median_ms=2 read_max_ms=2" "$REL_PVM" -- \
		"${r[@]}" "$d/proc-vs-map" nsamples=2 duration=0.2 region_mb=4
	expect_ok "$arch proc-vs-map maps, no busy-waiters, 2 readers" \
		"median_ms=1 min_ms=1 max_ms=1 avg_ms=1 read_median_ms=1 read_max_ms=1" "$REL_PVM" -- \
		"${r[@]}" "$d/proc-vs-map" nsamples=1 duration=0.2 region_mb=4 procfile=maps \
		busyduration=0 nreaders=2
	expect_fail "$arch proc-vs-map procfile=status" -- "${r[@]}" "$d/proc-vs-map" procfile=status
	expect_fail "$arch proc-vs-map nsamples=0" -- "${r[@]}" "$d/proc-vs-map" nsamples=0

	# page-fault
	expect_ok "$arch page-fault process" "ops_per_sec=2 total_ops_per_sec=2" "$(rel_total 1)" -- \
		"${r[@]}" "$d/page-fault" size_mb=8 runtime=0.2 iterations=2
	expect_ok "$arch page-fault 2 threads" "ops_per_sec=1 total_ops_per_sec=1" "$(rel_total 2)" -- \
		"${r[@]}" "$d/page-fault" size_mb=8 runtime=0.2 nr_task=2 mode=thread
	expect_ok "$arch page-fault 2 processes, dir=/dev/shm" "ops_per_sec=1 total_ops_per_sec=1" \
		"$(rel_total 2)" -- \
		"${r[@]}" "$d/page-fault" size_mb=8 runtime=0.2 nr_task=2 dir=/dev/shm warmup=0
	expect_fail "$arch page-fault dir missing" -- \
		"${r[@]}" "$d/page-fault" size_mb=8 runtime=0.1 dir="$TMP/nonexistent"
	expect_fail "$arch page-fault too big" -- "${r[@]}" "$d/page-fault" size_mb=1048576
	expect_fail "$arch page-fault mode=fork" -- "${r[@]}" "$d/page-fault" mode=fork

	# exit-teardown
	N_IT=2
	local spec
	spec=$(mrelease_spec "$arch exit-teardown probe" -- "${r[@]}" "$d/exit-teardown" size=4 \
		iterations=$N_IT warmup=0)
	expect_ok "$arch exit-teardown ($spec)" "$spec" "" -- \
		"${r[@]}" "$d/exit-teardown" size=16 iterations=$N_IT
	expect_ok "$arch exit-teardown mrelease=off" "teardown_ms=3" "" -- \
		"${r[@]}" "$d/exit-teardown" size=8 iterations=3 mrelease=off
	expect_fail "$arch exit-teardown size=0" -- "${r[@]}" "$d/exit-teardown" size=0
	expect_fail "$arch exit-teardown size too big" -- "${r[@]}" "$d/exit-teardown" size=1048576

	# tool cases: their output is the tool's (tests/worker and the
	# kernel tier run them); here the table refuses bad params before any
	# tool runs, and --params-json gives the duration type
	expect_fail "$arch stress-ng stressor=nope" -- "${r[@]}" "$d/stress-ng" stressor=nope
	expect_fail "$arch stress-ng timeout=5x" -- "${r[@]}" "$d/stress-ng" timeout=5x
	expect_fail "$arch stress-ng timeout=25h" -- "${r[@]}" "$d/stress-ng" timeout=25h
	expect_fail "$arch stress-ng nr_threads=0" -- "${r[@]}" "$d/stress-ng" nr_threads=0
	expect_fail "$arch hackbench mode=thread" -- "${r[@]}" "$d/hackbench" mode=thread
	expect_fail "$arch hackbench groups=0" -- "${r[@]}" "$d/hackbench" groups=0
	expect_fail "$arch sysbench test=fileio" -- "${r[@]}" "$d/sysbench" test=fileio
	expect_fail "$arch sysbench time=0" -- "${r[@]}" "$d/sysbench" time=0
	expect_fail "$arch fio rw=trim" -- "${r[@]}" "$d/fio" rw=trim
	expect_fail "$arch fio ioengine=libaio" -- "${r[@]}" "$d/fio" ioengine=libaio
	expect_fail "$arch fio size_mb=0" -- "${r[@]}" "$d/fio" size_mb=0
	expect_fail "$arch fio time_based=2" -- "${r[@]}" "$d/fio" time_based=2
	# the tool is found in PATH past the tool case itself, which the guest's
	# PATH lists first (/cases before /usr/bin): the host's stress-ng here
	if [ ${#r[@]} -eq 0 ]; then
		if PATH="$d:$PATH" "$d/stress-ng" stressor=brk nr_threads=1 timeout=1 \
			>"$TMP/out" 2>"$TMP/err" && grep -q '^stress-ng: metrc: .* brk ' "$TMP/out" &&
			grep -q '^regtrack-tool: stress-ng stress-ng, version ' "$TMP/err"; then
			ok
			echo "ok   $arch stress-ng with the case first in PATH: the tool ran, its version noted"
		else
			bad "$arch stress-ng with the case first in PATH: $(head -c 300 "$TMP/out" "$TMP/err")"
		fi
	fi
	if "${r[@]}" "$d/stress-ng" --params-json | grep -q '"timeout":{"type":"duration","default":"10s","min":1,"max":86400'; then
		ok
		echo "ok   $arch stress-ng --params-json: timeout is a duration"
	else
		bad "$arch stress-ng --params-json: no duration timeout"
	fi
}

check_arch x86_64
if command -v qemu-aarch64 >/dev/null 2>&1; then
	check_arch aarch64 qemu-aarch64
else
	echo "skip aarch64: qemu-aarch64 (qemu-user) not installed"
fi

# cases need no /proc except where documented: run two without it
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
	unshare -m true 2>/dev/null; then
	echo "== x86_64 without /proc"
	cat >"$TMP/noproc.sh" <<'EOF'
umount -l /proc || exit 99
"$@"
EOF
	expect_ok "small-allocs without /proc" "throughput=1" "" -- \
		unshare -m sh "$TMP/noproc.sh" "$CASES_DIR/x86_64/small-allocs" nr_task=1 runtime=0.1
	expect_ok "execl without /proc" "lps=1" "" -- \
		unshare -m sh "$TMP/noproc.sh" "$CASES_DIR/x86_64/execl" runtime=0.2 warmup=0
	expect_fail "proc-vs-map without /proc" -- \
		unshare -m sh "$TMP/noproc.sh" "$CASES_DIR/x86_64/proc-vs-map" nsamples=1
else
	echo "skip without-/proc checks: need root and unshare -m"
fi

echo "cases: $pass passed, $fail failed"
[ "$fail" = 0 ]
