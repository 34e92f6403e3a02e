#!/usr/bin/env bash
# tests/kernel/kexec_host.sh HOST_DIR WORK KSRC KCACHE — the kernel tier's
# VM-as-bare-metal host (README "Bare metal"): regtrack-worker's own kexec cycle
# in a qemu VM (TCG, x86_64) that boots Debian's stock kernel with a root made
# here from HOST_DIR (deploy/fetch-kexec-host: busybox, kexec, the virtio and
# ext4 modules) plus REGTRACK_BIN/regtrack-worker with the shared libraries ldd
# names, and the case binaries the job initramfs is packed from.
#
# The kernels the worker kexecs, built from the clean kernel source KSRC (make
# O=..., ccache in CCACHE_DIR) and cached in KCACHE by what they are built from:
#   ok     tinyconfig + worker/kconfig/tiny-mm.config + x86_64-tiny-mm.config +
#          tests/kernel/kexec-test-kernel.config (virtio-blk on PCI, built in:
#          the result device);
#   panic  the same without initramfs support: no root, so it panics (its build
#          dir starts as a copy of ok's: Kbuild recompiles only what depends on
#          the options that changed);
#   hang   Debian's kernel with 64 KiB in the middle of its compressed payload
#          zeroed: the decompressor stops ("XZ-compressed data is corrupt --
#          System halted") and the CPU idles forever.
# Disks: result.img (raw, 16 MiB: kexec_result_dev /dev/vda) and spool.img
# (ext4, /dev/vdb: the worker's WORK_DIR). tests/kernel/kexec_worker.py then
# starts the server, boots the VM and runs the three jobs; its checks are this
# script's output, exit 0 when all passed. WORK/kexec-cycle.json keeps the
# cycle's timings (bench/kexec_cycle.sh reads the last one).
set -u
HOST=$1 WORK=$2 KSRC=$3 KCACHE=$4
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${REGTRACK_BIN:-}
[[ -f $HOST/vmlinuz && -x $HOST/root/sbin/kexec && -f $HOST/root/lib/modules/order ]] || {
	echo "kexec_host: $HOST is not a deploy/fetch-kexec-host root" >&2
	exit 1
}
[[ -x $BIN/regtrack-worker && -x $BIN/regtrack-server ]] || {
	echo "kexec_host: no REGTRACK_BIN/regtrack-worker and regtrack-server" >&2
	exit 1
}
[[ -f $KSRC/Makefile && -d $KSRC/arch/x86 ]] || { echo "kexec_host: no kernel source at '$KSRC'" >&2; exit 1; }
for f in init small-allocs; do
	[[ -x $TOP/bin/cases/x86_64/$f ]] || { echo "kexec_host: bin/cases/x86_64/$f missing (make cases)" >&2; exit 1; }
done
rm -rf "$WORK" && mkdir -p "$WORK/root" "$KCACHE" || exit 1

# --- the kernels the worker kexecs ------------------------------------------
frags=("$TOP/worker/kconfig/tiny-mm.config" "$TOP/worker/kconfig/x86_64-tiny-mm.config"
	"$TOP/tests/kernel/kexec-test-kernel.config")
