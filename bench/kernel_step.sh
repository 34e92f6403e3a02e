#!/usr/bin/env bash
# The kernel bisect step's build, timed the way worker/kernel.c builds:
# make O=BUILD ARCH=x86_64 CC="ccache gcc" -jN bzImage of the x86_64-tiny-mm
# config (tinyconfig + worker/kconfig/tiny-mm.config +
# x86_64-tiny-mm.config, merged with merge_config.sh, then olddefconfig).
#
#   full_s         a full build: empty build dir, empty ccache
#   incremental_s  then one .c file changed (a line added to mm/mmap.c, as a
#                  bisect step between neighbouring commits changes a few
#                  files) and make again in the same build dir with the same
#                  ccache: what a bisect step costs on a worker that keeps
#                  its build dir
#   fresh_dir_s    (note) the changed tree again in a NEW build dir with the
#                  now warm ccache: a step on a worker that lost its build dir
#
# Prints one JSON object on stdout (bench/bench.py reads it); progress on
# stderr. The source is never modified: it is copied as a tree of hard
# links (cp -al; the changed file is written as a new file, not in place)
# into a scratch dir that is removed at the end.
#
# Environment: BENCH_KERNEL_SRC (a kernel source tree; default
# var/cache/linux, made by deploy/make-kernel-tree), BENCH_KERNEL_JOBS
# (make -j, default 2), BENCH_KERNEL_TMP (scratch parent, default under
# var/tmp; must be on the source's file system for cp -al).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=${BENCH_KERNEL_SRC:-$top/var/cache/linux}
jobs=${BENCH_KERNEL_JOBS:-2}
parent=${BENCH_KERNEL_TMP:-$top/var/tmp}

if [[ ! -f $src/Makefile || ! -f $src/mm/mmap.c ]]; then
	echo "kernel_step: no kernel tree at '$src' (deploy/make-kernel-tree $src, or set BENCH_KERNEL_SRC)" >&2
	exit 1
fi
command -v ccache >/dev/null || { echo "kernel_step: ccache not installed" >&2; exit 1; }

mkdir -p "$parent"
scratch=$(mktemp -d "$parent/kernel-step.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
tree=$scratch/src
echo "kernel_step: linking $src into $tree" >&2
cp -al "$src" "$tree"
rm -rf "$tree/.git"

export CCACHE_DIR=$scratch/ccache CCACHE_BASEDIR=$scratch LC_ALL=C
export KBUILD_BUILD_TIMESTAMP="Sun Jan 1 00:00:00 UTC 2023" KBUILD_BUILD_USER=regtrack \
	KBUILD_BUILD_HOST=regtrack
mkdir -p "$CCACHE_DIR"

# the worker's configure step (worker/kernel.c kernel_configure)
configure() {
	local out=$1
	mkdir -p "$out"
	timeout 600 make -s -C "$tree" O="$out" ARCH=x86_64 CC="ccache gcc" tinyconfig >&2
	(cd "$tree" && timeout 600 scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" \
		"$top/worker/kconfig/tiny-mm.config" "$top/worker/kconfig/x86_64-tiny-mm.config" >/dev/null)
	timeout 600 make -s -C "$tree" O="$out" ARCH=x86_64 CC="ccache gcc" olddefconfig >&2
}

# seconds of wall time of the worker's build command
build() {
	local out=$1 t0 t1
	t0=$(date +%s.%N)
	timeout 3600 make -s -C "$tree" O="$out" ARCH=x86_64 CC="ccache gcc" -j"$jobs" bzImage \
		>"$out/bench-build.log" 2>&1 || { tail -20 "$out/bench-build.log" >&2; return 1; }
	t1=$(date +%s.%N)
	/usr/bin/python3 -c "print('%.2f' % ($t1 - $t0))"
}

configure "$scratch/build"
echo "kernel_step: full build (-j$jobs)" >&2
full=$(build "$scratch/build")
echo "kernel_step: full ${full}s" >&2

# one file changed: written as a new file, so the hard-linked source keeps its content
f=$tree/mm/mmap.c
{ cat "$f"; printf '\nint regtrack_bench_step __attribute__((used)) = 1;\n'; } >"$f.new"
mv "$f.new" "$f"
echo "kernel_step: incremental build after changing mm/mmap.c" >&2
inc=$(build "$scratch/build")
echo "kernel_step: incremental ${inc}s" >&2

configure "$scratch/build2"
echo "kernel_step: the changed tree in a new build dir, warm ccache" >&2
fresh=$(build "$scratch/build2")
echo "kernel_step: new build dir ${fresh}s" >&2
stats=$(ccache -s 2>/dev/null | grep -Ei '^ *(hits|misses)|cache hit' | tr -s ' \n' ' ' || true)

/usr/bin/python3 - "$full" "$inc" "$fresh" "$jobs" "$stats" <<'EOF'
import json, sys
full, inc, fresh = map(float, sys.argv[1:4])
print(json.dumps({
    "full_s": full, "incremental_s": inc, "fresh_dir_s": fresh,
    "note": "x86_64-tiny-mm bzImage, make -j%s, CC='ccache gcc' as worker/kernel.c; one .c "
	    "changed (mm/mmap.c); a new build dir with the warm ccache: %.1f s (%.2f of full); "
	    "ccache: %s" % (sys.argv[4], fresh, fresh / full, sys.argv[5].strip())}))
EOF
