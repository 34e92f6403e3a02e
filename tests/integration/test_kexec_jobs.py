"""Bare-metal jobs (accel "kexec"): their capability, and the power cycle at lease expiry."""
import os
import stat
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, sha  # noqa: E402
from test_jobs import register  # noqa: E402


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
        conf = os.path.join(cls.tmp, "server.conf")
        with open(conf, "w") as f:
            f.write("auto_bisect = 0\nlease_timeout_s = 1\nmax_attempts = 3\n"
                    "power_cycle = %s\npower_cycle_timeout_s = 10\n" % cls.prog)
        cls.srv = Server(extra_args=["--config", conf])
        cls.srv.post("/api/v1/trees", {"name": "linux", "url": "/srv/linux.git"},
                     scope="admin")

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


if __name__ == "__main__":
    unittest.main()
