"""Bare-metal jobs (accel "kexec"): their capability wherever the job comes from (POST
/jobs, a plan's push, an A/B request, a bisect's probes), and the power cycle at lease
expiry."""
import hashlib
import json
import os
import stat
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, sha, wait_until  # noqa: E402
from fakes import git, git_init, stop_tree_server, tree_server  # noqa: E402
from test_jobs import register  # noqa: E402


def server_with(tmp, config):
    """A server over a fresh database with config's `key = value` lines (in TMP/server.conf)
    and a tree 'linux' registered."""
    conf = os.path.join(tmp, "server.conf")
    with open(conf, "w") as f:
        f.write("auto_bisect = 0\n" + config)
    srv = Server(extra_args=["--config", conf])
    srv.post("/api/v1/trees", {"name": "linux", "url": "/srv/linux.git"}, scope="admin")
    return srv


class Kexec(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="test_kexec_jobs.")
        cls.calls = os.path.join(cls.tmp, "calls")
        cls.prog = os.path.join(cls.tmp, "power-cycle")
        with open(cls.prog, "w") as f:
            f.write("#!/bin/sh\nprintf '%%s ' \"$@\" >> '%s'\necho >> '%s'\n"
                    % (cls.calls, cls.calls))
        os.chmod(cls.prog, stat.S_IRWXU)
        cls.srv = server_with(cls.tmp, "lease_timeout_s = 1\nmax_attempts = 3\n"
                              "power_cycle = %s\npower_cycle_timeout_s = 10\n" % cls.prog)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def job(self, tbox, **params):
        r = self.srv.post("/api/v1/jobs", {"tree": "linux", "commit": sha("7"),
                                           "kconfig": "x86_64-tiny-mm", "testcase": "execl",
                                           "tbox_group": tbox, "params": params},
                          scope="submit")
        self.assertEqual(r.status, 201, r)
        return r.json()

    def lease(self, m):
        return self.srv.post("/api/v1/jobs/lease", {"machine_id": m}, scope="worker")

    def calls_now(self):
        try:
            with open(self.calls) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def test_capability_and_shape(self):
        srv = self.srv
        kvm = register(srv, "vm-host", caps=("qemu-x86_64",), tbox="bm")
        bm = register(srv, "bm-1", caps=("kexec-x86_64",), tbox="bm")
        j = self.job("bm", accel="kexec")
        self.assertEqual(j["capability"], "kexec-x86_64")
        self.assertEqual(self.lease(kvm).status, 204)
        r = self.lease(bm)
        self.assertEqual(r.status, 200)
        self.assertEqual(r.json()["job"]["id"], j["id"])
        # a machine is what it is: no guest shape with kexec
        r = srv.post("/api/v1/jobs", {"tree": "linux", "commit": sha("7"),
                                      "kconfig": "x86_64-tiny-mm", "testcase": "execl",
                                      "params": {"accel": "kexec", "vcpus": 4}},
                     scope="submit")
        self.assertEqual(r.status, 400)
        self.assertEqual(r.json()["error"]["detail"], "params.vcpus")

    def test_hung_machine_is_power_cycled_others_are_not(self):
        srv = self.srv
        bm = register(srv, "bm-2", caps=("kexec-x86_64",), tbox="bm-hang")
        vm = register(srv, "vm-2", caps=("qemu-x86_64",), tbox="vm-hang")
        jb = self.job("bm-hang", accel="kexec")
        jv = self.job("vm-hang")
        self.assertEqual(self.lease(bm).status, 200)
        self.assertEqual(self.lease(vm).status, 200)
        want = "bm-2 %d %d " % (bm, jb["id"])
        deadline = time.time() + 15
        while time.time() < deadline and want not in self.calls_now():
            time.sleep(0.2)
        self.assertIn(want, self.calls_now())
        time.sleep(1.5)  # the qemu machine's lease expired too, and is not cycled
        self.assertEqual([c for c in self.calls_now() if c.startswith("vm-2")], [])
        for j in (jb, jv):
            self.assertEqual(srv.get("/api/v1/jobs/%d" % j["id"]).json()["state"], "queued")


def make_tree(path):
    git_init(path)
    shas = []
    for i in range(4):
        git(path, "commit", "-q", "--allow-empty", "-m", "mm: change %d" % i,
            date="2026-01-01T00:00:%02dZ" % i)
        shas.append(git(path, "rev-parse", "HEAD"))
    return shas


