"""Kernel tier, step 7: regtrack-worker's own bare-metal cycle in a qemu VM that
plays the machine under test (README "Bare metal"; run by tests/kernel/kexec_host.sh,
which made WORK/root, the kernels and the disks).

A real regtrack-server (throwaway PostgreSQL cluster, tests/integration/harness.py)
on 127.0.0.1, reached from the VM as 10.0.2.2 (qemu's user networking), with
power_cycle = a program that sends QMP system_reset to this VM. The VM boots
Debian's stock kernel with WORK/root as its initramfs: /init loads the virtio
and ext4 modules, mounts the spool disk (ext4, /dev/vdb) and runs regtrack-worker
(capability kexec-x86_64, kexec_result_dev /dev/vda, a raw disk). Three jobs,
one at a time, in one VM session (no -no-reboot: a reboot or a reset boots
Debian's kernel again, as firmware does), each naming a kernel by the SHA-256
it was uploaded under (PUT /api/v1/images/SHA256):
  1. ok:    the tiny test kernel (virtio-blk built in): kexec'd, the case runs,
            its result goes to /dev/vda, reboot, the worker resumes from its
            spool and completes the job: outcome ok, one run with accel kexec
            and its small-allocs metrics stored;
  2. panic: a kernel without initramfs support (it panics: no root), panic=N
            reboots it: outcome boot-failed, no power cycle;
  3. hang:  the ok kernel with its compressed payload damaged (the decompressor
            halts): the lease expires, the server's power_cycle resets the VM:
            outcome boot-failed, power_cycle called once with this machine and job.
Timestamps of the serial lines give the cycle's overhead (lease -> case start,
case end -> job done), written to WORK/kexec-cycle.json for `make bench`.

usage: kexec_worker.py WORK    Env: REGTRACK_BIN. Exit 0 when every check passed.
"""
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))

# The lease while the ok and panic jobs run: it must cover a whole kexec cycle without a
# heartbeat (kexec, the test kernel, the reboot into Debian's, the worker resumed), ~170 s
# under TCG on a 2-core box at load ~20, ~20 s on a quiet one.
LEASE_TIMEOUT_S = 240
# The hang job's lease: HANG_LEASE_X times the ok job's kexec-to-worker-back (the gap with no
# heartbeat that a healthy cycle has here), within [HANG_LEASE_MIN_S, LEASE_TIMEOUT_S]; the
# hang costs its whole lease, so measured on this box beats the worst case of any box.
HANG_LEASE_X = 4
HANG_LEASE_MIN_S = 60
PANIC_S = 3

RESET_PY = r'''import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(20)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()
for cmd in ("qmp_capabilities", "system_reset"):
    f.write(json.dumps({"execute": cmd}) + "\n")
    f.flush()
    while "return" not in json.loads(f.readline()):
        pass
'''