printf '# CONFIG_BLK_DEV_INITRD is not set\n' >"$KCACHE/panic.config"
# build_kernel NAME FRAGMENT...: KCACHE/NAME.bzImage, rebuilt when the fragments,
# the kernel version or the compiler changed
build_kernel() {
	local name=$1 out=$KCACHE/build-$1 key t0
	shift
	key=$( { cat "$@"; grep -m3 -E '^(VERSION|PATCHLEVEL|SUBLEVEL) =' "$KSRC/Makefile"; gcc-12 --version | head -1; } |
		sha256sum | cut -c1-64)
	if [[ -f $KCACHE/$name.bzImage && $(cat "$KCACHE/$name.key" 2>/dev/null) == "$key" ]]; then
		echo "   $name kernel: cached"
		return 0
	fi
	t0=$(date +%s)
	if [[ $name != ok && ! -d $out ]]; then
		mkdir -p "$out" && cp -a "$KCACHE/build-ok/." "$out/" || return 1
	fi
	mkdir -p "$out"
	local mk=(make -s -C "$KSRC" O="$out" ARCH=x86_64 "CC=ccache gcc-12" KBUILD_BUILD_TIMESTAMP=2023-01-01
		KBUILD_BUILD_USER=regtrack KBUILD_BUILD_HOST=regtrack)
	{ "${mk[@]}" tinyconfig &&
		(cd "$out" && "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@") &&
		"${mk[@]}" olddefconfig && "${mk[@]}" -j2 bzImage; } >"$KCACHE/build-$name.log" 2>&1 || {
		echo "kexec_host: the $name kernel did not build (KCACHE/build-$name.log):" >&2
		tail -20 "$KCACHE/build-$name.log" >&2
		return 1
	}
	cp "$out/arch/x86/boot/bzImage" "$KCACHE/$name.bzImage" && echo "$key" >"$KCACHE/$name.key"
	echo "   $name kernel: built in $(( $(date +%s) - t0 )) s"
}
build_kernel ok "${frags[@]}" || exit 1
build_kernel panic "${frags[@]}" "$KCACHE/panic.config" || exit 1
cp "$KCACHE/ok.bzImage" "$WORK/kernel-ok" && cp "$KCACHE/panic.bzImage" "$WORK/kernel-panic" || exit 1
# the hang: 64 KiB in the middle of the compressed payload zeroed (the boot
# protocol's setup_sects at 0x1f1, payload_offset and payload_length at 0x248)
python3 - "$HOST/vmlinuz" "$WORK/kernel-hang" <<'EOF' || exit 1
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
setup = (b[0x1f1] or 4) + 1
off, length = struct.unpack_from("<II", b, 0x248)
mid = setup * 512 + off + length // 2
b[mid:mid + 65536] = bytes(65536)
open(sys.argv[2], "wb").write(b)
EOF

# --- the VM's root: busybox, kexec, modules, the worker and its libraries -----
R=$WORK/root
cp -a "$HOST/root/." "$R/" || exit 1
mkdir -p "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$R/spool" "$R/regtrack/bin" "$R/regtrack/cases/x86_64"
ln -sf busybox "$R/bin/sh"
cp "$BIN/regtrack-worker" "$R/regtrack/bin/" || exit 1
cp "$TOP/bin/cases/x86_64/init" "$TOP/bin/cases/x86_64/small-allocs" "$R/regtrack/cases/x86_64/" || exit 1
# the worker's shared libraries and loader, from this machine (they replace the
# kexec root's copies of the same libraries: one libc, one loader)
for so in $(ldd "$BIN/regtrack-worker" | grep -o '/[^ ]*'); do
	mkdir -p "$R$(dirname "$so")" && cp -L "$so" "$R$so" || exit 1
done
cat >"$R/init" <<'EOF'
#!/bin/busybox sh
B=/bin/busybox
export PATH=/sbin:/bin
$B mount -t proc proc /proc
$B mount -t sysfs sys /sys
$B mount -t devtmpfs dev /dev
for m in $($B cat /lib/modules/order); do
	$B insmod /lib/modules/$m.ko || echo "RT insmod $m failed"
done
n=0
while [ ! -b /dev/vdb ] && [ $n -lt 100 ]; do $B usleep 100000; n=$((n + 1)); done
$B hostname kexec-vm
$B ip link set lo up
$B ip link set eth0 up
$B ip addr add 10.0.2.15/24 dev eth0
$B ip route add default via 10.0.2.2
$B mount -t ext4 /dev/vdb /spool || echo "RT cannot mount the spool disk"
$B mkdir -p /spool/work
echo "RT host kernel $($B uname -r) up at $($B cut -d' ' -f1 /proc/uptime) s"
ASAN_OPTIONS=detect_leaks=0 /regtrack/bin/regtrack-worker run --config /etc/regtrack/worker.conf
echo "RT regtrack-worker exited with status $?"
$B poweroff -f
EOF
chmod +x "$R/init"
cp "$HOST/vmlinuz" "$WORK/vmlinuz"
truncate -s 16M "$WORK/result.img"
truncate -s 128M "$WORK/spool.img" && mkfs.ext4 -q -F "$WORK/spool.img" || exit 1
/usr/bin/python3 "$TOP/tests/kernel/kexec_worker.py" "$WORK"