class KexecEverywhere(unittest.TestCase):
    """Each path that queues jobs names a kexec job's capability the same way: only the
    bare-metal machine leases what a plan, a request or a bisect asked with accel kexec,
    and the qemu machine beside it in the same tbox_group gets nothing."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.shas, cls.srv = tree_server(
            "regtrack-kexec-paths-", make_tree, "detect_enabled = 0\npoll_tick_ms = 100\n")
        r = cls.srv.post("/api/v1/trees", {"name": "linux", "url": cls.repo,
                                           "branches": ["master"], "poll_s": 0}, scope="admin")
        assert r.status == 200, r
        cls.vm = register(cls.srv, "vm-p", caps=("qemu-x86_64",), tbox="bm-p")
        cls.bm = register(cls.srv, "bm-p", caps=("kexec-x86_64",), tbox="bm-p")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def caps(self, where):
        return self.srv.psql("SELECT string_agg(need_capability || ':' || state || ':' || "
                             "(params->>'accel'), ',' ORDER BY id) FROM jobs WHERE " + where)

    def drain(self, m):
        """Leases for machine m until nothing is left; returns the job ids leased."""
        got = []
        while True:
            r = self.srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 0},
                              scope="worker")
            self.assertIn(r.status, (200, 204), r)
            if r.status == 204:
                return got
            got.append(r.json()["job"]["id"])

    def ids(self, where):
        out = self.srv.psql("SELECT string_agg(id::text, ',' ORDER BY id) FROM jobs WHERE "
                            + where)
        return [int(x) for x in out.split(",")] if out else []

    def test_plan_request_and_bisect_queue_kexec_jobs(self):
        srv, tc = self.srv, [{"testcase": "execl", "params": {"accel": "kexec"}}]
        # a plan's push
        r = srv.post("/api/v1/plans", {
            "name": "bare", "tree": "linux", "branches": ["master"], "testcases": tc,
            "kconfigs": ["x86_64-defconfig"], "compilers": ["gcc-12"], "targets": ["bm-p"],
            "repeat": 1, "monitors": [], "enabled": True,
            "schedule": {"heads": True, "every": 0, "paths": [], "max_per_push": 5}},
            scope="admin")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(srv.post("/api/v1/trees/linux/poll", scope="submit").status, 202)
        wait_until(lambda: self.ids("plan_id IS NOT NULL"), timeout=60, what="plan jobs")
        # an A/B request
        r = srv.post("/api/v1/requests", {"tree": "linux", "base": self.shas[1],
                                          "head": self.shas[2], "testcases": tc,
                                          "targets": ["bm-p"], "kconfig": "x86_64-defconfig",
                                          "repeat": 2}, scope="submit")
        self.assertEqual(r.status, 202, r)
        wait_until(lambda: len(self.ids("request_id IS NOT NULL")) == 4, timeout=60,
                   what="request jobs")
        # a request's measure is part of the shape: icount is not for a bare-metal machine
        r = srv.post("/api/v1/requests", {"tree": "linux", "base": self.shas[1],
                                          "head": self.shas[2], "testcases": tc,
                                          "targets": ["bm-p"], "kconfig": "x86_64-defconfig",
                                          "measure": "icount"}, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]),
                         (400, "testcases[0].params.measure"), r)
        # a bisect's probes
        r = srv.post("/api/v1/bisects", {"tree": "linux", "good": self.shas[0],
                                         "bad": self.shas[3], "testcase": "execl",
                                         "params": {"accel": "kexec"},
                                         "kconfig": "x86_64-defconfig", "tbox_group": "bm-p",
                                         "metric": "unixbench.score"}, scope="submit")
        self.assertEqual(r.status, 201, r)
        bid = r.json()["id"]
        wait_until(lambda: self.ids("bisect_id = %d" % bid), timeout=60, what="probes")
        plan = self.ids("plan_id IS NOT NULL")
        req = self.ids("request_id IS NOT NULL")
        probes = self.ids("bisect_id = %d" % bid)
        self.assertEqual(len(plan), 1)
        self.assertEqual(len(req), 4)
        self.assertGreaterEqual(len(probes), 1)
        for where, n in (("plan_id IS NOT NULL", 1), ("request_id IS NOT NULL", 4),
                         ("bisect_id = %d" % bid, len(probes))):
            self.assertEqual(self.caps(where), ",".join(["kexec-x86_64:queued:kexec"] * n))
        # the qemu machine of the same tbox_group leases none of them; the bare-metal one all
        self.assertEqual(self.drain(self.vm), [])
        self.assertEqual(sorted(self.drain(self.bm)), sorted(plan + req + probes))


class ImageStore(unittest.TestCase):
    """Kernels built by one worker and booted by another: PUT /api/v1/images/{sha256}
    (worker token, the bytes checked against the name, image_limit), GET of the same
    bytes, and a bare-metal job that names the image it boots."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="test_kexec_images.")
        cls.data = os.path.join(cls.tmp, "data")
        cls.srv = server_with(cls.tmp, "data_dir = %s\nimage_limit = 4096\n" % cls.data)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def put(self, name, data, **kw):
        return self.srv.request("PUT", "/api/v1/images/" + name, raw=data, **kw)

    def fetch(self, name, scope="worker"):
        """(status, bytes) of GET /api/v1/images/NAME: the body is binary, not text"""
        req = urllib.request.Request(self.srv.url + "/api/v1/images/" + name)
        if scope:
            req.add_header("Authorization", "Bearer " + self.srv.tokens[scope])
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read(), r.headers.get("Content-Type")
        except urllib.error.HTTPError as e:
            return e.code, e.read(), e.headers.get("Content-Type")

    def test_upload_fetch_and_boot(self):
        srv = self.srv
        image = bytes(range(256)) * 12  # 3072 bytes, NULs included
        name = hashlib.sha256(image).hexdigest()
        r = self.put(name, image, scope="worker")
        self.assertEqual((r.status, r.json()), (201, {"sha256": name, "size": 3072}), r)
        r = self.put(name, image, scope="worker")  # the store has it: nothing written
        self.assertEqual((r.status, r.json()["size"]), (200, 3072), r)
        with open(os.path.join(self.data, "images", name), "rb") as f:
            self.assertEqual(f.read(), image)
        self.assertEqual(sorted(os.listdir(os.path.join(self.data, "images"))), [name])
        # the bytes under another name, a name that is not one, too large, nothing
        other = hashlib.sha256(b"other").hexdigest()
        for nm, data, status, detail in (
                (other, image, 400, "sha256"), ("ABC", image, 400, "sha256"),
                (name.upper(), image, 400, "sha256"),
                (hashlib.sha256(b"x" * 5000).hexdigest(), b"x" * 5000, 413, "image"),
                (hashlib.sha256(b"").hexdigest(), b"", 413, "image")):
            r = self.put(nm, data, scope="worker")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (status, detail), r)
        self.assertIn("hash to " + name, self.put(other, image, scope="worker")
                      .json()["error"]["message"])
        self.assertFalse(os.path.exists(os.path.join(self.data, "images", other)))
        self.assertEqual(sorted(os.listdir(os.path.join(self.data, "images"))), [name])
        # a worker token only
        self.assertEqual(self.put(name, image).status, 401)
        self.assertEqual(self.put(name, image, scope="submit").status, 403)
        self.assertEqual(self.fetch(name, scope=None)[0], 401)
        self.assertEqual(self.fetch(name, scope="read")[0], 403)
        self.assertEqual(self.fetch(name), (200, image, "application/octet-stream"))
        st, body, _ = self.fetch(other)
        self.assertEqual((st, json.loads(body)["error"]["detail"]), (404, "sha256"))
        self.assertEqual(self.fetch("nothex")[0], 400)
        # a bare-metal job names it; its worker is told in the lease
        bm = register(srv, "bm-img", caps=("kexec-x86_64",), tbox="bm-img")
        job = {"tree": "linux", "commit": sha("8"), "kconfig": "x86_64-tiny-mm",
               "testcase": "execl", "tbox_group": "bm-img", "params": {"accel": "kexec"},
               "image_sha256": name}
        r = srv.post("/api/v1/jobs", job, scope="submit")
        self.assertEqual(r.status, 201, r)
        jid = r.json()["id"]
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["image_sha256"], name)
        r = srv.post("/api/v1/jobs/lease", {"machine_id": bm}, scope="worker")
        self.assertEqual(r.status, 200, r)
        self.assertEqual((r.json()["job"]["id"], r.json()["job"]["image_sha256"]), (jid, name))
        for change, status in (({"image_sha256": other}, 404),
                               ({"image_sha256": "abc"}, 400),
                               ({"params": {"accel": "tcg"}}, 400),
                               ({"params": {}}, 400)):
            r = srv.post("/api/v1/jobs", dict(job, **change), scope="submit")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (status, "image_sha256"),
                             (change, r))
        self.assertEqual(srv.psql("SELECT count(*) FROM jobs WHERE boot_image IS NOT NULL"), "1")


if __name__ == "__main__":
    unittest.main()
