#!/usr/bin/env bash
# tests/kernel/kexec_host.sh HOST_DIR WORK — the kernel tier's VM-as-bare-metal
# host, its boot path (README "Bare metal"): a qemu VM (TCG, x86_64) plays the
# machine under test with the root deploy/fetch-kexec-host made in HOST_DIR.
# qemu runs WITHOUT -no-reboot: a reboot or a reset boots the host kernel again
# (-kernel), as a machine's firmware does. The host kernel keeps its state on a
# raw disk (what is in flight at 4 KiB, the kexec'd kernel's result at 0) and
# kexecs (`kexec -l`, `sync`, `kexec -e`) a second kernel three times:
#   1. one that panics: panic=5 reboots it; the host comes back, no result;
#   2. one that hangs: this script's QMP `system_reset` (what a lab's
#      power_cycle program does) once it said so; back, no result;
#   3. one that writes its result to the disk (fsynced) and reboots; the host
#      comes back and reads it.
# Each step prints a line the serial log is checked for, in order, with the
# wall time it came at; exit 0 when all came, 1 otherwise (the log's tail on
# stderr). The second kernel is Debian's own here (no tree build): the
# worker's whole cycle, with the tier's test kernel and a job of a real
# server, is not run yet (README "Bare metal").
set -u
HOST=$1 WORK=$2
[[ -f $HOST/vmlinuz && -x $HOST/root/sbin/kexec && -f $HOST/root/lib/modules/order ]] || {
	echo "kexec_host: $HOST is not a deploy/fetch-kexec-host root" >&2
	exit 1
}
rm -rf "$WORK" && mkdir -p "$WORK/host" "$WORK/second" || exit 1
cd "$WORK" || exit 1

# the start both kernels' /init share: busybox sh, the modules, devtmpfs, the disk
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
# the host: what was in flight decides the next boot
{
	cat init.common
	cat <<'EOF'
res=$($B dd if=/dev/vda bs=64 count=1 2>/dev/null | $B head -1)
st=$($B dd if=/dev/vda bs=64 skip=64 count=1 2>/dev/null | $B head -1)
case "$st" in
"rt-state panic")
	echo "RT back after the panic at $(up) s, no result: boot-failed"
	next=hang ;;
"rt-state hang")
	echo "RT back after the power cycle at $(up) s, no result: boot-failed"
	next=ok ;;
"rt-state ok")
	case "$res" in
	rt-result*) echo "RT back with the result at $(up) s: $res" ;;
	*) echo "RT back without the result at $(up) s" ;;
	esac
	$B poweroff -f ;;
*)
	echo "RT host kernel $($B uname -r) up at $(up) s, nothing in flight"
	next=panic ;;
esac
printf 'rt-state %s\n' "$next" | $B dd of=/dev/vda bs=64 seek=64 count=1 conv=sync,fsync 2>/dev/null
/sbin/kexec -l /vmlinuz --initrd /second.cpio --append "console=ttyS0 quiet rt.mode=$next panic=5" &&
	$B sync && /sbin/kexec -e
echo "RT kexec failed"
$B poweroff -f
EOF
} >host/init
# the kexec'd kernel: panics, hangs or leaves its result, as told
{
	cat init.common
	cat <<'EOF'
case "$($B cat /proc/cmdline)" in
*rt.mode=panic*)
	echo "RT kexec'd kernel: panic"
	exit 1 ;;
*rt.mode=hang*)
	echo "RT kexec'd kernel: hang"
	while :; do $B sleep 3600; done ;;
esac
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

cat >reset.py <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()
for cmd in ("qmp_capabilities", "system_reset"):
	f.write(json.dumps({"execute": cmd}) + "\n")
	f.flush()
	while "return" not in json.loads(f.readline()):
		pass
EOF
t0=${EPOCHREALTIME/./}
# the lab's power cycle of the hung kernel: QMP system_reset 5 s after it said so
(
	for _ in $(seq 900); do
		grep -q "RT kexec'd kernel: hang" serial.log 2>/dev/null && break
		sleep 1
	done
	sleep 5
	python3 reset.py "$WORK/qmp.sock"
) &
watcher=$!
# each serial line stamped with the tenths of seconds since the start
timeout 900 qemu-system-x86_64 -m 1024 -nographic -nic none -vga none -no-user-config \
	-kernel "$HOST/vmlinuz" -initrd host.cpio -append "console=ttyS0 quiet" \
	-drive file=result.img,format=raw,if=virtio -qmp "unix:$WORK/qmp.sock,server=on,wait=off" \
	</dev/null 2>&1 |
	while IFS= read -r line; do
		echo "$(((${EPOCHREALTIME/./} - t0) / 100000)) $line"
	done >serial.log
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null

tenths() { echo "$(($1 / 10)).$(($1 % 10)) s"; }
rc=0 last=0
for want in "RT host kernel .* nothing in flight" "RT kexec'd kernel: panic" \
	"RT back after the panic" "RT kexec'd kernel: hang" "RT back after the power cycle" \
	"RT kexec'd kernel wrote its result" "RT back with the result at .*: rt-result "; do
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
