#!/usr/bin/env bash
# make bench: builds the bench programs, then bench/bench.py prints every
# figure beside its same-run baseline and writes bench/results.json.
#
# Environment: REGTRACK_BIN (the binaries, default bin/), BENCH_REPS
# (repetitions, default 5), BENCH_ONLY (steps, see bench.py), BENCH_KERNEL=1
# (also the kernel rebuild step, bench/kernel_step.sh: several minutes; or
# BENCH_KERNEL=FILE.json, a saved output of it), BENCH_PERF (perf-profile's
# perturbation, bench/perf_perturb.sh: runs where a warm worker cache is; 1
# builds one, 0 skips, FILE.json shows a saved output), BENCH_PARSE_REPS (runs per
# parser RSS figure, default 1), BENCH_PROGS (where the bench
# programs go, default build/bench-progs).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export REGTRACK_BIN=${REGTRACK_BIN:-$top/bin}
export BENCH_PROGS=${BENCH_PROGS:-$top/build/bench-progs}
B=$BENCH_PROGS/obj
mkdir -p "$BENCH_PROGS"

# the library and server objects, built by the top-level Makefile in its own dir
make --no-print-directory -s B="$B" BIN="$B/bin" "$B/libregtrack.a" "$B/libserver.a" >&2

CFLAGS="-O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -include lib/banned.h -Ilib -I."
PKGS="libcurl libpq jansson libmicrohttpd uuid libcrypto gsl"
# shellcheck disable=SC2046
gcc $CFLAGS $(pkg-config --cflags $PKGS) -o "$BENCH_PROGS/loadgen" bench/loadgen.c \
	"$B/libserver.a" "$B/libregtrack.a" $(pkg-config --libs $PKGS) -lpthread -lm
if [[ -f bench/detect_bench.c ]]; then
	# shellcheck disable=SC2046
	gcc $CFLAGS -Itests/unit -o "$BENCH_PROGS/detect_bench" bench/detect_bench.c \
		"$B/libregtrack.a" $(pkg-config --libs gsl jansson) -lm ||
		echo "bench: detect_bench did not build" >&2
fi
# the detector by noise kind (gaussian, outlier, bimodal, drift, AR(1)): bench/detect_noise.c
# shellcheck disable=SC2046
gcc $CFLAGS -o "$BENCH_PROGS/detect_noise" bench/detect_noise.c "$B/libregtrack.a" \
	$(pkg-config --libs gsl jansson) -lm || echo "bench: detect_noise did not build" >&2
# reports at the tip: the delay from a step to its record, detector alone vs the tip check
# shellcheck disable=SC2046
gcc $CFLAGS -o "$BENCH_PROGS/tip_delay" bench/tip_delay.c "$B/libregtrack.a" \
	$(pkg-config --libs gsl jansson) -lm || echo "bench: tip_delay did not build" >&2
# linked like regtrack-worker (the Makefile's LDLIBS): the worker RSS baseline
# shellcheck disable=SC2046
gcc $CFLAGS -o "$BENCH_PROGS/curl_floor" bench/curl_floor.c $(pkg-config --libs $PKGS) \
	-lpthread -lm || echo "bench: curl_floor did not build" >&2
# the parser RSS figures: peak RSS of a child of a small process, not of Python
gcc $CFLAGS -o "$BENCH_PROGS/maxrss" bench/maxrss.c || echo "bench: maxrss did not build" >&2
for f in bench/bisect_sim*.c; do
	[[ -f $f ]] || continue
	# shellcheck disable=SC2046
	gcc $CFLAGS -Itests/unit -o "$BENCH_PROGS/$(basename "$f" .c)" "$f" \
		"$B/libregtrack.a" $(pkg-config --libs $PKGS) -lpthread -lm ||
		echo "bench: $f did not build" >&2
done

# the kernel step (BENCH_KERNEL=1) builds a kernel twice and a half; the
# perf step (BENCH_PERF, bench/perf_perturb.sh) boots 4 icount guests (~2-4 min warm)
exec timeout "$([[ ${BENCH_KERNEL:-} == 1 || ${BENCH_PERF:-} == 1 ]] && echo 4500 || echo 1200)" /usr/bin/python3 bench/bench.py