class Serial:
    """qemu's serial console, each line stamped with seconds since t0."""

    def __init__(self, proc, path, t0):
        self.proc, self.lines, self.t0, self.cond = proc, [], t0, threading.Condition()
        self.out = open(path, "w")
        self.th = threading.Thread(target=self.pump, args=(proc,), daemon=True)
        self.th.start()

    def pump(self, proc):
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            t = time.time() - self.t0
            self.out.write("%.1f %s\n" % (t, line))
            self.out.flush()
            with self.cond:
                self.lines.append((t, line))
                self.cond.notify_all()

    def find(self, pattern, start=0):
        """(index, time, line) of the first line from index start matching, or None."""
        rx = re.compile(pattern)
        with self.cond:
            for i in range(start, len(self.lines)):
                if rx.search(self.lines[i][1]):
                    return i, self.lines[i][0], self.lines[i][1]
        return None

    def wait(self, pattern, start, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            hit = self.find(pattern, start)
            if hit or self.proc.poll() is not None:
                return hit
            with self.cond:
                self.cond.wait(1)
        return None


def main(work):
    import harness
    passed = failed = 0
    figures = {}

    def check(cond, what):
        nonlocal passed, failed
        if cond:
            passed += 1
            print("ok: " + what, flush=True)
        else:
            failed += 1
            print("FAIL: " + what, file=sys.stderr, flush=True)
        return cond

    root = os.path.join(work, "root")
    calls = os.path.join(work, "power-cycle.calls")
    qmp = os.path.join(work, "qmp.sock")
    with open(os.path.join(work, "reset.py"), "w") as f:
        f.write(RESET_PY)
    prog = os.path.join(work, "power-cycle")
    with open(prog, "w") as f:
        # the lab's power cycle: PROGRAM HOSTNAME MACHINE_ID JOB_ID (server/powercycle.h)
        f.write("#!/bin/sh\nprintf '%%s\\n' \"$*\" >> '%s'\nexec python3 '%s' '%s'\n"
                % (calls, os.path.join(work, "reset.py"), qmp))
    os.chmod(prog, stat.S_IRWXU)
    data = os.path.join(work, "data")
    os.makedirs(data, exist_ok=True)
    conf = os.path.join(work, "server.conf")

    def write_conf(lease_s):
        with open(conf, "w") as f:
            f.write("auto_bisect = 0\nlease_timeout_s = %d\nmax_attempts = 3\npower_cycle = %s\n"
                    "power_cycle_timeout_s = 30\ndata_dir = %s\nimage_limit = 16777216\n"
                    % (lease_s, prog, data))
    write_conf(LEASE_TIMEOUT_S)
    hang_lease_s = LEASE_TIMEOUT_S

    srv = qemu = serial = None
    try:
        srv = harness.Server(extra_args=["--config", conf])
        port = int(srv.addr.rsplit(":", 1)[1])
        r = srv.post("/api/v1/trees", {"name": "linux", "url": "/srv/linux.git"}, scope="admin")
        check(r.status in (200, 201), "tree registered (%d)" % r.status)
        # the kernels, uploaded as a build server's worker does
        images = {}
        for name in ("ok", "panic", "hang"):
            with open(os.path.join(work, "kernel-%s" % name), "rb") as f:
                blob = f.read()
            sha = hashlib.sha256(blob).hexdigest()
            r = srv.request("PUT", "/api/v1/images/" + sha, raw=blob, scope="worker")
            check(r.status == 201, "%s kernel uploaded as %s… (%d, %d bytes)"
                  % (name, sha[:12], r.status, len(blob)))
            images[name] = sha
        # the worker's config and token in the VM's root, then its initramfs
        etc = os.path.join(root, "etc", "regtrack")
        os.makedirs(etc, exist_ok=True)
        with open(os.path.join(etc, "token"), "w") as f:
            f.write(srv.tokens["worker"] + "\n")
        os.chmod(os.path.join(etc, "token"), 0o600)
        with open(os.path.join(etc, "worker.conf"), "w") as f:
            f.write("server_url = http://10.0.2.2:%d\ntoken_file = /etc/regtrack/token\n"
                    "work_dir = /spool/work\ncapabilities = kexec-x86_64\narch = x86_64\n"
                    "tbox_group = kexec-vm\nsandbox = off\ncases_dir = /regtrack/cases\n"
                    "kexec_bin = /sbin/kexec\nkexec_result_dev = /dev/vda\n"
                    "kexec_append = console=ttyS0,115200 quiet no_timer_check\nkexec_panic_s = %d\n"
                    "lease_wait_s = 5\nheartbeat_s = 10\nretry_max_s = 5\n" % (port, PANIC_S))
        cpio = os.path.join(work, "host.cpio")
        with open(cpio, "wb") as out:
            find = subprocess.Popen(["find", "."], cwd=root, stdout=subprocess.PIPE)
            subprocess.run(["cpio", "-o", "-H", "newc", "--quiet", "-R", "0:0"], cwd=root,
                           stdin=find.stdout, stdout=out, check=True)
            find.wait()

        t0 = time.time()
        qemu = subprocess.Popen(
            ["timeout", "1500", "qemu-system-x86_64", "-m", "1024", "-nographic", "-vga", "none",
             "-no-user-config", "-kernel", os.path.join(work, "vmlinuz"), "-initrd", cpio,
             "-append", "console=ttyS0 quiet no_timer_check", "-nic", "user,model=virtio-net-pci",
             "-drive", "file=%s,format=raw,if=virtio" % os.path.join(work, "result.img"),
             "-drive", "file=%s,format=raw,if=virtio" % os.path.join(work, "spool.img"),
             "-qmp", "unix:%s,server=on,wait=off" % qmp],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        serial = Serial(qemu, os.path.join(work, "serial.log"), t0)
        hit = serial.wait(r"registered at ", 0, 600)
        if not check(hit is not None, "the worker in the VM registered"):
            return 1
        print("   worker registered at %.1f s" % hit[1], flush=True)
        mid = srv.psql("SELECT id FROM machines WHERE hostname = 'kexec-vm'")

        def job(name, timeout):
            """Submits a job booting images[name]; waits until it ended; returns its row."""
            r = srv.post("/api/v1/jobs", {
                "tree": "linux", "commit": "1" * 40, "kconfig": "x86_64-tiny-mm",
                "testcase": "small-allocs", "tbox_group": "kexec-vm",
                "params": {"accel": "kexec", "nr_task": 1, "iterations": 20},
                "image_sha256": images[name]}, scope="submit")
            if not check(r.status == 201, "%s job submitted (%d %s)" % (name, r.status, r.body[:200])):
                return None, None
            jid = r.json()["id"]
            start = len(serial.lines)
            deadline = time.time() + timeout
            while time.time() < deadline:
                row = srv.psql("SELECT state || '|' || coalesce(outcome, '') FROM jobs "
                               "WHERE id = %d" % jid)
                if row.split("|")[0] in ("done", "failed", "cancelled"):
                    return jid, (row, start, time.time() - t0)
                if qemu.poll() is not None:
                    break
                time.sleep(1)
            check(False, "%s job %d ended (state now %s)" % (name, jid, row))
            return jid, None

        # 1. the whole cycle
        jid, end = job("ok", 900)
        if end:
            row, start, t_done = end
            check(row == "done|ok", "ok job %d: done, outcome ok (%s)" % (jid, row))
            stamps = {}
            for key, rx in (("lease", r"job %d: leased" % jid), ("kexec", r"job %d: run 1/1: kexec into" % jid),
                            ("init", r"==== regtrack-init release="),
                            ("case_end", r"==== regtrack-result-end exit=0 "),
                            ("back", r"RT host kernel .* up"), ("registered", r"registered at "),
                            ("completed", r"job %d: ok, 1 run" % jid)):
                hit = serial.find(rx, start)
                if hit:
                    stamps[key] = hit[1]
                    start = hit[0]
            check(len(stamps) == 7, "ok job: the serial log has lease, kexec, the test kernel, "
                  "the case's end, the host kernel back, the worker again and the completion (%s)"
                  % ", ".join("%s %.1f" % kv for kv in sorted(stamps.items(), key=lambda kv: kv[1])))
            if len(stamps) == 7:
                figures = {
                    "lease_to_case_start_s": round(stamps["init"] - stamps["lease"], 1),
                    "lease_to_kexec_s": round(stamps["kexec"] - stamps["lease"], 1),
                    "kexec_to_case_start_s": round(stamps["init"] - stamps["kexec"], 1),
                    "case_s": round(stamps["case_end"] - stamps["init"], 1),
                    "case_end_to_host_kernel_s": round(stamps["back"] - stamps["case_end"], 1),
                    "case_end_to_completion_s": round(stamps["completed"] - stamps["case_end"], 1),
                    "lease_to_completion_s": round(stamps["completed"] - stamps["lease"], 1),
                }
                print("   cycle: " + ", ".join("%s %s" % kv for kv in figures.items()), flush=True)
                no_heartbeat = stamps["registered"] - stamps["kexec"]
                hang_lease_s = int(min(LEASE_TIMEOUT_S,
                                       max(HANG_LEASE_MIN_S, HANG_LEASE_X * no_heartbeat)))
            runs = srv.psql("SELECT count(*) || '|' || coalesce(min(extra->>'accel'), '') || '|' || "
                            "coalesce(min(extra->>'kernel_release'), '') || '|' || "
                            "coalesce(min(r.machine_id)::text, '') FROM runs r WHERE job_id = %d" % jid)
            n, accel, release, rmid = runs.split("|")
            check(n == "1" and accel == "kexec" and release.startswith("6.1.") and rmid == mid,
                  "ok job: 1 run stored, accel %s, kernel %s, machine %s" % (accel, release, rmid))
            tp = srv.psql("SELECT rv.vals[1] FROM run_values rv JOIN runs r ON r.id = rv.run_id "
                          "JOIN metrics m ON m.id = rv.metric_id WHERE r.job_id = %d AND "
                          "m.name = 'small-allocs.throughput'" % jid)
            check(tp != "" and float(tp) > 0, "ok job: small-allocs.throughput %s stored" % tp)
            if tp:
                figures["throughput"] = float(tp)
            j = srv.get("/api/v1/jobs/%d" % jid, scope="read").json()
            check(j.get("image_sha256") == images["ok"], "ok job: image_sha256 in GET /jobs/%d" % jid)

        # 2. a kernel that panics: it reboots itself; no power cycle
        jid, end = job("panic", 600)
        if end:
            row, start, _ = end
            check(row == "done|boot-failed", "panic job %d: done, outcome boot-failed (%s)" % (jid, row))
            check(serial.find(r"Kernel panic", start) is not None, "panic job: the kernel panicked")
            check(not os.path.exists(calls), "panic job: no power cycle")

        # 3. a kernel that hangs: the lease expires, the server power-cycles the VM. The
        # server restarts on its port with the shorter lease (the worker's retries cover it)
        if hang_lease_s != LEASE_TIMEOUT_S:
            write_conf(hang_lease_s)
            srv.restart()
            figures["hang_lease_s"] = hang_lease_s
        print("   hang job's lease: %d s" % hang_lease_s, flush=True)
        t_hang = time.time()
        jid, end = job("hang", hang_lease_s + 600)
        if end:
            row, start, _ = end
            check(row == "done|boot-failed", "hang job %d: done, outcome boot-failed (%s)" % (jid, row))
            got = open(calls).read().split("\n") if os.path.exists(calls) else []
            check(got[:1] == ["kexec-vm %s %d" % (mid, jid)],
                  "hang job: power_cycle called with kexec-vm %s %d (%s)" % (mid, jid, got[:2]))
            print("   hang job: submitted to boot-failed in %.0f s" % (time.time() - t_hang),
                  flush=True)
        if figures:
            figures["at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            figures["load"] = os.getloadavg()[0]
            with open(os.path.join(work, "kexec-cycle.json"), "w") as f:
                json.dump(figures, f)
        print("   VM session %.0f s" % (time.time() - t0), flush=True)
    finally:
        if qemu:
            # SIGTERM: timeout(1) passes it on to qemu (a SIGKILL would end timeout alone)
            qemu.terminate()
            try:
                qemu.wait(30)
            except subprocess.TimeoutExpired:
                qemu.kill()
                qemu.wait()
        if srv:
            srv.stop()
        if harness.Cluster._instance:
            harness.Cluster._instance.stop()
    if failed and serial:
        for t, line in serial.lines[-30:]:
            print("   %.1f %s" % (t, line), file=sys.stderr)
    print("kexec_worker: %d passed, %d failed" % (passed, failed), flush=True)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    work = os.path.abspath(sys.argv[1])
    tmp_made = not os.environ.get("REGTRACK_TEST_TMP")
    if tmp_made:
        os.environ["REGTRACK_TEST_TMP"] = tempfile.mkdtemp(prefix="regtrack-kx-")
    try:
        rc = main(work)
    finally:
        if tmp_made:
            shutil.rmtree(os.environ["REGTRACK_TEST_TMP"], ignore_errors=True)
    sys.exit(rc)
