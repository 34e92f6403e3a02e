#!/usr/bin/env bash
# tests/kernel/kexec_host.sh HOST_DIR WORK — the kernel tier's VM-as-bare-metal
# host, its boot path (README "Bare metal"): a qemu VM (TCG, x86_64) plays the
# machine under test with the root deploy/fetch-kexec-host made in HOST_DIR:
#   1. Debian's stock kernel boots (qemu -kernel: what the machine's firmware
#      boots), loads its virtio modules, finds the raw result disk without a
#      result, and kexecs a second kernel (`kexec -l`, `sync`, `kexec -e`);
#   2. the kexec'd kernel writes its result record to the raw disk (fsynced)
#      and reboots;
#   3. qemu runs WITHOUT -no-reboot: the reset boots the host kernel again
#      (-kernel), which finds the result on the disk and powers off.
# Each stage prints a line the serial log is checked for, in order, with the
# wall time it came at; the script exits 0 when all three came, 1 otherwise
# (the log's tail on stderr). The second kernel is Debian's own here (no
# tree build): the worker's whole cycle, with the tier's test kernel and a
# job of a real server, is not run yet (README "Bare metal").
set -u
HOST=$1 WORK=$2
[[ -f $HOST/vmlinuz && -x $HOST/root/sbin/kexec && -f $HOST/root/lib/modules/order ]] || {
	echo "kexec_host: $HOST is not a deploy/fetch-kexec-host root" >&2
	exit 1
}
rm -rf "$WORK" && mkdir -p "$WORK/host" "$WORK/second" || exit 1
cd "$WORK" || exit 1

# the init both kernels share: busybox sh, the modules, devtmpfs; then
# what its stage does (rt.stage= on the command line)
cat >init.common <<'EOF'
#!/bin/busybox sh
B=/bin/busybox
$B mount -t proc proc /proc
$B mount -t sysfs sys /sys
$B mount -t devtmpfs dev /dev
for m in $($B cat /lib/modules/order); do
	$B insmod /lib/modules/$m.ko || $B echo "RT insmod $m failed"
done
n=0
while [ ! -b /dev/vda ] && [ $n -lt 50 ]; do $B usleep 100000; n=$((n + 1)); done
up() { $B cut -d' ' -f1 /proc/uptime; }
EOF
for d in host second; do
	mkdir -p "$d/bin" "$d/proc" "$d/sys" "$d/dev" "$d/lib/modules"
	cp "$HOST/root/bin/busybox" "$d/bin/busybox" && ln -sf busybox "$d/bin/sh"
	cp "$HOST/root/lib/modules/"* "$d/lib/modules/"
done
cp -a "$HOST/root/." host/
{
	cat init.common
	cat <<'EOF'
if $B dd if=/dev/vda bs=64 count=1 2>/dev/null | $B grep -q '^rt-result '; then
	echo "RT back in the host kernel $($B uname -r) at $(up) s: $($B dd if=/dev/vda bs=64 count=1 2>/dev/null | $B head -1)"
	$B poweroff -f
fi
echo "RT host kernel $($B uname -r) up at $(up) s, result disk empty: kexec"
/sbin/kexec -l /vmlinuz --initrd /second.cpio --append "console=ttyS0 quiet rt.stage=2 panic=5" &&
	$B sync && /sbin/kexec -e
echo "RT kexec failed"
$B poweroff -f
EOF
} >host/init
{
	cat init.common
	cat <<'EOF'
r="rt-result $($B uname -r) $(up)"
printf '%s\n' "$r" | $B dd of=/dev/vda bs=64 count=1 conv=sync,fsync 2>/dev/null &&
	echo "RT kexec'd kernel wrote its result at $(up) s: reboot"
$B reboot -f
EOF
} >second/init
chmod +x host/init second/init
(cd second && find . | cpio -o -H newc --quiet) >host/second.cpio || exit 1
cp "$HOST/vmlinuz" host/vmlinuz
(cd host && find . | cpio -o -H newc --quiet) >host.cpio || exit 1
truncate -s 16M result.img

t0=${EPOCHREALTIME/./}
# no -no-reboot: the second kernel's reboot is the machine's, back to -kernel;
# each serial line stamped with the tenths of seconds since the start
timeout 600 qemu-system-x86_64 -m 1024 -nographic -nic none -vga none -no-user-config \
	-kernel "$HOST/vmlinuz" -initrd host.cpio -append "console=ttyS0 quiet" \
	-drive file=result.img,format=raw,if=virtio </dev/null 2>&1 |
	while IFS= read -r line; do
		echo "$(( (${EPOCHREALTIME/./} - t0) / 100000 )) $line"
	done >serial.log
tenths() { echo "$(($1 / 10)).$(($1 % 10)) s"; }
rc=0 last=0
for want in "RT host kernel .* result disk empty: kexec" "RT kexec'd kernel wrote its result" \
	"RT back in the host kernel .*: rt-result "; do
	at=$(grep -m1 -- "$want" serial.log | cut -d' ' -f1)
	if [[ -z $at ]]; then
		echo "kexec_host: no '$want' in the serial log" >&2
		rc=1
		break
	fi
	echo "   at $(tenths "$at") (+$(tenths $((at - last))))  $(grep -m1 -- "$want" serial.log | sed 's/.*RT /RT /')"
	last=$at
done
((rc)) && tail -25 serial.log >&2
exit $rc
