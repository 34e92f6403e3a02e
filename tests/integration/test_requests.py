"""A/B requests: a change tested against its base.

A real git tree made here (a base, a head commit, a tag, and a patch as an
mbox), the real server (the tree's mirror resolves the refs), and workers
driven from the test over the real protocol (lease, complete) that post
known samples per side. Checks: the jobs a request queues (pairs A B A B,
above tracking priority, one tbox_group for both sides), the verdict both
ways, no-change and inconclusive with its rows and CI, a patch series (the
head runs record the sha git am made), a failing apply, a target no worker
serves, cancel, and every field error naming its field; the CLI's
`regtrack test` exit codes against the server."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, resolved, result_doc, wait_until  # noqa: E402
from fakes import MACHINE, git, git_init, stop_tree_server, tree_server  # noqa: E402

METRIC = "small-allocs.throughput"   # higher is better (lib/stats/metric.c)
TC = [{"testcase": "small-allocs", "params": {"nr_task": 1}}]


def make_tree(path):
    """c0 (base, tag v1) -> c1 (head); branch topic: c2 whose patch is the mbox."""
    git_init(path)
    with open(os.path.join(path, "mm.c"), "w") as f:
        f.write("int x;\n")
    git(path, "add", "mm.c")
    git(path, "commit", "-q", "-m", "mm: base", date="2026-01-01T00:00:00Z")
    c0 = git(path, "rev-parse", "HEAD")
    git(path, "tag", "v1")
    git(path, "commit", "-q", "--allow-empty", "-m", "mm: head", date="2026-01-01T00:01:00Z")
    c1 = git(path, "rev-parse", "HEAD")
    git(path, "checkout", "-q", "-b", "topic", c0)
    with open(os.path.join(path, "mm.c"), "a") as f:
        f.write("int y;\n")
    git(path, "commit", "-q", "-am", "mm: faster small allocs", date="2026-01-02T10:00:00Z")
    mbox = git(path, "format-patch", "--stdout", "-1", "HEAD") + "\n"
    git(path, "checkout", "-q", "master")
    return {"c0": c0, "c1": c1, "mbox": mbox}


def json_key(v):
    """A JSON value as a hashable, order-free key."""
    return json.dumps(v, sort_keys=True)


class Requests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.tree, cls.srv = tree_server("regtrack-requests-", make_tree,
                                                           "detect_enabled = 0\n")
        srv = cls.srv
        r = srv.post("/api/v1/trees", {"name": "demo", "url": cls.repo, "branches": ["master"]},
                     scope="admin")
        assert r.status == 200, r
        # the coordinator mirrors the tree in the background: wait, so the request's own
        # fetch does not race it
        wait_until(lambda: [t for t in srv.get("/api/v1/trees").json()
                            if t["name"] == "demo" and t["commits"] >= 2], what="mirror")
        cls.workers = {}
        cls.worker(cls, "w2p")  # an x86_64 vm-2p machine exists from the start

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def worker(self, name, tbox="vm-2p", arch="x86_64"):
        if name not in self.workers:
            r = self.srv.post("/api/v1/workers/register", dict(
                MACHINE, hostname=name, arch=arch, tbox_group=tbox,
                capabilities=["qemu-" + arch, "host"], fingerprint={}), scope="worker")
            assert r.status == 200, r
            self.workers[name] = (r.json()["machine_id"], dict(MACHINE, hostname=name,
                                                              arch=arch, tbox_group=tbox))
        return self.workers[name]

    def lease(self, name, **kw):
        m, _ = self.worker(name, **kw)
        r = self.srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 0}, scope="worker")
        self.assertIn(r.status, (200, 204), r)
        return r.json()["job"] if r.status == 200 else None

    def complete(self, name, job, values, commit=None, status="ok", log_tail="ok\n",
                 extra=None):
        m, doc = self.workers[name]
        body = {"machine_id": m, "status": status, "log_tail": log_tail}
        if status == "ok":
            body["results"] = [result_doc(commit or job["commit"], testcase=job["testcase"],
                                          job_id=job["id"], params=job["params"],
                                          kconfig=job["kconfig"], compiler=job["compiler"],
                                          tree="demo", machine=doc,
                                          metrics={METRIC: [v]}, **(extra or {}))
                               for v in values]
        r = self.srv.post("/api/v1/jobs/%d/complete" % job["id"], body, scope="worker")
        self.assertEqual(r.status, 200, r)

    def drain(self, name, value, commit=None, extra=None):
        """Leases and completes until nothing is left for `name`; value(job, i) gives run
        i's sample. Returns the jobs in lease order."""
        seen = []
        while True:
            job = self.lease(name)
            if not job:
                return seen
            seen.append(job)
            self.complete(name, job, [value(job, i) for i in range(job["repeat"])],
                          commit=commit(job) if commit else None,
                          extra=extra(job) if extra else None)

    def submit(self, body, scope="submit"):
        b = {"tree": "demo", "base": self.tree["c0"], "head": self.tree["c1"],
             "testcases": TC, "targets": ["x86_64"], "kconfig": "x86_64-defconfig"}
        b.update(body)
        for k in [k for k, v in b.items() if v is None]:
            del b[k]
        r = self.srv.post("/api/v1/requests", b, scope=scope)
        # accepted (202): its refs resolve in the background; r.request is the request
        # once they have (queued with its jobs, or failed)
        r.request = resolved(self.srv, r) if r.status == 202 else None
        return r

    def get(self, rid):
        r = self.srv.get("/api/v1/requests/%d" % rid, scope="read")
        self.assertEqual(r.status, 200, r)
        return r.json()

    def tearDown(self):
        # no request leaves jobs behind for the next test
        for q in self.srv.get("/api/v1/requests?state=queued").json() + \
                self.srv.get("/api/v1/requests?state=running").json():
            self.srv.post("/api/v1/requests/%d/cancel" % q["id"], scope="submit")

    # --- the jobs a request queues ---

    def test_jobs_interleaved_pinned_and_prioritized(self):
        r = self.submit({"repeat": 8, "label": "ci#1"})
        self.assertEqual(r.status, 202, r)
        rid = r.json()["id"]
        self.assertEqual(r.json()["state"], "resolving")
        self.assertEqual(r.request["state"], "queued")
        self.assertEqual(r.json()["url"], "/api/v1/requests/%d" % rid)
        q = self.get(rid)
        jobs = q["jobs"]
        # 8 runs a side in 4 rounds of 2: A B A B A B A B in id order
        self.assertEqual([j["side"] for j in jobs], ["base", "head"] * 4)
        self.assertEqual([j["round"] for j in jobs], [0, 0, 1, 1, 2, 2, 3, 3])
        self.assertEqual({j["repeat"] for j in jobs}, {2})
        self.assertEqual(q["rounds"], 4)
        self.assertEqual(q["base"]["sha"], self.tree["c0"])
        self.assertEqual(q["head"]["sha"], self.tree["c1"])
        self.assertEqual(q["progress"]["base"], {"jobs": 4, "finished": 0, "runs": 0,
                                                 "runs_needed": 8})
        self.assertEqual(q["waiting_for"], [])  # w2p serves x86_64
        j0 = self.srv.get("/api/v1/jobs/%d" % jobs[0]["id"]).json()
        self.assertEqual((j0["priority"], j0["arch"], j0["tbox_group"]), (200, "x86_64", None))
        # a tracking-like job queued earlier at priority 0 waits behind the request
        r = self.srv.post("/api/v1/jobs", {"tree": "demo", "commit": self.tree["c0"],
                                           "kconfig": "x86_64-defconfig",
                                           "testcase": "small-allocs"}, scope="submit")
        self.assertEqual(r.status, 201, r)
        plain = r.json()["id"]
        # the first lease (vm-2p) pins the request to vm-2p: a vm-4p machine of the same
        # arch gets only the plain job, never a side of the request
        first = self.lease("w2p")
        self.assertEqual((first["id"], first["side"]), (jobs[0]["id"], "base"))
        other = self.lease("w4p", tbox="vm-4p")
        self.assertEqual(other["id"], plain)
        self.complete("w4p", other, [1.0])
        self.assertIsNone(self.lease("w4p", tbox="vm-4p"))
        self.assertEqual({j["tbox_group"] for j in self.get(rid)["jobs"]}, {"vm-2p"})
        self.complete("w2p", first, [1000.0, 1001.0])
        order = [first] + self.drain("w2p", lambda job, i: 1000.0 + i)
        self.assertEqual([j["side"] for j in order], ["base", "head"] * 4)
        self.assertEqual([j["id"] for j in order], [j["id"] for j in jobs])

    def run_ab(self, base_value, head_value, **body):
        r = self.submit(body)
        self.assertEqual(r.status, 202, r)
        rid = r.json()["id"]
        self.drain("w2p", lambda job, i: (head_value if job["side"] == "head" else base_value)(
            job["round"] * 2 + i))
        q = self.get(rid)
        self.assertEqual(q["state"], "done", q)
        return q

    def test_regression(self):
        # head 5 % slower on every run: a regression, HL -5 % with its CI around it
        q = self.run_ab(lambda i: 1000.0 + i % 3, lambda i: 950.0 + i % 3, repeat=8)
        self.assertEqual(q["verdict"], "regression")
        self.assertEqual(q["result"]["verdict"], "regression")
        rows = [x for x in q["result"]["rows"] if x["metric"] == METRIC]
        self.assertEqual(len(rows), 1)
        row = rows[0]
        self.assertEqual((row["n"], row["verdict"], row["change"]), ([8, 8], "different",
                                                                     "regression"))
        self.assertAlmostEqual(row["hl_pct"], -5.0, delta=0.15)
        self.assertLess(row["ci_pct"][0], row["hl_pct"])
        self.assertGreater(row["ci_pct"][1], row["hl_pct"])
        self.assertLess(row["ci_pct"][1], -4.5)
        self.assertLess(row["p_value"], 0.01)
        self.assertEqual((row["target"], row["testcase"]), ("x86_64", "small-allocs"))
        self.assertEqual(q["progress"]["head"]["runs"], 8)
        self.assertIn("regtrack test --tree demo --base %s --head %s" % (self.tree["c0"],
                                                                      self.tree["c1"]),
                      q["reproduce"])
        self.assertIn("--testcase small-allocs --params nr_task=1 --target x86_64", q["reproduce"])

    def test_runs_join_a_request_only_from_its_token_or_its_worker(self):
        """Issue 35 item 1's reproducer: runs posted with the job_id of another's A/B
        request (48 once turned a no-change into a -20 % regression) are refused, 403
        naming job_id, and nothing is stored; the token that submitted the request may
        post to its jobs."""
        r = self.submit({"repeat": 2})
        self.assertEqual(r.status, 202, r)
        jid = r.request["jobs"][0]["id"]
        job = self.srv.get("/api/v1/jobs/%d" % jid, scope="read").json()

        def doc(v):
            return result_doc(job["commit"], testcase=job["testcase"], job_id=jid,
                              params=job["params"], kconfig=job["kconfig"],
                              compiler=job["compiler"], tree="demo",
                              metrics={METRIC: [v]})
        for tok in (self.srv.token("submit"), self.srv.token("worker")):
            r = self.srv.post("/api/v1/results", doc(800.0), token=tok)
            self.assertEqual((r.status, r.json()["error"]["detail"]), (403, "job_id"), r)
        self.assertEqual(self.srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid),
                         "0")
        r = self.srv.post("/api/v1/results", doc(1000.0), scope="submit")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid),
                         "1")

    def test_reproduce_quoted_for_a_shell(self):
        """Issue 35 item 6: a param value pasted from the reproduce command lines reaches the
        program as it was submitted, and runs nothing."""
        evil = "a b;$(touch %s) '\"`id`\\ *" % os.path.join(tempfile.gettempdir(),
                                                           "regtrack-pwned")
        r = self.submit({"testcases": [{"testcase": "small-allocs",
                                        "params": {"nr_task": 1, "opt": evil}}], "repeat": 2})
        self.assertEqual(r.status, 202, r)
        q = self.get(r.json()["id"])

        def words(cmd, program):
            self.assertTrue(cmd.startswith(program + " "), cmd)
            out = subprocess.run(["sh", "-c", "printf '%s\\0' " + cmd[len(program) + 1:]],
                                 check=True, capture_output=True, text=True).stdout
            return out.split("\0")[:-1]
        w = words(q["reproduce"], "regtrack test")
        self.assertEqual(w[w.index("--params") + 1], "nr_task=1,opt=" + evil)
        self.assertEqual(w[w.index("--testcase") + 1], "small-allocs")
        self.assertEqual(w[-2:], ["--wait", "--gate"])
        self.assertEqual(len(q["reproduce_local"]), 2, q["reproduce_local"])
        for c in q["reproduce_local"]:
            w = words(c["command"], "regtrack-worker reproduce")
            self.assertEqual(w[w.index("--params") + 1], "nr_task=1,opt=" + evil)
        w = words(q["reproduce_local"][0]["curl"], "curl")
        self.assertEqual(json.loads(w[w.index("-d") + 1])["params"], {"nr_task": 1, "opt": evil})
        self.assertFalse(os.path.exists(os.path.join(tempfile.gettempdir(), "regtrack-pwned")))

    def test_improvement(self):
        q = self.run_ab(lambda i: 1000.0 + i % 3, lambda i: 1100.0 + i % 3, repeat=6)
        self.assertEqual(q["verdict"], "improvement")
        row = q["result"]["rows"][0]
        self.assertEqual((row["n"], row["change"]), ([6, 6], "improvement"))
        self.assertAlmostEqual(row["hl_pct"], 10.0, delta=0.3)

    def test_no_change_honours_min_change_pct(self):
        # +0.5 %: inside a 2 % band -> no-change; the same runs with a 0.1 % floor differ
        q = self.run_ab(lambda i: 1000.0 + i % 3, lambda i: 1005.0 + i % 3, repeat=8,
                        min_change_pct=2)
        self.assertEqual(q["verdict"], "no-change", q["result"])
        row = q["result"]["rows"][0]
        self.assertEqual((row["verdict"], row["floor_pct"]), ("same", 2))
        self.assertGreater(row["ci_pct"][0], -2)
        self.assertLess(row["ci_pct"][1], 2)
        q = self.run_ab(lambda i: 1000.0 + i % 3, lambda i: 1005.0 + i % 3, repeat=8,
                        min_change_pct=0.1)
        self.assertEqual(q["verdict"], "improvement")

    def test_one_constant_value_at_both_sides_is_no_evidence(self):
        # 6 runs of 500 at both sides: the row is `same` (constant) but says nothing of a
        # change or of none, so the request is inconclusive, not no-change
        q = self.run_ab(lambda i: 500.0, lambda i: 500.0, repeat=6)
        row = q["result"]["rows"][0]
        self.assertEqual((row["n"], row["verdict"], row["constant"]), ([6, 6], "same", True))
        self.assertEqual(q["verdict"], "inconclusive", q["result"])

    def test_inconclusive_with_too_few_runs(self):
        q = self.run_ab(lambda i: 1000.0 + i, lambda i: 900.0 + i, repeat=2)
        self.assertEqual(q["verdict"], "inconclusive")
        row = q["result"]["rows"][0]
        self.assertEqual((row["n"], row["verdict"]), ([2, 2], "need-more-runs"))

    def test_icount_decides_three_runs_a_side_by_the_setups_spread(self):
        # the setup's A/A history: 4 commits x 2 runs within 0.04 %; then head +5 %, 3 runs
        # a side: the rank test cannot go below p 0.1 (inconclusive), the A/A spread
        # decides in icount; the same history and runs in wall-clock stay inconclusive
        _, machine = self.worker("w2p")
        for nr_task, measure in ((21, "icount"), (22, None)):
            params = dict({"nr_task": nr_task}, **({"measure": measure} if measure else {}))
            for c, pair in enumerate(((1000.0, 1000.4), (1001.0, 1001.2), (999.0, 999.3),
                                      (1000.5, 1000.6))):
                for v in pair:
                    r = self.srv.post("/api/v1/results", result_doc(
                        "%02x" % (0x30 + c) * 20, testcase="small-allocs", tree="demo",
                        params=params, machine=machine, metrics={METRIC: [v]}), scope="submit")
                    self.assertEqual(r.status, 201, r)
            q = self.run_ab(lambda i: 1000.0 + 0.1 * (i % 3), lambda i: 1050.0 + 0.1 * (i % 3),
                            repeat=3, measure=measure,
                            testcases=[{"testcase": "small-allocs", "params": {"nr_task": nr_task}}])
            (row,) = [x for x in q["result"]["rows"] if x["metric"] == METRIC]
            self.assertEqual(row["n"], [3, 3])
            self.assertAlmostEqual(row["p_value"], 0.1, places=6)
            if measure:
                self.assertEqual(q["verdict"], "improvement")  # the rank test: inconclusive
                self.assertEqual((q["verdict"], row["verdict"], row["by_spread"]),
                                 ("improvement", "different", True))
                self.assertAlmostEqual(row["hl_pct"], 5.0, delta=0.02)
                self.assertIsNone(row["q_value"])
            else:
                self.assertEqual((q["verdict"], row["verdict"], row["by_spread"]),
                                 ("inconclusive", "need-more-runs", False))

    def test_refs_resolved_in_the_mirror(self):
        r = self.submit({"base": "v1", "head": "master", "repeat": 1})
        self.assertEqual(r.status, 202, r)
        q = self.get(r.json()["id"])
        self.assertEqual((q["base"]["ref"], q["base"]["sha"]), ("v1", self.tree["c0"]))
        self.assertEqual((q["head"]["ref"], q["head"]["sha"]), ("master", self.tree["c1"]))

    # --- how many runs, when repeat is omitted ---

    def history(self, params, cv, commits=5, runs=4, mean=1000.0, mode=None):
        """Runs of the request's setup at `commits` commits, `runs` each, whose
        spread at each commit is exactly cv (a fraction): m (1 + d k), k = -1.5 ..
        1.5, sample stddev d m sqrt(5/3)."""
        d = cv / (5.0 / 3) ** 0.5
        ks = [-1.5 + 3.0 * i / (runs - 1) for i in range(runs)]
        _, machine = self.worker("w2p")
        for c in range(commits):
            for k in ks:
                doc = result_doc("%02x" % (0x10 + c) * 20, testcase="small-allocs", tree="demo",
                                 params=params, machine=machine,
                                 metrics={METRIC: [mean * (1 + d * k)]})
                if mode:
                    doc["mode"] = mode
                r = self.srv.post("/api/v1/results", doc, scope="submit")
                self.assertEqual(r.status, 201, r)

    def test_repeat_chosen_from_the_setups_noise(self):
        # no history: the stated default
        r = self.submit({"testcases": [{"testcase": "small-allocs", "params": {"nr_task": 7}}]})
        self.assertEqual(r.status, 202, r)
        self.assertEqual(r.request["repeat"], 6)
        self.assertEqual(r.request["repeat_why"], "no history of this setup (no commit with "
                         "repeated runs of it): the default, 6 runs a side")
        # CV 1.8 % over 20 runs: 22 a side for 2 % (samplesize.h: 21.55 up)
        self.history({"nr_task": 8}, 0.018)
        tc = [{"testcase": "small-allocs", "params": {"nr_task": 8}}]
        r = self.submit({"testcases": tc, "min_change_pct": 2})
        self.assertEqual(r.status, 202, r)
        self.assertEqual(r.request["repeat"], 22)
        why = ("CV 1.8 % over 20 runs at 5 commits (small-allocs.throughput) → 22 runs a side "
               "for 2 % (power 0.8, α 0.01)")
        self.assertEqual(r.request["repeat_why"], why)
        q = self.get(r.json()["id"])
        self.assertEqual((q["repeat"], q["repeat_why"]), (22, why))
        self.assertEqual(sorted(j["repeat"] for j in q["jobs"] if j["side"] == "base"),
                         [5, 5, 6, 6])
        self.assertEqual(q["progress"]["head"]["runs_needed"], 22)
        (n,) = q["noise"]
        self.assertAlmostEqual(n["cv_pct"], 1.8, places=6)
        self.assertEqual((n["runs"], n["commits"], n["runs_a_side"]), (20, 5, 22))
        self.assertAlmostEqual(n["raw"], 21.5499, places=3)
        # the metric's floor (1 %) by default: past the bound, which the reply says
        r = self.submit({"testcases": tc})
        self.assertEqual(r.request["repeat"], 30)
        self.assertTrue(r.request["repeat_why"].endswith(
            "→ 30 runs a side for 1 % (power 0.8, α 0.01); the bound: 1 % would need 81"),
            r.request["repeat_why"])
        # icount: spread near zero needs few runs, and the reply says how few
        tc = [{"testcase": "small-allocs", "params": {"nr_task": 9}}]
        self.history({"nr_task": 9, "measure": "icount"}, 0.00004, mode="icount")
        r = self.submit({"testcases": tc, "measure": "icount", "min_change_pct": 1})
        self.assertEqual(r.status, 202, r)
        self.assertEqual(r.request["repeat"], 5)
        self.assertEqual(r.request["repeat_why"],
                         "CV 0.004 % over 20 runs at 5 commits (small-allocs.throughput) → 5 "
                         "runs a side for 1 % (power 0.8, α 0.01); icount's spread is near "
                         "zero: 1.7 would do, 5 is the fewest with which the rank test can "
                         "reach α 0.01")
        # an explicit repeat is kept, with no reason to give
        r = self.submit({"testcases": tc, "measure": "icount", "repeat": 3})
        self.assertEqual((r.request["repeat"], r.request.get("repeat_why")), (3, None))

    # --- patches ---

    def test_patches_head_runs_record_the_applied_sha(self):
        mbox = self.tree["mbox"]
        r = self.submit({"head": None, "patches": mbox, "repeat": 6})
        self.assertEqual(r.status, 202, r)
        rid = r.json()["id"]
        q = self.get(rid)
        self.assertEqual(q["patches"]["count"], 1)
        self.assertEqual(q["patches"]["subject"], "[PATCH] mm: faster small allocs")
        self.assertIsNone(q["head"]["sha"])
        applied = "ab" * 20  # what git am made on the worker
        jobs = []

        def commit(job):
            jobs.append(job)
            return applied if job["side"] == "head" else None
        # the worker's `git patch-id --stable` of the series, in each head run
        pid, pids = "fb" * 20, ["fb" * 20]
        self.drain("w2p", lambda job, i: 1000.0 + i + (30 if job["side"] == "head" else 0),
                   commit=commit, extra=lambda job: {"patch_id": pid, "patch_ids": pids,
                                                     "base_commit": job["commit"]}
                   if job["side"] == "head" else {})
        heads = [j for j in jobs if j["side"] == "head"]
        bases = [j for j in jobs if j["side"] == "base"]
        # both sides check out base; only the head jobs carry the mbox
        self.assertEqual({j["commit"] for j in jobs}, {self.tree["c0"]})
        self.assertEqual({j["patches"] for j in heads}, {mbox})
        self.assertEqual({j["patches"] for j in bases}, {None})
        q = self.get(rid)
        self.assertEqual((q["state"], q["verdict"], q["head"]["sha"]),
                         ("done", "improvement", applied))
        self.assertEqual((q["patches"]["patch_id"], q["patches"]["patch_ids"]), (pid, pids))
        self.assertEqual(self.srv.psql("SELECT patch_id FROM requests WHERE id = %d" % rid), pid)
        self.assertIn("--patches series.mbox", q["reproduce"])

    def test_apply_failure_fails_the_request_with_gits_message(self):
        r = self.submit({"head": None, "patches": self.tree["mbox"], "repeat": 4})
        self.assertEqual(r.status, 202, r)
        rid = r.json()["id"]
        job = self.lease("w2p")
        self.complete("w2p", job, [1000.0])
        job = self.lease("w2p")
        self.assertEqual(job["side"], "head")
        msg = "apply-failed: git am: error: patch failed: mm.c:1\nPatch failed at 0001 mm: faster\n"
        self.complete("w2p", job, [], status="run-failed", log_tail=msg)
        q = self.get(rid)
        self.assertEqual(q["state"], "failed")
        self.assertIsNone(q["verdict"])
        self.assertIn("head job %d" % job["id"], q["fail_reason"])
        self.assertIn("run-failed", q["fail_reason"])
        self.assertIn("patch failed: mm.c:1", q["fail_reason"])
        # the rest of the request is not run
        self.assertEqual({j["state"] for j in q["jobs"][2:]}, {"cancelled"})
        self.assertIsNone(self.lease("w2p"))

    def test_mbox_served_as_submitted(self):
        # the fixture's mbox, with a non-ASCII trailer: the bytes come back unchanged
        mbox = self.tree["mbox"].replace("\n---\n", "\nReported-by: Zoë Müller "
                                         "<zoe@example.org>\n---\n", 1)
        self.assertNotEqual(mbox, self.tree["mbox"])
        r = self.submit({"head": None, "patches": mbox, "repeat": 2})
        self.assertEqual(r.status, 202, r)
        rid = r.json()["id"]
        q = self.get(rid)
        self.assertEqual(q["patches"]["mbox_url"], "/api/v1/requests/%d/mbox" % rid)
        for scope in ("read", "worker"):
            r = self.srv.get(q["patches"]["mbox_url"], scope=scope)
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.headers["Content-Type"], "application/mbox")
            self.assertEqual(r.body.encode("utf-8"), mbox.encode("utf-8"))
            self.assertEqual(int(r.headers["Content-Length"]), len(mbox.encode("utf-8")))
        # a request of a head commit has no mbox; an unknown request none either
        r = self.submit({"repeat": 2})
        self.assertEqual(r.status, 202, r)
        head = r.json()["id"]
        self.assertIsNone(self.get(head)["patches"])
        r = self.srv.get("/api/v1/requests/%d/mbox" % head, scope="read")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "patches"), r)
        r = self.srv.get("/api/v1/requests/999999/mbox", scope="read")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "id"), r)
        r = self.srv.get("/api/v1/requests/x/mbox", scope="read")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "id"), r)

    # --- requests by plan ---

    def plan(self, name, **fields):
        body = {"name": name, "tree": "demo", "branches": ["master"], "enabled": False}
        body.update(fields)
        r = self.srv.post("/api/v1/plans", body, scope="admin")
        self.assertIn(r.status, (200, 201), r)

    def jobs_of(self, rid):
        return [self.srv.get("/api/v1/jobs/%d" % j["id"]).json() for j in self.get(rid)["jobs"]]

    def test_request_by_plan_queues_the_plans_setups(self):
        # a disabled plan (the poller queues nothing for it) is a setup all the same
        self.plan("ab-mm", testcases=[{"testcase": "small-allocs", "params": {"nr_task": 3}},
                                      {"testcase": "execl", "params": {}}],
                  kconfigs=["x86_64-tiny-mm", "arm64-tiny-mm"], compilers=["gcc-13"],
                  targets=["x86_64", "arm64"], repeat=4, measure="icount",
                  monitors=["perf-stat"])
        r = self.submit({"plan": "ab-mm", "tree": None, "testcases": None, "targets": None,
                         "kconfig": None})
        self.assertEqual(r.status, 202, r)
        self.assertEqual(r.request["repeat"], 4)
        rid = r.json()["id"]
        q = self.get(rid)
        self.assertEqual(q["plan"], "ab-mm")
        self.assertEqual((q["tree"], q["targets"], q["kconfig"], q["compiler"], q["measure"]),
                         ("demo", ["x86_64", "arm64"], "x86_64-tiny-mm", "gcc-13", "icount"))
        self.assertEqual([t["testcase"] for t in q["testcases"]], ["small-allocs", "execl"])
        jobs = self.jobs_of(rid)
        # 2 targets x 2 testcases, 4 rounds of one run, base and head
        self.assertEqual(len(jobs), 32)
        self.assertEqual({(j["testcase"], json_key(j["params"]), j["kconfig"], j["arch"],
                           j["compiler"], j["repeat"]) for j in jobs},
                         {("small-allocs", json_key({"nr_task": 3, "measure": "icount"}),
                           "x86_64-tiny-mm", "x86_64", "gcc-13", 1),
                          ("execl", json_key({"measure": "icount"}), "x86_64-tiny-mm",
                           "x86_64", "gcc-13", 1),
                          ("small-allocs", json_key({"nr_task": 3, "measure": "icount"}),
                           "arm64-tiny-mm", "aarch64", "gcc-13", 1),
                          ("execl", json_key({"measure": "icount"}), "arm64-tiny-mm",
                           "aarch64", "gcc-13", 1)})
        self.assertEqual({tuple(j["monitors"]) for j in jobs}, {("perf-stat",)})
        self.assertEqual({j["plan"] for j in jobs}, {None})  # not the plan's tracking jobs
        self.assertEqual({j["priority"] for j in jobs}, {200})
        self.assertEqual([j["id"] for j in self.srv.get(
            "/api/v1/requests?state=queued").json()], [rid])
        self.assertEqual(self.srv.get("/api/v1/requests?state=queued").json()[0]["plan"],
                         "ab-mm")
        # the plan's setups as the command that runs it again spells them
        self.assertIn("--testcase small-allocs --params nr_task=3 --testcase execl "
                      "--target x86_64 --target arm64 --kconfig x86_64-tiny-mm "
                      "--compiler gcc-13 --repeat 4", q["reproduce"])

    def test_request_by_plan_own_fields_win(self):
        # two kconfigs and two compilers to choose from; no arm64 kernel; one run a commit
        self.plan("ab-x86", testcases=[{"testcase": "small-allocs", "params": {"nr_task": 4}}],
                  kconfigs=["x86_64-defconfig", "x86_64-tiny-mm"],
                  compilers=["gcc-12", "clang-17"], targets=["x86_64", "arm64"])
        cases = [
            ({"plan": "no-such-plan"}, 404, "plan", "no plan 'no-such-plan'"),
            ({"plan": 5}, 400, "plan", "a plan's name"),
            ({"plan": "ab-x86", "tree": "other"}, 400, "plan",
             "plan 'ab-x86' tests tree 'demo', not 'other'"),
            ({"plan": "ab-x86", "compiler": "gcc-12"}, 400, "plan",
             "more than one kconfig ('x86_64-defconfig', 'x86_64-tiny-mm')"),
            ({"plan": "ab-x86", "kconfig": "x86_64-tiny-mm"}, 400, "plan",
             "plan 'ab-x86' builds with 2 compilers and a request with one: give 'compiler'"),
        ]
        for body, status, detail, message in cases:
            r = self.submit(dict({"testcases": None, "targets": None, "kconfig": None}, **body))
            self.assertEqual((r.status, r.json()["error"]["detail"]), (status, detail),
                             "%s -> %s" % (body, r))
            self.assertIn(message, r.json()["error"]["message"])
        # the plan's testcase and targets (arm64 left out: no kernel of its arch), the
        # request's kconfig and compiler; the plan's one run a commit compares nothing,
        # so the runs a side come from the setup's noise (none yet: the default)
        r = self.submit({"plan": "ab-x86", "testcases": None, "targets": None,
                         "kconfig": "x86_64-tiny-mm", "compiler": "clang-17"})
        self.assertEqual(r.status, 202, r)
        self.assertEqual(r.request["repeat"], 6)
        self.assertTrue(r.request["repeat_why"].startswith("no history of this setup"), r)
        jobs = self.jobs_of(r.json()["id"])
        self.assertEqual(len(jobs), 8)  # one target, one testcase, 4 rounds, 2 sides
        self.assertEqual({(j["testcase"], json_key(j["params"]), j["kconfig"], j["arch"],
                           j["compiler"]) for j in jobs},
                         {("small-allocs", json_key({"nr_task": 4}), "x86_64-tiny-mm",
                           "x86_64", "clang-17")})
        self.assertEqual({tuple(j["monitors"]) for j in jobs}, {()})
        # every field the request gives wins over the plan's
        r = self.submit({"plan": "ab-x86", "testcases": TC, "targets": ["vm-2p"],
                         "kconfig": "x86_64-defconfig", "compiler": "gcc-12", "repeat": 2,
                         "measure": "icount", "monitors": ["perf-profile"]})
        self.assertEqual(r.status, 202, r)
        q = self.get(r.json()["id"])
        self.assertEqual((q["plan"], q["targets"], q["repeat"]), ("ab-x86", ["vm-2p"], 2))
        jobs = self.jobs_of(q["id"])
        self.assertEqual(len(jobs), 4)
        self.assertEqual({(j["testcase"], json_key(j["params"]), j["kconfig"], j["arch"],
                           j["tbox_group"], j["compiler"], tuple(j["monitors"]))
                          for j in jobs},
                         {("small-allocs", json_key({"nr_task": 1, "measure": "icount"}),
                           "x86_64-defconfig", "x86_64", "vm-2p", "gcc-12",
                           ("perf-profile",))})
        # a request without a plan names none
        r = self.submit({"repeat": 2})
        self.assertIsNone(self.get(r.json()["id"])["plan"])

    # --- waiting, cancel, list ---

    def test_target_no_worker_serves_waits_then_cancel(self):
        # a tbox_group no machine has joined: its arch comes from the kconfig
        r = self.submit({"targets": ["lkp-icl-2sp8"], "kconfig": "x86_64-tiny-mm", "repeat": 3})
        self.assertEqual(r.status, 202, r)
        rid = r.json()["id"]
        q = self.get(rid)
        self.assertEqual(q["state"], "queued")
        self.assertEqual(q["waiting_for"], ["lkp-icl-2sp8 (qemu-x86_64)"])
        self.assertEqual({j["kconfig"] for j in q["jobs"]}, {"x86_64-tiny-mm"})
        self.assertEqual(len(q["jobs"]), 6)
        self.assertIsNone(self.lease("w2p"))  # an x86_64 machine never takes it
        ids = [x["id"] for x in self.srv.get("/api/v1/requests?state=queued").json()]
        self.assertIn(rid, ids)
        r = self.srv.post("/api/v1/requests/%d/cancel" % rid, scope="read")
        self.assertEqual(r.status, 403, r)
        r = self.srv.post("/api/v1/requests/%d/cancel" % rid, scope="submit")
        self.assertEqual((r.status, r.json()["jobs_cancelled"]), (200, 6), r)
        q = self.get(rid)
        self.assertEqual(q["state"], "cancelled")
        self.assertEqual({j["state"] for j in q["jobs"]}, {"cancelled"})
        r = self.srv.post("/api/v1/requests/%d/cancel" % rid, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["code"]), (409, "conflict"), r)
        r = self.srv.post("/api/v1/requests/999999/cancel", scope="submit")
        self.assertEqual(r.status, 404, r)
        self.assertEqual(self.srv.get("/api/v1/requests/999999").status, 404)
        ids = [x["id"] for x in self.srv.get("/api/v1/requests?state=cancelled").json()]
        self.assertIn(rid, ids)
        self.assertEqual(self.srv.get("/api/v1/requests?state=bogus").status, 400)

    def test_several_targets_and_testcases(self):
        self.worker("warm", tbox="vm-arm", arch="aarch64")
        r = self.submit({"targets": ["x86_64", "vm-arm"], "repeat": 2, "testcases": [
            {"testcase": "small-allocs", "params": {}}, {"testcase": "execl", "params": {}}]})
        self.assertEqual(r.status, 202, r)
        q = self.get(r.json()["id"])
        # 2 targets x 2 testcases x 2 rounds x 2 sides; kconfig follows each target's arch
        self.assertEqual(len(q["jobs"]), 16)
        self.assertEqual({(j["arch"], j["kconfig"]) for j in q["jobs"]},
                         {("x86_64", "x86_64-defconfig"), ("aarch64", "arm64-defconfig")})
        self.assertEqual({j["tbox_group"] for j in q["jobs"] if j["arch"] == "aarch64"},
                         {"vm-arm"})
        self.assertEqual([j["group"] for j in q["jobs"][:8]], [0, 0, 1, 1, 2, 2, 3, 3])

    # --- field errors ---

    def test_field_errors_name_the_field(self):
        c0 = self.tree["c0"]
        cases = [
            ({"tree": "nope"}, 404, "tree"),
            ({"tree": None}, 400, "tree"),
            ({"base": "--upload-pack=x"}, 400, "base"),
            ({"head": None}, 400, "head"),
            ({"patches": self.tree["mbox"]}, 400, "patches"),
            ({"head": None, "patches": "From x\nSubject: hi\n\nno diff here\n"}, 400, "patches"),
            ({"head": None, "patches": 5}, 400, "patches"),
            ({"head": None, "patches": "x" * (4 * 1024 * 1024 + 1)}, 413, "patches"),
            ({"head": None, "patches": self.tree["mbox"], "kconfig": "host"}, 400, "patches"),
            ({"targets": None}, 400, "targets"),
            ({"targets": []}, 400, "targets"),
            ({"targets": ["x86_64", "x86_64"]}, 400, "targets"),
            ({"targets": ["no-such-group"], "kconfig": "tiny-mm"}, 400, "targets"),
            ({"testcases": None}, 400, "testcases"),
            ({"testcases": [{"params": {}}]}, 400, "testcases"),
            ({"testcases": [{"testcase": "x", "params": {"a": [1]}}]}, 400, "testcases[0].params.a"),
            # the testcase's place is named, as casecheck's 400s name it
            ({"testcases": [{"testcase": "x", "params": {}},
                            {"testcase": "x", "params": {"pin": "yes"}}]}, 400,
             "testcases[1].params.pin"),
            # the one params rule of results, jobs, bisects and plans
            ({"testcases": [{"testcase": "x", "params": {"": 1}}]}, 400, "testcases[0].params."),
            ({"testcases": [{"testcase": "x", "params": {"v": "x" * 5000}}]}, 400,
             "testcases[0].params.v"),
            ({"plan": "mm-smoke"}, 404, "plan"),
            ({"repeat": 0}, 400, "repeat"),
            ({"repeat": 101}, 400, "repeat"),
            ({"min_change_pct": -1}, 400, "min_change_pct"),
            ({"min_change_pct": "2"}, 400, "min_change_pct"),
            ({"measure": "cycles"}, 400, "measure"),
            ({"kconfig": "host", "measure": "icount"}, 400, "measure"),
            # host mode has no guest to shape, as a host job has none
            ({"kconfig": "host", "targets": ["vm-2p"],
              "testcases": [{"testcase": "small-allocs", "params": {"nr_task": 1, "pin": True}}]},
             400, "testcases[0].params.pin"),
            ({"kconfig": "bad name"}, 400, "kconfig"),
            ({"compiler": "gcc;rm"}, 400, "compiler"),
            ({"notify": "nobody"}, 400, "notify"),
            # no notify_domains configured here: no address is mailed
            ({"notify": "dev@example.org"}, 400, "notify"),
        ]
        for body, status, detail in cases:
            r = self.submit(body)
            self.assertEqual((r.status, r.json()["error"]["detail"]), (status, detail),
                             "%s -> %s" % (str(body)[:80], r))
        self.assertEqual(self.submit({}, scope="read").status, 403)
        self.assertEqual(self.submit({}, scope="worker").status, 403)
        # none of them queued anything
        self.assertEqual(self.srv.get("/api/v1/requests?state=queued").json(), [])

    def test_refs_that_need_git_fail_the_request(self):
        # accepted at once (no git on the HTTP side), then failed with the reason the
        # resolver found; nothing queued
        c0 = self.tree["c0"]
        cases = [
            ({"base": "no-such-ref"}, "base: 'no-such-ref' is not a commit of tree 'demo'"),
            ({"head": "f" * 40}, "head: '%s' is not a commit of tree 'demo'" % ("f" * 40)),
            ({"head": c0}, "head: 'head' is the same commit as 'base'"),
        ]
        for body, reason in cases:
            r = self.submit(body)
            self.assertEqual(r.status, 202, r)
            q = r.request
            self.assertEqual((q["state"], q["fail_reason"], q["jobs"]), ("failed", reason, []),
                             body)
        self.assertEqual(self.srv.get("/api/v1/requests?state=queued").json(), [])

    def test_host_mode_request(self):
        r = self.submit({"kconfig": "host", "targets": ["vm-2p"], "repeat": 2})
        self.assertEqual(r.status, 202, r)
        q = self.get(r.json()["id"])
        self.assertEqual({(j["kconfig"], j["tbox_group"]) for j in q["jobs"]}, {("host", "vm-2p")})

    # --- the CLI ---

    def cli(self, *args, timeout=60):
        return subprocess.run([os.path.join(BIN, "regtrack"), "test"] + list(args) +
                              ["--server", self.srv.url, "--token", self.srv.tokens["submit"]],
                              capture_output=True, text=True, timeout=timeout)

    def cli_with_worker(self, base_value, head_value, *args):
        """regtrack test ... --wait while this thread plays the worker."""
        p = subprocess.Popen([os.path.join(BIN, "regtrack"), "test", "--tree", "demo",
                              "--base", self.tree["c0"], "--testcase", "small-allocs",
                              "--target", "x86_64", "--kconfig", "x86_64-defconfig",
                              "--server", self.srv.url, "--token", self.srv.tokens["submit"],
                              "--poll", "0.2"] + list(args),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_until(lambda: self.srv.get("/api/v1/requests?state=queued").json(),
                       what="the request")
            self.drain("w2p", lambda job, i: (head_value if job["side"] == "head"
                                              else base_value)(job["round"] * 2 + i))
            out, err = p.communicate(timeout=60)
        finally:
            p.kill()
        return p.returncode, out, err

    def test_cli_gate_improvement_beside_an_undecided_drop(self):
        """The request's verdict is `improvement` when one row improved; --gate still
        passes no row it could not decide: execl -3 % in overlapping runs (6 vs 6,
        need-more-runs) beside small-allocs +10 % is exit 3, not 0."""
        p = subprocess.Popen([os.path.join(BIN, "regtrack"), "test", "--tree", "demo",
                              "--base", self.tree["c0"], "--head", self.tree["c1"],
                              "--testcase", "small-allocs", "--testcase", "execl",
                              "--target", "x86_64", "--kconfig", "x86_64-defconfig",
                              "--repeat", "6", "--wait", "--gate",
                              "--server", self.srv.url, "--token", self.srv.tokens["submit"],
                              "--poll", "0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        level = {("small-allocs", "base"): 1000.0, ("small-allocs", "head"): 1100.0,
                 ("execl", "base"): 1000.0, ("execl", "head"): 970.0}
        spread = {"small-allocs": 1.0, "execl": 40.0}
        try:
            wait_until(lambda: self.srv.get("/api/v1/requests?state=queued").json(),
                       what="the request")
            self.drain("w2p", lambda job, i: level[job["testcase"], job["side"]]
                       + spread[job["testcase"]] * ((job["round"] * 2 + i) % 3))
            out, err = p.communicate(timeout=60)
        finally:
            p.kill()
        self.assertIn("verdict: improvement", out)
        self.assertEqual(p.returncode, 3, out + err)
        self.assertRegex(err, r"regtrack test: gate: need-more-runs: " + re.escape(METRIC)
                         + r" -3\.\d% with 6 vs 6 runs \(Hodges-Lehmann shift; p 0\.[0-9]+; "
                         r"x86_64 execl\)")
        self.assertIn("regtrack test: gate: undecided: 1 of 2 deciding rows need more runs", err)
        self.assertNotIn("small-allocs)", err)

    def test_cli_help_params_and_json(self):
        # --help is an answer, not a usage error
        r = subprocess.run([os.path.join(BIN, "regtrack"), "test", "--help"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r)
        self.assertIn("usage: regtrack test", r.stdout)
        # a second --params adds to the first instead of replacing it
        r = self.cli("--tree", "demo", "--base", self.tree["c0"], "--head", self.tree["c1"],
                     "--testcase", "small-allocs", "--params", "nr_task=3",
                     "--params", "runtime=2", "--target", "x86_64",
                     "--kconfig", "x86_64-defconfig", "--repeat", "2")
        self.assertEqual(r.returncode, 0, r)
        q = self.get(json.loads(r.stdout)["id"])
        self.assertEqual(self.srv.psql("SELECT DISTINCT params::text FROM jobs "
                                       "WHERE request_id = %d" % q["id"]),
                         '{"nr_task": 3, "runtime": 2}')
        self.srv.post("/api/v1/requests/%d/cancel" % q["id"], scope="submit")
        # --json --wait: stdout is one JSON document, the verdict inside it
        rc, out, err = self.cli_with_worker(lambda i: 1000.0 + i % 3, lambda i: 950.0 + i % 3,
                                            "--head", self.tree["c1"], "--repeat", "6",
                                            "--wait", "--json")
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(json.loads(out)["verdict"], "regression")

    def test_cli_plan(self):
        """regtrack test --plan: the plan gives tree, testcases, targets and kconfig."""
        self.plan("ab-cli", testcases=[{"testcase": "small-allocs", "params": {"nr_task": 5}}],
                  kconfigs=["x86_64-tiny-mm"], targets=["x86_64"], repeat=3)
        r = self.cli("--plan", "ab-cli", "--base", "v1", "--head", "master")
        self.assertEqual(r.returncode, 0, r.stderr)
        q = self.get(json.loads(r.stdout)["id"])
        self.assertEqual((q["plan"], q["tree"], q["targets"], q["kconfig"], q["repeat"]),
                         ("ab-cli", "demo", ["x86_64"], "x86_64-tiny-mm", 3))
        self.assertEqual(q["testcases"], [{"testcase": "small-allocs", "params": {"nr_task": 5}}])
        self.assertEqual((q["base"]["sha"], q["head"]["sha"]), (self.tree["c0"], self.tree["c1"]))
        # the command line's own fields win
        r = self.cli("--plan", "ab-cli", "--base", "v1", "--head", "master", "--testcase",
                     "small-allocs", "--params", "nr_task=7", "--repeat", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        q = self.get(json.loads(r.stdout)["id"])
        self.assertEqual((q["testcases"], q["repeat"]),
                         ([{"testcase": "small-allocs", "params": {"nr_task": 7}}], 2))
        # without a plan, tree, testcase and target are needed; the server names a bad plan
        r = self.cli("--base", "v1", "--head", "master")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--tree, --testcase and --target are needed", r.stderr)
        r = self.cli("--plan", "no-such", "--base", "v1", "--head", "master")
        self.assertEqual(r.returncode, 2)
        self.assertIn("server answered 404: no plan 'no-such'", r.stderr)

    def test_cli_job_and_compare_resolve_refs(self):
        """job submit --commit and compare --base/--head take refs as regtrack test does."""
        env_args = ["--server", self.srv.url, "--token", self.srv.tokens["submit"]]

        def regtrack(*args):
            return subprocess.run([os.path.join(BIN, "regtrack")] + list(args) + env_args,
                                  capture_output=True, text=True, timeout=60)
        r = regtrack("job", "submit", "--tree", "demo", "--commit", "v1", "--kconfig",
                     "x86_64-defconfig", "--testcase", "small-allocs", "--params", "nr_task=1")
        self.assertEqual(r.returncode, 0, r.stderr)
        job = self.srv.get("/api/v1/jobs/%d" % json.loads(r.stdout)["id"]).json()
        self.assertEqual(job["commit"], self.tree["c0"])
        self.srv.post("/api/v1/jobs/%d/cancel" % job["id"], scope="submit")
        r = regtrack("job", "submit", "--tree", "demo", "--commit", "no-such-branch",
                     "--kconfig", "x86_64-defconfig", "--testcase", "small-allocs")
        self.assertEqual(r.returncode, 2)
        self.assertIn("'no-such-branch' is not a commit of tree 'demo' (commit)", r.stderr)
        r = regtrack("job", "submit", "--commit", "master", "--kconfig", "host",
                     "--testcase", "small-allocs", "--tbox-group", "vm-2p")
        self.assertEqual(r.returncode, 2)
        self.assertIn("(or, with 'tree', a ref)", r.stderr)
        _, machine = self.worker("w2p")
        for commit, v in ((self.tree["c0"], 100.0), (self.tree["c1"], 90.0)):
            for i in range(3):
                doc = result_doc(commit, testcase="refcmp", tree="demo", machine=machine,
                                 params={}, metrics={"refcmp.ops": [v + i]})
                self.assertEqual(self.srv.post("/api/v1/results", doc, scope="submit").status,
                                 201)
        r = regtrack("compare", "--tree", "demo", "--base", "v1", "--head", "master",
                     "--testcase", "refcmp")
        self.assertEqual(r.returncode, 0, r.stderr)
        reply = json.loads(r.stdout)
        self.assertEqual((reply["base"]["sha"], reply["head"]["sha"]),
                         (self.tree["c0"], self.tree["c1"]))
        self.assertEqual([x["metric"] for x in reply["rows"]], ["refcmp.ops"])
        r = regtrack("compare", "--base", "v1", "--head", "master")
        self.assertEqual(r.returncode, 2)
        self.assertIn("(or, with 'tree', a ref)", r.stderr)

    def test_cli_table_with_monitors(self):
        """The test's metrics first; a monitor row only where it differs; no nan; LKP numbers."""
        p = subprocess.Popen([os.path.join(BIN, "regtrack"), "test", "--tree", "demo",
                              "--base", self.tree["c0"], "--head", self.tree["c1"],
                              "--testcase", "small-allocs", "--target", "x86_64",
                              "--kconfig", "x86_64-defconfig", "--monitors", "perf-stat",
                              "--repeat", "6", "--wait", "--poll", "0.2",
                              "--server", self.srv.url, "--token", self.srv.tokens["submit"]],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_until(lambda: self.srv.get("/api/v1/requests?state=queued").json(),
                       what="the request")
            m, doc = self.worker("w2p")
            while True:
                job = self.lease("w2p")
                if not job:
                    break
                head = job["side"] == "head"
                results = []
                for i in range(job["repeat"]):
                    k = job["round"] * 2 + i
                    metrics = {METRIC: [(950.0 if head else 1000.0) + k % 3],
                               "perf-stat.instructions": [(2e6 if head else 1e6) + k % 5],
                               "perf-stat.ipc": [1.25 + (k % 2) * 0.01],
                               "perf-stat.page-faults": [0.0]}
                    results.append(result_doc(job["commit"], testcase=job["testcase"],
                                              job_id=job["id"], params=job["params"],
                                              kconfig=job["kconfig"],
                                              compiler=job["compiler"], tree="demo",
                                              machine=doc, metrics=metrics,
                                              monitors=job["monitors"]))
                r = self.srv.post("/api/v1/jobs/%d/complete" % job["id"],
                                  {"machine_id": m, "status": "ok", "log_tail": "ok\n",
                                   "results": results}, scope="worker")
                self.assertEqual(r.status, 200, r)
            out, err = p.communicate(timeout=60)
        finally:
            p.kill()
        self.assertEqual(p.returncode, 0, out + err)
        lines = out.splitlines()
        self.assertNotIn("nan", out.lower())
        at = {name: next(i for i, l in enumerate(lines) if name in l)
              for name in (METRIC, "monitors, the rows that differ:", "perf-stat.instructions")}
        self.assertLess(at[METRIC], at["monitors, the rows that differ:"])
        self.assertLess(at["monitors, the rows that differ:"], at["perf-stat.instructions"])
        # LKP's number format: 1000002 and 2000002, never 1e+06
        self.assertRegex(lines[at["perf-stat.instructions"]], r"^\s+1000002 .* 2000002 ")
        self.assertNotIn("e+06", out)
        self.assertNotIn("perf-stat.ipc", out)
        self.assertNotIn("perf-stat.page-faults", out)
        self.assertIn("(2 monitor rows that did not differ not shown: --json has them)", out)

    def test_cli_exit_codes(self):
        c1 = self.tree["c1"]
        rc, out, err = self.cli_with_worker(lambda i: 1000.0 + i % 3, lambda i: 950.0 + i % 3,
                                            "--head", c1, "--repeat", "6", "--wait", "--gate")
        self.assertEqual(rc, 1, out + err)
        self.assertIn("regression", out)
        self.assertIn(METRIC, out)
        rc, out, err = self.cli_with_worker(lambda i: 1000.0 + i % 3, lambda i: 1000.0 + i % 3,
                                            "--head", c1, "--repeat", "6", "--wait", "--gate",
                                            "--min-change-pct", "2")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("no-change", out)
        # a regression without --gate is not a failure of the command
        rc, out, err = self.cli_with_worker(lambda i: 1000.0 + i % 3, lambda i: 950.0 + i % 3,
                                            "--head", c1, "--repeat", "6", "--wait")
        self.assertEqual(rc, 0, out + err)
        # usage and input errors: 2
        r = self.cli("--tree", "demo", "--base", self.tree["c0"], "--testcase", "x",
                     "--target", "x86_64")
        self.assertEqual(r.returncode, 2, r)
        self.assertIn("--head", r.stderr)
        r = self.cli("--tree", "demo", "--base", "no-such-ref", "--head", c1,
                     "--testcase", "x", "--target", "x86_64")
        self.assertEqual(r.returncode, 2, r)
        self.assertIn("base", r.stderr)
        with tempfile.NamedTemporaryFile("w", suffix=".mbox") as f:
            f.write(self.tree["mbox"])
            f.flush()
            # cannot complete: the apply fails on the worker (3); a timeout is 3 as well
            p = subprocess.Popen([os.path.join(BIN, "regtrack"), "test", "--tree", "demo",
                                  "--base", self.tree["c0"], "--patches", f.name,
                                  "--testcase", "small-allocs", "--target", "x86_64",
                                  "--repeat", "2", "--wait", "--gate", "--poll", "0.2",
                                  "--server", self.srv.url, "--token", self.srv.tokens["submit"]],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            wait_until(lambda: self.srv.get("/api/v1/requests?state=queued").json(),
                       what="the request")
            job = self.lease("w2p")
            self.complete("w2p", job, [1.0])
            job = self.lease("w2p")
            self.complete("w2p", job, [], status="run-failed",
                          log_tail="apply-failed: git am: patch does not apply\n")
            out, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 3, out + err)
            self.assertIn("patch does not apply", out + err)
            r = self.cli("--tree", "demo", "--base", self.tree["c0"], "--patches", f.name,
                         "--testcase", "small-allocs", "--target", "x86_64", "--repeat", "2",
                         "--wait", "--timeout", "1", "--poll", "0.2")
            self.assertEqual(r.returncode, 3, r)
            self.assertIn("timed out", r.stderr)
            # given up on, the request does not stay queued for the workers
            self.assertIn("; cancelled", r.stderr)
            rid = int(re.search(r"request (\d+) timed out", r.stderr).group(1))
            self.assertEqual(self.get(rid)["state"], "cancelled")


if __name__ == "__main__":
    unittest.main()
