#!/usr/bin/env bash
# tests/kernel/run.sh — the worker's execution engine on a real Linux kernel.
#
# Through job_execute() (driver: tests/kernel/exec_job.c), on the git tree
# that deploy/make-kernel-tree makes from Debian's linux-source-6.1:
#   1. host mode: small-allocs on the running kernel, once alone and once
#      under the host's perf (monitors perf-profile,perf-stat);
#   2. x86_64: a commit that does not compile -> build-failed with make's
#      error in the log tail; a bad case param -> run-failed; an /init the
#      kernel cannot run -> boot-failed;
#   3. x86_64-tiny-mm at the base commit, booted twice in qemu under icount,
#      the second time profiled (monitors perf-profile,perf-stat,
#      a static perf of the tree's tools/perf in the initramfs; the folded
#      stacks must hold this build's do_mmap and munmap frames, and the
#      case's user frames named: main, libc's __mmap64 and __munmap), once
#      wall-clock, which probes KVM and falls back to TCG (where KVM works,
#      a second wall-clock boot as a job names it: accel kvm, 2 vCPUs pinned,
#      one NUMA node, checked for -cpu host; where it does not, the tier
#      prints "NOT RUN: the KVM check did not run" with qemu_kvm_usable's
#      reason, counted as not run, never as passed), and once more by
#      `regtrack-worker reproduce` in the kernel tree (the median
#      of its 3 icount runs within 2 % of the job's throughput);
#   4. arm64-tiny-mm cross-built and booted twice in qemu-system-aarch64 -M
#      virt under icount, the second time profiled as on x86_64;
#   5. on both arches, the other four cases (execl, proc-vs-map, page-fault,
#      exit-teardown) booted once each under icount, their key metric checked,
#      and the tool cases stress-ng, hackbench, sysbench and fio (
#      Debian's stress-ng, rt-tests and sysbench of the arch with their
#      libraries in the initramfs, and fio statically built from Debian's
#      source package, deploy/fetch-tools) once each, their parsed metrics
#      (LKP's stress-ng.brk.ops, .ops_per_sec, hackbench.throughput, ...;
#      sysbench.events_per_sec, .total_events, ...; fio.read_bw_MBps,
#      .read_iops, .write_bw_MBps, ...) positive and finite and the tool's
#      version recorded in the run;
#      and perf-bench (perf bench sched pipe by the tree's static perf, the
#      profiled boots' build: LKP's perf-bench-sched-pipe.ops_per_sec, ...).
#      exit-teardown runs on base + a patch (an A/B request's head job: git
#      am of an mbox, the sha and the series' patch-id recorded), which
#      replaces its base boot; on x86_64 an mbox that does not apply fails
#      with git's reason (no build, no boot);
#   6. those guest runs posted to a real server as result documents and read
#      back (tests/kernel/store_guest.py; seconds, no boot).
#   7. x86_64: a qemu VM as the bare-metal host (tests/kernel/kexec_host.sh):
#      regtrack-worker on Debian's stock kernel leases three jobs from a real
#      server and kexecs their kernels (fetched from the image store): the
#      tiny test kernel runs the case and the worker, back after the reboot,
#      completes the job ok with its metrics; a kernel that panics and one
#      that hangs (the server's power_cycle: QMP system_reset) end boot-failed.
#   Identical images (x86_64, one build, no boot): a relink
#   (mm/mmap.c touched) of a Documentation/-only commit on the base gives
#   the base's image hash (the badparam build's, itself a relink after the
#   broken build), so the worker takes it as same-image and boots nothing.
#   Cost: that one build, printed as its phase time (149 s at load 25 on
#   2 cores, 2026-12-02; most of it make walking the tree).
# Each good run must carry positive, finite small-allocs metrics, its mode
# and accel, the kernel release, and the final .config. No timing
# assertions; every phase's duration is printed.
#
# Builds run one after the other (2 cores). The kernel tree, mirrors, build
# dirs and ccache live under $REGTRACK_CACHE (default: the user's cache,
# ~/.cache/regtrack/kernel-tier, outside the checkout so that a fresh clone
# on the same machine, as CI makes, reuses them; one run at a time holds it,
# under flock), so a second run rebuilds nothing: measured here,
# cold ~4 min (x86_64) + ~5.5 min (arm64), warm ~1.5 min for everything;
# the static perf builds add ~1.5 min cold per arch (0 warm: cached under
# WORK/perf by the tools/ tree id).
#
# Env: REGTRACK_EXEC_JOB  the exec_job binary (default: built here)
#      REGTRACK_CACHE     cache dir (default: ${XDG_CACHE_HOME:-~/.cache}/regtrack/kernel-tier)
#      KERNEL_TEST_ARCHES "x86_64 aarch64" (default both)
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
CACHE=${REGTRACK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/regtrack/kernel-tier}
ARCHES=${KERNEL_TEST_ARCHES:-x86_64 aarch64}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
# two checkouts running the tier at once would build in the same dirs
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
	echo "kernel tests: waiting for another run that holds $CACHE/.lock" >&2
	flock 9
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
notrun=0
fail=0
ok()  { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

t_start=$(date +%s)
if [[ -z "${REGTRACK_EXEC_JOB:-}" ]]; then
	make -s B=build/kernel-test BIN=build/kernel-test/bin build/kernel-test/tests/kernel/exec_job cases >&2 || exit 1
	REGTRACK_EXEC_JOB=$ROOT/build/kernel-test/tests/kernel/exec_job
fi
for a in $ARCHES; do
	for f in init small-allocs execl proc-vs-map page-fault exit-teardown stress-ng hackbench sysbench fio perf-bench; do
		[[ -x bin/cases/$a/$f ]] || { echo "kernel tests: bin/cases/$a/$f missing (make cases)" >&2; exit 1; }
	done
done
# the tool cases' tools (Debian's packages of each arch, fio built from
# Debian's source: ~2 min per arch cold; cached beside the tier's kernels,
# so that a fresh clone does not build fio again: seconds when nothing
# changed)
t0=$(date +%s)
# shellcheck disable=SC2086
REGTRACK_TOOLS_CACHE=${REGTRACK_TOOLS_CACHE:-$CACHE/tools} deploy/fetch-tools $ARCHES || { echo "kernel tests: deploy/fetch-tools failed" >&2; exit 1; }
echo "tools: $(cat bin/cases/tools/*/{stress-ng,hackbench,sysbench,fio}/VERSION | sort -u | tr '\n' ' ')($(( $(date +%s) - t0 )) s)"

t0=$(date +%s)
BASE=$(deploy/make-kernel-tree "$CACHE/linux") || { echo "kernel tests: make-kernel-tree failed" >&2; exit 1; }
echo "kernel tree: $CACHE/linux at $BASE ($(( $(date +%s) - t0 )) s)"

# one_file_commit BRANCH PATH TEXT SUBJECT DATE [NAME EMAIL]: BRANCH, one
# commit on BASE that appends TEXT to PATH, made once with git plumbing and a
# temporary index (no checkout of the tree: a second, not the minutes a
# worktree of 80,000 files takes on a cold cache); fixed identity and dates,
# so the same commit id every time.
one_file_commit() {
	local branch=$1 path=$2 text=$3 subject=$4 date=$5 name=${6:-regtrack} email=${7:-regtrack@localhost}
	local g=(git -C "$CACHE/linux") idx=$TMP/$1.index blob tree c
	"${g[@]}" rev-parse -q --verify "refs/heads/$branch" >/dev/null && return 0
	blob=$( { "${g[@]}" cat-file blob "$BASE:$path" && printf '%s' "$text"; } |
		"${g[@]}" hash-object -w --stdin) &&
	GIT_INDEX_FILE=$idx "${g[@]}" read-tree "$BASE" &&
	GIT_INDEX_FILE=$idx "${g[@]}" update-index --cacheinfo "100644,$blob,$path" &&
	tree=$(GIT_INDEX_FILE=$idx "${g[@]}" write-tree) &&
	c=$(GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_COMMITTER_NAME=$name \
		GIT_COMMITTER_EMAIL=$email GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		"${g[@]}" commit-tree "$tree" -p "$BASE" -m "$subject") &&
	"${g[@]}" branch "$branch" "$c"
}
# the build-failed path: mm/mmap.c does not compile
one_file_commit regtrack-test-broken mm/mmap.c $'\n#error "regtrack test: deliberately broken build"\n' \
	"mm: break the build (regtrack test)" 2023-01-02T00:00:00Z
# the identical-image checks: a Documentation/-only commit
one_file_commit regtrack-test-docs Documentation/admin-guide/README.rst \
	$'\nregtrack test: a documentation-only change.\n' \
	"Documentation: a note (regtrack test)" 2023-01-03T00:00:00Z
# A patch on BASE as a mailing list carries it (README only: the build has
# nothing to redo, so the patched boot costs no compile); and the same mbox
# with its context changed, which git am cannot apply.
one_file_commit regtrack-test-patch README $'\nregtrack: a line from the A/B test of a patch.\n' \
	"README: a line from regtrack's A/B test" 2023-01-03T00:00:00Z "Patch Author" author@example.org
git -C "$CACHE/linux" format-patch --stdout -1 regtrack-test-patch > "$TMP/patch.mbox"
sed '/^@@/,/^-- $/ s/^ \(.\)/ X\1/' "$TMP/patch.mbox" > "$TMP/bad.mbox"
PATCH_ID=$(git patch-id --stable < "$TMP/patch.mbox" | cut -d' ' -f1)

WORK=$CACHE/worker
common=(--work-dir "$WORK" --cases-dir "$ROOT/bin/cases" --ccache-dir "$CACHE/ccache"
	--url "$CACHE/linux" --tree linux --compiler gcc-12 --jobs 2 --testcase small-allocs)

# exec LABEL ARGS... : runs exec_job, JSON to $TMP/LABEL.json, stderr (phase times) shown
exec_job() {
	local label=$1; shift
	echo "== $label"
	"$REGTRACK_EXEC_JOB" "$@" > "$TMP/$label.json" 2> "$TMP/$label.err"
	rc=$?
	sed 's/^/   /' "$TMP/$label.err"
}

# check_runs LABEL N MODE ACCEL RELEASE_PREFIX : the outcome is ok with N good runs
check_runs() {
	local label=$1 n=$2 mode=$3 accel=$4 rel=$5 j=$TMP/$1.json
	if [[ $rc -ne 0 ]]; then bad "$label: exec_job exit $rc"; return; fi
	[[ $(jq -r .status "$j") == ok ]] && ok "$label: status ok" ||
		{ bad "$label: status $(jq -r .status "$j")"; jq -r .log_tail "$j" | tail -30 >&2; return; }
	[[ $(jq '.runs | length' "$j") == "$n" ]] && ok "$label: $n runs" || bad "$label: $(jq '.runs | length' "$j") runs, want $n"
	# every metric of every run: a non-empty array of positive finite numbers,
	# and small-allocs.throughput among them (these runs have one task: no
	# small-allocs.median, which the case prints only with two or more)
	if jq -e --arg mode "$mode" --arg accel "$accel" --arg rel "$rel" '
		all(.runs[];
		    (.metrics | has("small-allocs.throughput") and (has("small-allocs.median") | not)) and
		    all(.metrics[]; length >= 1 and all(.[]; type == "number" and . > 0 and . < 1e300)) and
		    .mode == $mode and .accel == $accel and (.kernel_release | startswith($rel)) and
		    (.started_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$")) and
		    .duration_s > 0)' "$j" >/dev/null; then
		ok "$label: metrics positive and finite, mode $mode, accel $accel, release $rel*"
	else
		bad "$label: runs do not match"; jq -c .runs "$j" >&2
	fi
	jq -r '.runs[] | "   run: throughput \(.metrics["small-allocs.throughput"][0]) KB/s, \(.mode)/\(.accel), kernel \(.kernel_release), \(.duration_s * 10 | floor / 10) s"' "$j"
}

# check_tool LABEL TOOL METRICS VERSION_PREFIX : a tool case's run
# has each of METRICS (LKP's names, by the tool's parser) with positive,
# finite values, and the version the tool printed in the guest
check_tool() {
	local label=$1 tool=$2 names=$3 vprefix=$4 j=$TMP/$1.json m v
	for m in $names; do
		jq -e --arg k "$m" '.runs[0].metrics[$k] | length >= 1 and
			all(.[]; type == "number" and . > 0 and . < 1e300)' "$j" >/dev/null &&
			ok "$label: $m $(jq -c --arg k "$m" '.runs[0].metrics[$k]' "$j")" ||
			bad "$label: no positive finite $m (have $(jq -c '.runs[0].metrics | keys' "$j"))"
	done
	v=$(jq -r --arg t "$tool" '.runs[0].tools[$t] // ""' "$j")
	[[ $v == "$vprefix"* ]] && ok "$label: tools.$tool '$v'" ||
		bad "$label: tools.$tool '$v', want '$vprefix...'"
}

# check_kernel_outcome LABEL : the final .config and the serial log came back
check_kernel_outcome() {
	local j=$TMP/$1.json
	[[ $(jq .kconfig_lines "$j") -gt 500 ]] && ok "$1: final .config kept ($(jq .kconfig_lines "$j") lines)" ||
		bad "$1: .config missing"
	jq -r .log_tail "$j" | grep -q '^==== regtrack-result-end exit=0 ' && ok "$1: serial log tail has the result block" ||
		bad "$1: serial log tail lacks the result block"
}

# check_profile LABEL [BASE] : one good profiled run (monitors perf-profile,perf-stat)
# whose folded stacks hold kernel frames of the booted build (the mmap and
# munmap paths small-allocs spends its time in), with the perf-profile and
# perf-stat metrics beside the case's; prints what the profile cost (against
# BASE, the same job unprofiled)
check_profile() {
	local label=$1 j=$TMP/$1.json
	if [[ $rc -ne 0 ]]; then bad "$label: exec_job exit $rc"; return; fi
	[[ $(jq -r .status "$j") == ok && $(jq '.runs | length' "$j") == 1 ]] && ok "$label: status ok, 1 run" ||
		{ bad "$label: status $(jq -r .status "$j")"; jq -r .log_tail "$j" | tail -30 >&2; return; }
	jq -e '.runs[0] | (.monitors == ["perf-profile", "perf-stat"]) and .profile.event == "cpu-clock" and
		.profile.samples > 0 and (.metrics["small-allocs.throughput"][0] > 0)' "$j" >/dev/null &&
		ok "$label: monitors, profile of $(jq .runs[0].profile.samples "$j") cpu-clock samples, throughput $(jq '.runs[0].metrics["small-allocs.throughput"][0]' "$j")" ||
		bad "$label: no profile: $(jq -c '.runs[0] | {monitors, profile: (.profile | del(.folded)?)}' "$j")"
	# kernel frames named from this build's kallsyms: the mmap and munmap paths
	local frames
	frames=$(jq -r '.runs[0].profile.folded // ""' "$j" | tr ';' '\n' | sed 's/ [0-9]*$//' |
		grep -E '^(do_mmap|mmap_region|vm_mmap_pgoff|exit_mmap|__do_munmap|do_munmap|__vm_munmap|do_mas_munmap|do_mas_align_munmap|unmap_region)$' | sort -u | tr '\n' ' ')
	[[ $frames == *do_mmap* && $frames == *munmap* ]] && ok "$label: kernel frames of the build in the folded stacks: $frames" ||
		bad "$label: folded stacks lack do_mmap / *munmap frames (have: $frames)"
	# user frames of the case binary named (in a guest from the worker's
	# table of its ELF symbols, /regtrack/usersyms; on the host by perf):
	# its main and libc's syscall wrappers it enters the kernel through, and
	# the share of its samples whose stack names one of them
	local user named total
	user=$(jq -r '.runs[0].profile.folded // ""' "$j" | grep '^small-allocs;' | sed 's/ [0-9]*$//' | tr ';' '\n' |
		grep -E '^(main|task|case_tasks_start|do_round|__mmap64|__munmap|mmap64|munmap|__libc_start_call_main)$' |
		sort -u | tr '\n' ' ')
	read -r named total < <(jq -r '.runs[0].profile.folded // ""' "$j" | awk '/^small-allocs;/ {
		n = $NF; t += n; if ($0 ~ /;(main|task|do_round|__mmap64|__munmap)( |;)/) k += n }
		END { print k + 0, t + 0 }')
	[[ " $user" == *" main "* && $user == *__munmap* && $user == *__mmap64* ]] &&
		ok "$label: user frames of small-allocs named: $user($named of $total small-allocs samples name one)" ||
		bad "$label: folded stacks lack small-allocs' user frames main, __mmap64, __munmap (have: $user)"
	# symbols of the mmap/munmap system-call path are children metrics, each a
	# percentage: on the host the profile is system-wide and do_mmap alone can
	# sit near the 0.5 % floor (0.35-0.7 % of a quiet 2-core VM's samples), where
	# it is a metric in some runs and not in others
	local path='^perf-profile\.children\.cycles-pp\.(do_mmap|vm_mmap_pgoff|__vm_munmap|do_vmi_munmap|__x64_sys_munmap|__x64_sys_mmap|do_syscall_64)$'
	jq -e --arg path "$path" '.runs[0].metrics | (keys | map(select(startswith("perf-profile.children.cycles-pp."))) | length > 5) and
		([to_entries[] | select(.key | test($path)) | .value[0]] | length > 0 and all(. > 0 and . <= 100)) and
		(.["perf-stat.total.cpu-clock"][0] > 0)' "$j" >/dev/null &&
		ok "$label: perf-profile metrics ($(jq -r --arg path "$path" '[.runs[0].metrics | to_entries[] | select(.key | test($path)) | "\(.key | sub("perf-profile.children.cycles-pp."; "")) \(.value[0])"] | join(", ")' "$j") % children) and perf-stat.total.cpu-clock $(jq '.runs[0].metrics["perf-stat.total.cpu-clock"][0]' "$j") ms" ||
		bad "$label: perf-profile / perf-stat metrics missing: $(jq -c '.runs[0].metrics | keys | map(select(startswith("perf"))) | .[:12]' "$j")"
	jq -r '.phases[] | select(.phase == "perf") | "   cost: static perf \(.seconds * 10 | floor / 10) s (\(.message))"' "$j"
	[[ -n ${2:-} && -f $TMP/$2.json ]] && jq -rn --slurpfile a "$TMP/$2.json" --slurpfile b "$j" '
		"   cost: boot \($a[0].runs[0].duration_s * 10 | floor / 10) s unprofiled, \($b[0].runs[0].duration_s * 10 | floor / 10) s profiled; icount throughput with/without perf: \(($b[0].runs[0].metrics["small-allocs.throughput"][0] / $a[0].runs[0].metrics["small-allocs.throughput"][0] * 1000 | floor) / 1000)"'
}

# --- 1. host mode ---------------------------------------------------------
host_arch=$(uname -m)
# /init must refuse to act outside an initramfs (it would mount over /dev
# and reboot the machine)
out=$(bin/cases/$host_arch/init 2>&1); rc=$?
[[ $rc -eq 2 && $out == *"not PID 1"* ]] && ok "init refuses to run as a host process" ||
	bad "init as a host process: rc $rc"
exec_job host "${common[@]}" --arch "$host_arch" --kconfig host --repeat 1 \
	--params '{"nr_task": 1, "runtime": 0.2}'
check_runs host 1 wallclock host "$(uname -r)"
# the second host run profiled by the host's perf
if command -v perf >/dev/null; then
	exec_job host-profile "${common[@]}" --arch "$host_arch" --kconfig host --repeat 1 \
		--params '{"nr_task": 1, "runtime": 0.2}' --monitors perf-profile,perf-stat
	check_profile host-profile host
else
	bad "host-profile: no perf on the host (Debian: linux-perf)"
fi

exec_job host-icount "${common[@]}" --arch "$host_arch" --kconfig host --repeat 1 \
	--params '{"nr_task": 1, "runtime": 0.2, "measure": "icount"}'
[[ $rc -eq 0 && $(jq -r .status "$TMP/host-icount.json") == run-failed ]] &&
	ok "host-icount: run-failed (host mode cannot count instructions)" || bad "host-icount: rc $rc"

exec_job bad-kconfig "${common[@]}" --arch x86_64 --kconfig arm64-tiny-mm --commit "$BASE"
[[ $rc -eq 1 ]] && grep -q 'invalid_job' "$TMP/bad-kconfig.err" && ok "bad-kconfig: invalid_job" ||
	bad "bad-kconfig: rc $rc"

exec_job unknown-commit "${common[@]}" --arch x86_64 --kconfig x86_64-tiny-mm --commit no-such-branch
[[ $rc -eq 1 ]] && grep -q "not_found: commit 'no-such-branch' not found" "$TMP/unknown-commit.err" &&
	ok "unknown-commit: not_found (commit)" ||
	bad "unknown-commit: rc $rc"

icount='{"nr_task": 1, "iterations": 20, "measure": "icount"}'
guest_specs=()	# step 5's good guest runs, for step 6
for arch in $ARCHES; do
	case $arch in
	x86_64) kc=x86_64-tiny-mm ;;
	aarch64) kc=arm64-tiny-mm ;;
	*) bad "no kconfig for $arch"; continue ;;
	esac
	t0=$(date +%s)
	if [[ $arch == x86_64 ]]; then
		# --- 2. failure paths (the base build afterwards is incremental) ---
		exec_job x86_64-broken "${common[@]}" --arch x86_64 --kconfig $kc --commit regtrack-test-broken \
			--params "$icount"
		[[ $rc -eq 0 && $(jq -r .status "$TMP/x86_64-broken.json") == build-failed ]] &&
			ok "x86_64-broken: build-failed" || bad "x86_64-broken: rc $rc status $(jq -r .status "$TMP/x86_64-broken.json" 2>/dev/null)"
		jq -r .log_tail "$TMP/x86_64-broken.json" | grep -q 'deliberately broken build' &&
			ok "x86_64-broken: compiler error in the log tail" || bad "x86_64-broken: log tail lacks the error"

		exec_job x86_64-badparam "${common[@]}" --arch x86_64 --kconfig $kc --commit "$BASE" \
			--params '{"nr_maps": 0, "measure": "icount"}'
		[[ $rc -eq 0 && $(jq -r .status "$TMP/x86_64-badparam.json") == run-failed ]] &&
			ok "x86_64-badparam: run-failed" || bad "x86_64-badparam: rc $rc"
		jq -r .log_tail "$TMP/x86_64-badparam.json" | grep -q '^==== regtrack-result-end exit=2 ' &&
			ok "x86_64-badparam: case exit status 2 in the serial log" || bad "x86_64-badparam: no exit=2 in the log"

		# --- identical images: a relinked Documentation/-only commit has the base's hash (no boot) ---
		img=$(jq -r .image_sha256 "$TMP/x86_64-badparam.json")
		[[ $img =~ ^[0-9a-f]{64}$ ]] && ok "x86_64-badparam: image sha256 ${img:0:16}…" ||
			bad "x86_64-badparam: no image hash ('$img')"
		# one build for both (a make of the tree is minutes on a busy box): mm/mmap.c
		# touched, so vmlinux is relinked, and the Documentation/-only commit checked out
		touch "$WORK/src/linux-x86_64/mm/mmap.c"
		exec_job x86_64-docs "${common[@]}" --arch x86_64 --kconfig $kc --commit regtrack-test-docs \
			--params "$icount" --skip-image "$img:$BASE"
		j=$TMP/x86_64-docs.json
		if [[ $rc -eq 0 && $(jq -r .status "$j") == same-image && $(jq -r .image_sha256 "$j") == "$img" &&
		      $(jq -r .same_image_as "$j") == "$BASE" && $(jq '.runs | length' "$j") == 0 ]]; then
			ok "x86_64-docs: relinked, the Documentation/-only commit has the base's image (same-image, no boot)"
		else
			bad "x86_64-docs: status $(jq -r .status "$j" 2>/dev/null), image $(jq -r .image_sha256 "$j" 2>/dev/null), want $img"
		fi

		# an /init the kernel cannot execute: it panics (panic=-1 reboots,
		# -no-reboot ends qemu) before our first line -> boot-failed
		mkdir -p "$TMP/badinit/x86_64"
		cp bin/cases/x86_64/small-allocs "$TMP/badinit/x86_64/"
		printf 'not an executable\n' > "$TMP/badinit/x86_64/init"
		REGTRACK_KCONFIG_DIR=$ROOT/worker/kconfig exec_job x86_64-badinit "${common[@]}" --cases-dir "$TMP/badinit" --arch x86_64 --kconfig $kc \
			--commit "$BASE" --params "$icount"
		[[ $rc -eq 0 && $(jq -r .status "$TMP/x86_64-badinit.json") == boot-failed ]] &&
			ok "x86_64-badinit: boot-failed" || bad "x86_64-badinit: rc $rc"
		jq -r .log_tail "$TMP/x86_64-badinit.json" | grep -q 'Kernel panic' &&
			ok "x86_64-badinit: the panic is in the log tail" || bad "x86_64-badinit: no panic in the log"
	fi
	if [[ $arch == x86_64 ]]; then
		# an mbox that does not apply: git's reason, before any build
		exec_job x86_64-badpatch "${common[@]}" --arch x86_64 --kconfig $kc --commit "$BASE" \
			--patches "$TMP/bad.mbox"
		[[ $rc -eq 0 && $(jq -r .status "$TMP/x86_64-badpatch.json") == run-failed ]] &&
			ok "x86_64-badpatch: run-failed" || bad "x86_64-badpatch: rc $rc, status $(jq -r .status "$TMP/x86_64-badpatch.json" 2>/dev/null)"
		why=$(jq -r .log_tail "$TMP/x86_64-badpatch.json" | grep '^apply-failed: ')
		[[ $why == *"git am failed: "*README* ]] && ok "x86_64-badpatch: $why" ||
			bad "x86_64-badpatch: no git reason in the log tail: $why"
		! grep -q '^exec_job: build ' "$TMP/x86_64-badpatch.err" && ok "x86_64-badpatch: nothing built" ||
			bad "x86_64-badpatch: it built"
	fi
	# --- 3./4. good runs under icount --------------------------------------
	exec_job $arch-icount "${common[@]}" --arch $arch --kconfig $kc --commit "$BASE" --repeat 1 \
		--params "$icount"
	check_runs $arch-icount 1 icount tcg 6.1.
	check_kernel_outcome $arch-icount
	# --- `regtrack-worker reproduce`: a developer's own run of the same
	# data point, inside the kernel tree, no server: the same throughput as the
	# stored run's within icount's spread (0.2 %); the build dir is the tier's
	if [[ $arch == x86_64 && ! -x ${REGTRACK_BIN:-}/regtrack-worker ]]; then
		bad "x86_64-reproduce: no REGTRACK_BIN/regtrack-worker (make check-kernel sets it)"
	elif [[ $arch == x86_64 ]]; then
		echo "== x86_64-reproduce"
		(cd "$CACHE/linux" && timeout 1800 "$REGTRACK_BIN/regtrack-worker" reproduce \
			--kconfig $kc --testcase small-allocs --params nr_task=1,iterations=20 \
			--measure icount --commit "$BASE" --repeat 3 --work-dir "$WORK" \
			--cases-dir "$ROOT/bin/cases" --jobs 2 --json) > "$TMP/x86_64-reproduce.json" \
			2> "$TMP/x86_64-reproduce.err"
		rc=$?
		sed 's/^/   /' "$TMP/x86_64-reproduce.err" | tail -8
		stored=$(jq -r '.runs[0].metrics["small-allocs.throughput"][0]' "$TMP/x86_64-icount.json")
		again=$(jq -r '[.runs[].metrics["small-allocs.throughput"][0]] | select(length == 3) | sort | .[1]' \
			"$TMP/x86_64-reproduce.json" 2>/dev/null)
		if [[ $rc -eq 0 && -n $again ]] &&
			jq -en --argjson a "$stored" --argjson b "$again" '(($b / $a) - 1) | (if . < 0 then -. else . end) < 0.02' >/dev/null; then
			ok "x86_64-reproduce: median of 3 runs $again vs the job's $stored (within 2 %)"
		else
			bad "x86_64-reproduce: rc $rc, throughput '${again:-none}' vs the job's $stored"
		fi
	fi
	# --- 3./4. the same boot profiled: it replaces the second
	# unprofiled icount boot this step had, so the tier boots no more; it
	# adds the static perf build (once per arch and tools/ tree, cached)
	exec_job $arch-profile "${common[@]}" --arch $arch --kconfig $kc --commit "$BASE" --repeat 1 \
		--params "$icount" --monitors perf-profile,perf-stat
	check_profile $arch-profile $arch-icount
	check_kernel_outcome $arch-profile
	if [[ $arch == x86_64 && $host_arch == x86_64 ]]; then
		exec_job x86_64-wallclock "${common[@]}" --arch x86_64 --kconfig $kc --commit "$BASE" --repeat 1 \
			--params '{"nr_task": 1, "iterations": 20}'
		accel=$(jq -r '.runs[0].accel // "none"' "$TMP/x86_64-wallclock.json")
		[[ $accel == kvm || $accel == tcg ]] || accel=kvm
		check_runs x86_64-wallclock 1 wallclock "$accel" 6.1.
		grep -q 'probing kvm' "$TMP/x86_64-wallclock.err" && ok "x86_64-wallclock: kvm probed, ran on $accel" ||
			bad "x86_64-wallclock: no kvm probe"
		# --- the KVM check: where qemu_kvm_usable says yes, a boot in
		# the shape a job names (accel kvm, 2 vCPUs pinned, one NUMA node);
		# where it says no, the tier says so and counts it neither way
		if [[ $accel == kvm ]]; then
			exec_job x86_64-kvm "${common[@]}" --arch x86_64 --kconfig $kc --commit "$BASE" --repeat 1 \
				--params '{"nr_task": 1, "iterations": 20, "accel": "kvm", "vcpus": 2, "pin": true, "numa": 1}'
			check_runs x86_64-kvm 1 wallclock kvm 6.1.
			jq -e '.runs[0].guest | .cpu_model == "host" and .nr_cpus == 2 and (.pinned | length) == 2
				and (.numa | length) == 1' "$TMP/x86_64-kvm.json" >/dev/null &&
				ok "x86_64-kvm: -cpu host, 2 vCPUs pinned to $(jq -c .runs[0].guest.pinned "$TMP/x86_64-kvm.json"), 1 NUMA node" ||
				bad "x86_64-kvm: guest $(jq -c .runs[0].guest "$TMP/x86_64-kvm.json")"
		else
			why=$(grep -o 'boot 1/1 (tcg, wallclock: .*' "$TMP/x86_64-wallclock.err" | head -1 | sed 's/)$//')
			notrun=$((notrun + 1))
			echo "NOT RUN: the KVM check did not run: qemu_kvm_usable said no (${why#*wallclock: })"
		fi
	fi
	# --- 5. the other four cases inside the guest, one icount boot each ----
	for spec in 'execl|execl.lps|{"runtime": 0.3}' \
		    'proc-vs-map|proc-vs-map.median_ms|{"nsamples": 2, "duration": 0.2, "region_mb": 8}' \
		    'page-fault|page-fault.ops_per_sec|{"size_mb": 16, "runtime": 0.3}' \
		    'exit-teardown|exit-teardown.teardown_ms|{"size": 8, "iterations": 2}' \
		    'stress-ng|stress-ng.brk.ops_per_sec|{"stressor": "brk", "nr_threads": 1, "timeout": "1s"}' \
		    'hackbench|hackbench.throughput|{"mode": "threads", "ipc": "pipe", "loops": 20, "iterations": 2}' \
		    'sysbench|sysbench.events_per_sec|{"test": "cpu", "nr_threads": 1, "time": "1s"}' \
		    'fio|fio.read_iops|{"rw": "randrw", "bs": "4k", "size_mb": 8, "nr_task": 1, "runtime": "1s"}' \
		    'perf-bench|perf-bench-sched-pipe.ops_per_sec|{"bench": "sched-pipe", "loops": 2000}'; do
		IFS='|' read -r tc key params <<<"$spec"
		params=$(jq -c '. + {"measure": "icount"}' <<<"$params")
		# the last case's boot is of base + the patch: an A/B request's head job
		patch=()
		[[ $tc == exit-teardown ]] && patch=(--patches "$TMP/patch.mbox")
		exec_job $arch-$tc "${common[@]}" --arch $arch --kconfig $kc --commit "$BASE" --repeat 1 \
			--testcase "$tc" --params "$params" "${patch[@]}"
		commit=$BASE
		if [[ ${#patch[@]} -gt 0 ]]; then
			commit=$(jq -r '.commit // ""' "$TMP/$arch-$tc.json")
			[[ ${#commit} -eq 40 && $commit != "$BASE" ]] &&
				ok "$arch-$tc: patch applied with git am on base: $commit" ||
				{ bad "$arch-$tc: no patched commit ($commit)"; commit=$BASE; }
			[[ $(jq -r '.patch_id // ""' "$TMP/$arch-$tc.json") == "$PATCH_ID" ]] &&
				ok "$arch-$tc: patch-id --stable $PATCH_ID, as git computes it from the mbox" ||
				bad "$arch-$tc: patch-id $(jq -r .patch_id "$TMP/$arch-$tc.json"), want $PATCH_ID"
		fi
		if [[ $rc -eq 0 ]] && jq -e --arg k "$key" '.status == "ok" and (.runs | length) == 1 and
			(.runs[0].metrics[$k] | length >= 1 and all(.[]; type == "number" and . > 0 and . < 1e300))' \
			"$TMP/$arch-$tc.json" >/dev/null; then
			ok "$arch-$tc: $key $(jq -c --arg k "$key" '.runs[0].metrics[$k]' "$TMP/$arch-$tc.json") in the guest"
			guest_specs+=("$TMP/$arch-$tc.json|$arch|$kc|$tc|$commit|$params")
			case $tc in
			stress-ng)
				check_tool $arch-$tc stress-ng \
					'stress-ng.brk.ops stress-ng.brk.ops_per_sec' 'stress-ng, version ' ;;
			hackbench)
				check_tool $arch-$tc hackbench 'hackbench.throughput hackbench.throughput_avg
					hackbench.iteration_throughput' 'hackbench V ' ;;
			sysbench)
				check_tool $arch-$tc sysbench 'sysbench.events_per_sec sysbench.total_events
					sysbench.total_time sysbench.latency_avg_ms' 'sysbench ' ;;
			fio)
				check_tool $arch-$tc fio 'fio.read_bw_MBps fio.read_iops
					fio.read_clat_mean_ns fio.write_bw_MBps fio.write_iops
					fio.write_clat_mean_ns fio.workload' 'fio-3.' ;;
			perf-bench)
				check_tool $arch-$tc perf 'perf-bench-sched-pipe.ops_per_sec
					perf-bench-sched-pipe.usecs_per_op perf-bench-sched-pipe.total_time_sec' \
					'perf version ' ;;
			esac
		else
			bad "$arch-$tc: status $(jq -r .status "$TMP/$arch-$tc.json" 2>/dev/null) (rc $rc)"
			jq -r .log_tail "$TMP/$arch-$tc.json" 2>/dev/null | tail -15 >&2
		fi
	done
	echo "   $arch total: $(( $(date +%s) - t0 )) s"
done

# --- 6. step 5's guest runs stored through a real server (seconds, no boot) --
# a missing server is a failure of the tier, not a skip
if [[ ! -x ${REGTRACK_BIN:-}/regtrack-server ]]; then
	bad "guest runs not stored: no REGTRACK_BIN/regtrack-server (make check-kernel sets it)"
elif [[ ${#guest_specs[@]} -eq 0 ]]; then
	bad "guest runs not stored: step 5 produced none"
else
	echo "== store the guest runs (tests/kernel/store_guest.py)"
	/usr/bin/python3 tests/kernel/store_guest.py "${guest_specs[@]}" 2>&1 | sed 's/^/   /'
	[[ ${PIPESTATUS[0]} -eq 0 ]] && ok "guest runs of ${#guest_specs[@]} case(s) stored and read back" ||
		bad "guest runs not stored as sent"
fi

# --- 7. the VM as a bare-metal host: the worker's kexec cycle (x86_64; README "Bare metal")
# Debian's stock kernel (deploy/fetch-kexec-host, cached by package versions)
# boots a root with regtrack-worker (capability kexec-x86_64), its spool on an
# ext4 disk, user networking to a real server; three jobs name kernels the tier
# uploaded to the server's image store: the tiny test kernel (virtio-blk built
# in: the case runs, its result comes back through the reboot, the worker
# completes the job ok with its metrics), one that panics and one that hangs
# (the server's power_cycle: QMP system_reset), both boot-failed
# (tests/kernel/kexec_host.sh, tests/kernel/kexec_worker.py). The test kernels
# are built from the worker's x86_64 source checkout into CACHE/kexec-host/kernels.
# With the kernels cached it is one VM session of a few minutes on a quiet
# 2-core box (Debian's boots under TCG; the hang case's lease, sized from the
# ok cycle by kexec_worker.py); cold, the two test kernel builds come first.
# REGTRACK_KEXEC_TIER=0 leaves it out: counted NOT RUN, never passed.
if [[ " $ARCHES " == *" x86_64 "* && ${REGTRACK_KEXEC_TIER:-1} == 0 ]]; then
	notrun=$((notrun + 1))
	echo "NOT RUN: the VM as bare-metal host, the worker's kexec cycle (REGTRACK_KEXEC_TIER=0)"
elif [[ " $ARCHES " == *" x86_64 "* ]]; then
	echo "== VM as bare-metal host: the worker's kexec cycle"
	t0=$(date +%s)
	if ! deploy/fetch-kexec-host --out "$CACHE/kexec-host"; then
		bad "kexec host: deploy/fetch-kexec-host failed"
	elif CCACHE_DIR=$CACHE/ccache bash tests/kernel/kexec_host.sh "$CACHE/kexec-host/x86_64" "$TMP/kexec-host" \
		"$WORK/src/linux-x86_64" "$CACHE/kexec-host/kernels" 2>&1 | sed 's/^/   /'; [[ ${PIPESTATUS[0]} -eq 0 ]]; then
		ok "kexec host: the worker's cycle (lease, kexec, case, reboot, resume, completion) ok; a panicking and a hanging (power-cycled) kernel boot-failed ($(( $(date +%s) - t0 )) s)"
		# beside it, the same case and params in the plain TCG guest (x86_64-wallclock), for
		# `make bench`'s VM-as-host vs TCG row
		tcg=$(jq -r 'select(.runs[0].accel == "tcg") | .runs[0].metrics["small-allocs.throughput"][0]' \
			"$TMP/x86_64-wallclock.json" 2>/dev/null)
		jq --argjson t "${tcg:-null}" '. + {tcg_throughput: $t}' "$TMP/kexec-host/kexec-cycle.json" \
			> "$CACHE/kexec-cycle.json" 2>/dev/null ||
			cp "$TMP/kexec-host/kexec-cycle.json" "$CACHE/kexec-cycle.json" 2>/dev/null
	else
		bad "kexec host: the worker's kexec cycle did not pass ($(( $(date +%s) - t0 )) s)"
	fi
fi

echo "kernel tests: $pass passed, $fail failed, $notrun not run$( ((notrun)) && echo ' (see NOT RUN above; never counted as passed)'), $(( $(date +%s) - t_start )) s"
[[ $fail -eq 0 ]]
