#!/usr/bin/env bash
# make fuzz: builds one libFuzzer binary per target with clang
# (-fsanitize=fuzzer,address,undefined) and runs each for FUZZ_SECONDS
# (default 30) over its seed corpus in fuzz/corpus/TARGET (kept in the repo;
# new inputs go to a scratch dir, not into the repo). Prints executions and
# exec/s per target; exits 1 on the first crash, leaving the crashing input
# in $FUZZ_OUT/crash-* (default build/fuzz/out).
#   FUZZ_SECONDS=600 make fuzz          longer runs
#   FUZZ_TARGETS="resultdoc kv" make fuzz   a subset
#   FUZZ_JOBS=2                         targets run side by side (default 1)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
CLANG=${CLANG:-clang}
B=${FUZZ_BUILD:-build/fuzz}
OUT=${FUZZ_OUT:-$B/out}
SECS=${FUZZ_SECONDS:-30}
PKGS="jansson"
CFLAGS="-std=c11 -D_GNU_SOURCE -include lib/banned.h -O1 -g -Ilib -I. -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer $(pkg-config --cflags $PKGS)"
LIBS="$(pkg-config --libs $PKGS) -lm"
LIB_SRC="lib/resultdoc.c lib/jsonkeys.c lib/robotmail.c lib/robotmail_request.c lib/profile.c lib/names.c lib/err.c lib/xalloc.c lib/buf.c lib/arena.c $(ls lib/parse/*.c)"
TOOLS="kv will-it-scale vm-scalability unixbench stress-ng hackbench fio time kselftest proc-vs-map perf-stat perf-profile lmbench3 sysbench perf-bench"
TARGETS=${FUZZ_TARGETS:-"resultdoc robotmail $TOOLS"}

mkdir -p "$B/obj" "$OUT"
# library objects: compiled once per run (fuzzer-instrumented, no main)
objs=()
for s in $LIB_SRC; do
	o="$B/obj/$(echo "${s%.c}" | tr / _).o"
	if [ ! -e "$o" ] || [ "$s" -nt "$o" ] || [ "$(ls -t lib/*.h lib/parse/*.h "$o" | head -1)" != "$o" ]; then
		$CLANG $CFLAGS -fsanitize=fuzzer-no-link -c -o "$o" "$s" 2>&1 | grep -v '^$' || true
		[ -e "$o" ] || { echo "fuzz: cannot compile $s" >&2; exit 1; }
	fi
	objs+=("$o")
done

build() { # target -> binary path
	local t=$1 bin="$B/fuzz_$1"
	if [ "$t" = resultdoc ] || [ "$t" = robotmail ]; then
		$CLANG $CFLAGS -o "$bin" "fuzz/fuzz_$t.c" "${objs[@]}" $LIBS
	else
		$CLANG $CFLAGS -DFUZZ_TOOL="\"$t\"" -o "$bin" fuzz/fuzz_parse.c "${objs[@]}" $LIBS
	fi
}

run() { # target
	local t=$1 bin="$B/fuzz_$1" work="$B/work/$1" log="$OUT/$1.log"
	rm -rf "$work"; mkdir -p "$work"
	# work dir first: libFuzzer adds new inputs to the first corpus dir
	set +e
	"$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$OUT/$t-" "$work" "fuzz/corpus/$t" >"$log" 2>&1
	local rc=$?
	set -e
	local execs rate
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	printf 'fuzz %-15s %10s executions %8s exec/s %4ss  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$SECS" \
		"$([ $rc -eq 0 ] && echo ok || echo "CRASH rc=$rc, see $log")"
	return $rc
}

for t in $TARGETS; do build "$t"; done
fail=0
if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then
	export -f run; export B OUT SECS
	printf '%s\n' $TARGETS | xargs -P "$FUZZ_JOBS" -I{} bash -c 'run {}' || fail=1
else
	for t in $TARGETS; do run "$t" || fail=1; done
fi
exit $fail
