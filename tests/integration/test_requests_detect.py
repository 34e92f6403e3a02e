"""A/B requests and change detection: the runs of a request's
head built from an mbox are of a commit `git am` made on a worker, on no
branch of the tree; they must not enter the setup's series for detection
(ST_DETECT_SERIES), where a patch's +30 % would read as a step after the
branch tip. Its base runs are of a branch commit and stay in.

A real tree of 12 commits, the real server with detection on, tracking
runs at every commit (flat), then a patched request on the tip whose head
runs are 30 % faster, completed over the real worker protocol."""
import os
import random
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import resolved, result_doc, wait_until  # noqa: E402
from fakes import MACHINE, git, git_init, stop_tree_server, tree_server  # noqa: E402

METRIC = "small-allocs.throughput"   # higher is better
TESTCASE = "small-allocs"
PARAMS = {"nr_task": 1}
NCOMMITS = 12
VERSIONS = 5  # patch versions: enough commits after the tip for the detector to see a step


def make_tree(path):
    git_init(path)
    shas = []
    for i in range(NCOMMITS):
        with open(os.path.join(path, "mm.c"), "a") as f:
            f.write("int x%d;\n" % i)
        git(path, "add", "mm.c")
        git(path, "commit", "-q", "-m", "mm: step %d" % i, date="2026-01-01T00:%02d:00Z" % i)
        shas.append(git(path, "rev-parse", "HEAD"))
    mboxes = []
    for v in range(1, VERSIONS + 1):  # v1 .. v5 of one patch, as a developer posts them
        git(path, "checkout", "-q", "-b", "topic-v%d" % v, shas[-1])
        with open(os.path.join(path, "mm.c"), "a") as f:
            f.write("int faster_v%d;\n" % v)
        git(path, "commit", "-q", "-am", "mm: faster small allocs (v%d)" % v,
            date="2026-01-02T10:00:00Z")
        mboxes.append(git(path, "format-patch", "--stdout", "-1", "HEAD") + "\n")
        git(path, "checkout", "-q", "master")
    return {"shas": shas, "mboxes": mboxes}


class PatchedHeadNotDetected(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.tree, cls.srv = tree_server(
            "regtrack-reqdetect-", make_tree, "detect_enabled = 1\ndetect_poll_ms = 100\ndetect_p_max = 0.05\n")
        srv = cls.srv
        r = srv.post("/api/v1/trees", {"name": "demo", "url": cls.repo, "branches": ["master"]},
                     scope="admin")
        assert r.status == 200, r
        wait_until(lambda: [t for t in srv.get("/api/v1/trees").json()
                            if t["name"] == "demo" and t["commits"] >= NCOMMITS],
                   what="mirror", timeout=60)

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def wait_detect_idle(self):
        wait_until(lambda: self.srv.psql("SELECT count(*) FROM detect_queue") == "0",
                   timeout=120, what="detection queue drained")

    def test_patched_head_runs_stay_out_of_detection(self):
        srv = self.srv
        rnd = random.Random(3)
        machine = dict(MACHINE, hostname="w2p")
        # tracking: 3 flat runs (1 % noise) at each of the 12 branch commits
        for sha in self.tree["shas"]:
            for _ in range(3):
                r = srv.post("/api/v1/results", result_doc(
                    sha, testcase=TESTCASE, tree="demo", params=PARAMS, machine=machine,
                    metrics={METRIC: [1000.0 * (1 + rnd.gauss(0, 0.01))]}), scope="submit")
                self.assertEqual(r.status, 201, r)
        r = srv.post("/api/v1/workers/register", dict(
            machine, capabilities=["qemu-x86_64"], fingerprint={}), scope="worker")
        self.assertEqual(r.status, 200, r)
        mid = r.json()["machine_id"]
        tip = self.tree["shas"][-1]
        for v, mbox in enumerate(self.tree["mboxes"]):
            applied = "%02x" % (0xa0 + v) * 20  # what git am made on the worker
            rid = self.patched_request(mid, machine, rnd, tip, mbox, applied)
            q = srv.get("/api/v1/requests/%d" % rid).json()
            self.assertEqual((q["state"], q["verdict"], q["head"]["sha"]),
                             ("done", "improvement", applied))
            self.assertEqual(srv.psql("SELECT count(*) FROM runs r JOIN commits c ON "
                                      "c.id = r.commit_id WHERE c.sha = '%s'" % applied), "6")
        # the head runs are in the same setup as the tracking runs (so only the
        # detection's filter keeps them out)
        setups = srv.psql("SELECT count(DISTINCT setup_id) FROM runs")
        self.assertEqual(setups, "1")
        time.sleep(0.3)  # the detect thread's notify after the last completion
        self.wait_detect_idle()
        recs = srv.get("/api/v1/regressions?testcase=%s" % TESTCASE).json()["regressions"]
        self.assertEqual(recs, [], "a patched head's runs entered detection")
        # the base runs are of the tip, in the series beside its 3 tracking runs
        self.assertEqual(srv.psql("SELECT count(*) FROM runs r JOIN commits c ON "
                                  "c.id = r.commit_id WHERE c.sha = '%s'" % tip), "33")
        # nor are they points of the series the charts draw (the five
        # patched heads came after the tip, master's "newest commits" 30 % up)
        r = srv.get("/api/v1/series?testcase=%s&metric=%s" % (TESTCASE, METRIC))
        self.assertEqual(r.status, 200, r)
        (s,) = r.json()["series"]
        self.assertEqual([c["sha"] for c in s["commits"]], self.tree["shas"])
        self.assertEqual(len(s["points"]["value"]), 12 * 3 + 5 * 6)
        self.assertLess(max(s["points"]["value"]), 1100)

    def patched_request(self, mid, machine, rnd, base, mbox, applied):
        """A request of mbox on base, its jobs completed: base 1000, head 1300 (1 % noise)."""
        srv = self.srv
        r = srv.post("/api/v1/requests", {
            "tree": "demo", "base": base, "patches": mbox,
            "testcases": [{"testcase": TESTCASE, "params": PARAMS}], "targets": ["x86_64"],
            "kconfig": "x86_64-defconfig", "repeat": 6}, scope="submit")
        self.assertEqual(resolved(srv, r)["state"], "queued")
        rid = r.json()["id"]
        while True:
            r = srv.post("/api/v1/jobs/lease", {"machine_id": mid, "wait_s": 0}, scope="worker")
            if r.status == 204:
                return rid
            job = r.json()["job"]
            head = job["side"] == "head"
            results = [result_doc(applied if head else job["commit"], testcase=TESTCASE,
                                  job_id=job["id"], params=job["params"], tree="demo",
                                  kconfig=job["kconfig"], compiler=job["compiler"],
                                  machine=machine,
                                  metrics={METRIC: [(1300.0 if head else 1000.0) *
                                                    (1 + rnd.gauss(0, 0.01))]})
                       for _ in range(job["repeat"])]
            r = srv.post("/api/v1/jobs/%d/complete" % job["id"],
                         {"machine_id": mid, "status": "ok", "log_tail": "ok\n",
                          "results": results}, scope="worker")
            self.assertEqual(r.status, 200, r)


if __name__ == "__main__":
    unittest.main()
