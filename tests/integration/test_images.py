"""Identical images end to end: the real server, a git tree made
here whose commits edit mm/ or only Documentation/, and fake workers that
build like the real one: the image hash is the SHA-256 of the commit's
files outside Documentation/ (a Documentation/-only commit builds its
parent's kernel), sent with every run, and a job whose image is among the
lease's skip_images is completed `same-image` without a run
(worker/execute.h). Checked: a bisect takes the runs of an identical image
and never names a commit identical to its parent; a range whose two ends
are one image ends as a change of environment; a tracking job whose
commit builds its parent's image runs nothing."""
import hashlib
import os
import random
import urllib.parse
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Cluster, Server, result_doc, wait_until  # noqa: E402
from fakes import FakeWorker, git, git_init, stop_tree_server, tree_server, wait_bisect_end  # noqa: E402

METRIC = "vm-scalability.throughput"
N_COMMITS = 30
CULPRIT = 18
_clock = [0]


def edit(repo, path, msg):
    _clock[0] += 1
    n = _clock[0]
    full = os.path.join(repo, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "a") as f:
        f.write("%d\n" % n)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", msg, date="2026-03-01T%02d:%02d:00Z" % (n // 60, n % 60))
    return git(repo, "rev-parse", "HEAD")


def doc_only(i):
    """Commits 1..N: two in three are Documentation/ edits, never the culprit."""
    return i % 3 != 0 and i != CULPRIT


def make_tree(path):
    git_init(path)
    shas = [edit(path, "mm/mmap.c", "mm: base")]
    for i in range(1, N_COMMITS + 1):
        shas.append(edit(path, "Documentation/mm/notes.rst" if doc_only(i) else "mm/mmap.c",
                         ("docs: note %d" if doc_only(i) else "mm: change %d") % i))
    return shas


def image_of(repo, commit):
    """What a reproducible build of commit gives: a hash of everything it compiles."""
    files = [line for line in git(repo, "ls-tree", "-r", commit).splitlines()
             if not line.split("\t", 1)[1].startswith("Documentation/")]
    return hashlib.sha256("\n".join(files).encode()).hexdigest()


class ImageWorker(FakeWorker):
    """A FakeWorker that builds: image_sha256 in its completion and runs, and
    same-image for a job whose image the lease says is measured."""

    def __init__(self, srv, name, stop, values, repo, tree):
        super().__init__(srv, name, stop, values, tree=tree)
        self.repo = repo
        self.same_image = []  # (job id, commit) of each job completed same-image

    def body(self, job):
        img = image_of(self.repo, job["commit"])
        for e in job.get("skip_images") or []:
            if e["image_sha256"] == img:
                self.same_image.append((job["id"], job["commit"]))
                return {"machine_id": self.machine, "status": "same-image", "log_tail": "",
                        "image_sha256": img, "same_image_as": e["commit"]}
        self.doc_extra = {"image_sha256": img,
                          "host_fingerprint": {"cpu_model": "fake", "microcode": "0x1"}}
        b = super().body(job)
        b["image_sha256"] = img
        return b


class Images(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.shas, cls.srv = tree_server(
            "regtrack-images-", make_tree,
            "detect_enabled = 0\npoll_tick_ms = 100\nmail_cc = perf@example.org\n")
        r = cls.srv.post("/api/v1/trees", {"name": "demo", "url": cls.repo,
                                           "branches": ["master"], "poll_s": 0}, scope="admin")
        assert r.status == 200, r

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def bisect(self, good, bad, values, n_workers=2, params=None):
        stop = threading.Event()
        workers = [ImageWorker(self.srv, "img-%d-%s" % (i, good[:6]), stop, values, self.repo,
                               "demo") for i in range(n_workers)]
        for w in workers:
            w.start()
        try:
            r = self.srv.post("/api/v1/bisects", {
                "tree": "demo", "good": good, "bad": bad, "testcase": "vm-scalability",
                "params": params or {"test": "small-allocs"}, "kconfig": "x86_64-defconfig",
                "compiler": "gcc-12", "tbox_group": "vm-2p", "metric": METRIC}, scope="submit")
            self.assertEqual(r.status, 201, r)
            b = wait_bisect_end(self.srv, r.json()["id"], 90)
        finally:
            stop.set()
            for w in workers:
                w.join(10)
        return b, [s for w in workers for s in w.same_image]

    def test_bisect_takes_runs_of_identical_images(self):
        shas = self.shas
        index_of = {s: i for i, s in enumerate(shas)}

        def values(job, rng):
            i = index_of[job["commit"]]
            return {METRIC: [(950.0 if i >= CULPRIT else 1000.0) + rng.gauss(0, 10)]}
        b, same = self.bisect(shas[0], shas[-1], values)
        self.assertEqual((b["state"], b["outcome"]), ("done", "found"), b.get("reason"))
        self.assertEqual(b["first_bad_commit"]["sha"], shas[CULPRIT])
        self.assertIsNone(b["first_bad_commit"]["outside_build"])
        # the named commit built a kernel of its own
        self.assertNotEqual(image_of(self.repo, shas[CULPRIT]),
                            image_of(self.repo, shas[CULPRIT - 1]))
        # probes of identical images were built, not run: no runs, outcome same-image
        self.assertTrue(same, "no probe landed on an identical image")
        bid = b["id"]
        for job_id, commit in same:
            self.assertTrue(doc_only(index_of[commit]) or
                            image_of(self.repo, commit) in
                            {image_of(self.repo, s) for s in shas if s != commit})
            self.assertEqual(self.srv.psql(
                "SELECT outcome || ' ' || count(r.id) FROM jobs j LEFT JOIN runs r ON "
                "r.job_id = j.id WHERE j.id = %d GROUP BY j.outcome" % job_id), "same-image 0")
        self.assertEqual(self.srv.psql(
            "SELECT count(*) FROM jobs WHERE bisect_id = %d AND outcome = 'same-image' "
            "AND same_image_as IS NOT NULL AND image_sha256 IS NOT NULL" % bid), str(len(same)))
        # the page's data: each such commit's step says whose runs it took
        steps = [s for s in b["steps"] if s["commit"] in {c for _, c in same}]
        self.assertTrue(steps)
        for s in steps:
            twin = s["evidence"]["same_image_as"]
            self.assertNotEqual(twin, s["commit"])
            self.assertEqual(image_of(self.repo, twin), image_of(self.repo, s["commit"]))
            self.assertGreater(s["evidence"]["n"], 0)
            self.assertIn(s["verdict"], ("good", "bad", "unknown"))
        # every run stored its image (the generated column) and host fingerprint
        self.assertEqual(self.srv.psql(
            "SELECT count(*) FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.bisect_id = %d "
            "AND (r.image_sha256 IS NULL OR r.host_fingerprint->>'microcode' <> '0x1')" % bid),
            "0")

    def test_mail_table_base_is_the_parents_image(self):
        """The culprit's parent is a Documentation/ edit, one image with the good
        commit: it runs nothing, and the mail's table compares the commit whose runs
        stood for it, saying so (without runs at the parent the table was empty)."""
        shas = self.shas
        index_of = {s: i for i, s in enumerate(shas)}
        self.assertEqual(image_of(self.repo, shas[CULPRIT - 1]), image_of(self.repo, shas[15]))

        def values(job, rng):
            return {METRIC: [(950.0 if index_of[job["commit"]] >= CULPRIT else 1000.0) +
                             rng.gauss(0, 10)]}
        b, same = self.bisect(shas[15], shas[CULPRIT], values, params={"test": "table"})
        self.assertEqual((b["state"], b["outcome"]), ("done", "found"), b.get("reason"))
        self.assertEqual(b["first_bad_commit"]["sha"], shas[CULPRIT])
        parent = shas[CULPRIT - 1]
        psteps = [s for s in b["steps"] if s["commit"] == parent]
        self.assertTrue(psteps, "the parent was not a step")
        self.assertEqual([s["samples"] for s in psteps], [[]] * len(psteps))
        twin = psteps[-1]["evidence"]["same_image_as"]
        self.assertEqual(twin, shas[15])
        mail_dir = os.path.join(self.tmp, "mail")

        def mail_of():
            for m in sorted(os.listdir(mail_dir)) if os.path.isdir(mail_dir) else []:
                t = open(os.path.join(mail_dir, m), errors="replace").read().replace("=\n", "")
                if shas[CULPRIT][:12] in t and "table" in t:
                    return t
            return None
        mail = wait_until(mail_of, timeout=30, what="the bisect's mail")
        self.assertIn("%s stands for the parent %s: the same kernel image"
                      % (twin[:12], parent[:12]), mail)
        # the pages' table uses the same runs (it compared the parent itself, 0
        # runs, "need more runs" beside the verification's "different"): the bisect and
        # its regression say which commit stands for the parent, by the mail's rule
        b = self.srv.get("/api/v1/bisects/%d" % b["id"]).json()
        self.assertEqual(b["parent_stand_in"], {"sha": twin, "subject": "mm: change 15"})
        rid = b["regression_id"]
        self.assertTrue(rid)
        story = self.srv.get("/api/v1/regressions/%d" % rid).json()
        self.assertEqual(story["bisect"]["parent_stand_in"]["sha"], twin)
        cmp = self.srv.get("/api/v1/compare?" + urllib.parse.urlencode({
            "base": b["parent_stand_in"]["sha"], "head": shas[CULPRIT], "testcase": "vm-scalability",
            "params": '{"test": "table"}', "monitors": "none"})).json()
        rows = [r for r in cmp["rows"] if r["metric"] == METRIC]
        self.assertEqual(len(rows), 1, cmp)
        self.assertEqual(rows[0]["verdict"], "different", rows[0])
        self.assertEqual(rows[0]["n"], b["verification"]["n"], (rows[0], b["verification"]))
        # its profile round ran the parent too (profiled runs are a setup of their own: the
        # unprofiled twin's image is no reason to skip it), so the profile diff has both sides
        pd = self.srv.get("/api/v1/bisects/%d/profile-diff" % b["id"]).json()
        self.assertEqual((pd["base"]["commit"], pd["head"]["commit"]), (parent, shas[CULPRIT]))
        self.assertGreaterEqual(pd["base"]["runs"], 5)
        self.assertGreaterEqual(pd["head"]["runs"], 5)
        # the table's row of the bisected metric: about -5 % between the two commits
        row = [ln for ln in mail.splitlines() if ln.rstrip().endswith(METRIC)]
        self.assertEqual(len(row), 1, mail)
        pct = float(next(w for w in row[0].split() if w.endswith("%") and w[0] in "+-")[:-1])
        self.assertLess(pct, -3)
        self.assertGreater(pct, -7)

    def test_culprit_outside_the_build_is_flagged(self):
        """Workers that send no image (older ones): a Documentation/-only commit can be
        named; the bisect's API and its mail flag it."""
        shas = self.shas
        index_of = {s: i for i, s in enumerate(shas)}
        stop = threading.Event()
        workers = [FakeWorker(self.srv, "plain-%d" % i, stop, lambda job, rng: {METRIC: [
            (950.0 if index_of[job["commit"]] >= 2 else 1000.0) + rng.gauss(0, 10)]},
            tree="demo") for i in range(2)]
        for w in workers:
            w.start()
        try:
            r = self.srv.post("/api/v1/bisects", {
                "tree": "demo", "good": shas[0], "bad": shas[3], "testcase": "vm-scalability",
                "params": {"test": "plain"}, "kconfig": "x86_64-defconfig", "compiler": "gcc-12",
                "tbox_group": "vm-2p", "metric": METRIC}, scope="submit")
            self.assertEqual(r.status, 201, r)
            b = wait_bisect_end(self.srv, r.json()["id"], 90)
        finally:
            stop.set()
            for w in workers:
                w.join(10)
        self.assertEqual((b["state"], b["outcome"]), ("done", "found"), b.get("reason"))
        self.assertEqual(b["first_bad_commit"]["sha"], shas[2])
        self.assertEqual(b["first_bad_commit"]["outside_build"], ["Documentation/"])
        # its parent ran itself (no images here): nothing stands for it
        self.assertIsNone(b["parent_stand_in"])
        mail_dir = os.path.join(self.tmp, "mail")
        wait_until(lambda: os.path.isdir(mail_dir) and any(
            shas[2][:12] in open(os.path.join(mail_dir, m), errors="replace").read()
            for m in os.listdir(mail_dir)), timeout=30, what="the bisect's mail")
        text = [open(os.path.join(mail_dir, m), errors="replace").read()
                for m in os.listdir(mail_dir)]
        mail = [t for t in text if shas[2][:12] in t][0]
        self.assertIn("this commit touches only Documentation/, which the x86_64-defconfig "
                      "kernel does not build", mail.replace("=\n", "").replace("\n", " "))

    def test_range_of_one_image_is_an_environment_change(self):
        shas = self.shas
        # 3 edits mm/, 4 and 5 only Documentation/: the range 3..5 builds one kernel
        good, bad = shas[3], shas[5]
        self.assertEqual(image_of(self.repo, good), image_of(self.repo, bad))

        def values(job, rng):
            # the "bad" runs are slower though the kernel is the same: the machine changed
            return {METRIC: [(950.0 if job["commit"] == bad else 1000.0) + rng.gauss(0, 10)]}
        b, _ = self.bisect(good, bad, values, params={"test": "env"})
        self.assertEqual((b["state"], b["outcome"]), ("done", "environment"), b)
        self.assertIsNone(b.get("first_bad_commit"))
        self.assertIn("identical kernel images", b["reason"])
        self.assertIn("environment", b["reason"])

    def test_tracking_skips_a_commit_of_its_parents_image(self):
        srv, repo = self.srv, self.repo
        plan = {"name": "img", "tree": "demo", "branches": ["master"],
                "testcases": [{"testcase": "small-allocs", "params": {"nr_task": 1}}],
                "kconfigs": ["x86_64-defconfig"], "compilers": ["gcc-12"], "targets": ["vm-2p"],
                "repeat": 2, "measure": "icount",
                "schedule": {"heads": True, "every": 0, "paths": [], "max_per_push": 50},
                "priority": 0, "owner": "mm-perf@example.org", "enabled": True}
        r = srv.post("/api/v1/plans", plan, scope="admin")
        self.assertEqual(r.status, 201, r)
        stop = threading.Event()
        w = ImageWorker(srv, "img-track", stop, lambda job, rng: {"small-allocs.throughput":
                                                                   [100.0 + rng.gauss(0, 1)]},
                        repo, "demo")
        w.start()

        def poll():
            before = srv.psql("SELECT polls FROM trees WHERE name = 'demo'")
            r = srv.post("/api/v1/trees/demo/poll", scope="submit")
            self.assertEqual(r.status, 202, r)
            wait_until(lambda: srv.psql("SELECT polls FROM trees WHERE name = 'demo'") != before,
                       timeout=60, what="a poll")

        def job_of(commit):
            wait_until(lambda: srv.psql(
                "SELECT count(*) FROM jobs j JOIN commits c ON c.id = j.commit_id WHERE "
                "c.sha = '%s' AND j.plan_id IS NOT NULL AND j.state = 'done'" % commit) == "1",
                timeout=60, what="the job of " + commit[:12])
            return srv.psql(
                "SELECT j.outcome || ' ' || coalesce(j.same_image_as, '-') || ' ' || "
                "(SELECT count(*) FROM runs r WHERE r.job_id = j.id) FROM jobs j JOIN commits c "
                "ON c.id = j.commit_id WHERE c.sha = '%s' AND j.plan_id IS NOT NULL" % commit)
        try:
            poll()
            head = self.shas[-1]
            self.assertEqual(job_of(head), "ok - 2")
            docs = edit(repo, "Documentation/admin-guide/README.rst", "docs: a typo")
            poll()
            self.assertEqual(job_of(docs), "same-image %s 0" % head)
            code = edit(repo, "mm/mmap.c", "mm: a real change")
            poll()
            self.assertEqual(job_of(code), "ok - 2")
        finally:
            stop.set()
            w.join(10)
        self.assertEqual([c for _, c in w.same_image], [docs])


class HostFingerprints(unittest.TestCase):
    """A step where the runs' host fingerprint changes is an environment change:
    the compare API names the fields, the record carries them, and it is never
    auto-bisected; the same step on one host is an ordinary regression."""

    @classmethod
    def setUpClass(cls):
        cls.srv = Server()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def upload(self, label, params, microcode_from):
        rnd = random.Random(label)
        for i in range(30):
            level = 1000.0 * (0.9 if i >= 15 else 1.0)
            fp = {"cpu_model": "Xeon", "microcode": "0x2" if i >= microcode_from else "0x1",
                  "cpufreq_governor": "performance", "kernel_release": "6.1.0",
                  "cmdline": "quiet"}
            for _ in range(3):
                doc = result_doc(hashlib.sha1(("%s-%d" % (label, i)).encode()).hexdigest(),
                                 testcase="fp-test", params=params,
                                 metrics={METRIC: [level * (1 + rnd.gauss(0, 0.01))]},
                                 commit_time="2026-01-01T00:%02d:00Z" % i,
                                 commit_subject="%s %d" % (label, i), host_fingerprint=fp)
                r = self.srv.post("/api/v1/results", doc, scope="submit")
                self.assertEqual(r.status, 201, r)

    def test_step_at_a_microcode_update_is_an_environment_change(self):
        srv = self.srv
        self.upload("fpa", {"case": "env"}, 15)     # the microcode changed with the step
        self.upload("fpb", {"case": "code"}, 99)    # one host all along
        wait_until(lambda: srv.psql("SELECT count(*) FROM detect_queue") == "0", timeout=120,
                   what="detection")
        recs = srv.get("/api/v1/regressions?" + urllib.parse.urlencode(
            {"testcase": "fp-test"})).json()["regressions"]
        env = [x for x in recs if x["params"] == {"case": "env"}]
        code = [x for x in recs if x["params"] == {"case": "code"}]
        self.assertEqual(len(env), 1, env)
        self.assertEqual(len(code), 1, code)
        self.assertEqual(env[0]["environment"]["fields"], ["microcode"])
        self.assertEqual([f["microcode"] for f in env[0]["environment"]["before"]], ["0x1"])
        self.assertEqual([f["microcode"] for f in env[0]["environment"]["after"]], ["0x2"])
        self.assertIsNone(code[0]["environment"])
        # the comparison of the two commits says so too
        sha = lambda label, i: hashlib.sha1(("%s-%d" % (label, i)).encode()).hexdigest()
        c = srv.get("/api/v1/compare?base=%s&head=%s" % (sha("fpa", 14), sha("fpa", 15))).json()
        self.assertEqual((c["host_fingerprints"]["differ"], c["host_fingerprints"]["fields"]),
                         (True, ["microcode"]))
        q = "/api/v1/compare?base=%s&head=%s" % (sha("fpb", 14), sha("fpb", 15))
        c = srv.get(q, scope="read").json()
        self.assertEqual((c["host_fingerprints"]["differ"], c["host_fingerprints"]["fields"]),
                         (False, []))
        self.assertEqual(len(c["host_fingerprints"]["base"]), 1)
        self.assertEqual(c["host_fingerprints"]["base"][0]["microcode"], "0x1")
        # without a token whether and where the hosts differ, not their facts (README
        # "Security: what is public"); a run's own fingerprint likewise
        c = srv.get(q).json()
        self.assertEqual(c["host_fingerprints"], {"differ": False, "fields": []})
        rid = srv.psql("SELECT run_id FROM runs WHERE host_fingerprint IS NOT NULL LIMIT 1")
        full = srv.get("/api/v1/runs/" + rid, scope="read").json()
        anon = srv.get("/api/v1/runs/" + rid).json()
        self.assertIn("microcode", full["extra"]["host_fingerprint"])
        self.assertNotIn("host_fingerprint", anon["extra"])
        self.assertEqual({k: v for k, v in full["extra"].items() if k != "host_fingerprint"},
                         anon["extra"])


class AccelChange(unittest.TestCase):
    """A job that names no accel runs under KVM or TCG as the worker's probe
    finds; each run's host fingerprint names the accelerator it used
    (worker/fingerprint.h). A box whose KVM stops working turns its series
    from KVM into TCG: that step is an environment change, never bisected
    (auto_bisect on here), while the same step under one accelerator is a
    regression that is. Runs from before the worker sent accel are not
    compared on it."""

    @classmethod
    def setUpClass(cls):
        conf = os.path.join(Cluster.get().tmp, "server-accel-%d.conf" % os.getpid())
        with open(conf, "w") as f:
            f.write("auto_bisect = 1\nauto_bisect_min_pct = 2\ndetect_poll_ms = 100\n"
                    "bisect_poll_ms = 100\n")
        cls.srv = Server(["--config", conf])

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def upload(self, label, accel_of, factor):
        """30 commits, 3 runs each, the level times factor from commit 15 on; accel_of(i)
        the accelerator commit i's runs used (None: a worker that did not send it)."""
        rnd = random.Random(label)
        for i in range(30):
            level = 1000.0 * (factor if i >= 15 else 1.0)
            fp = {"cpu_model": "Xeon", "microcode": "0x1", "cpufreq_governor": "performance",
                  "kernel_release": "6.1.0", "cmdline": "quiet", "numa_nodes": "0:0-3"}
            extra = {}
            if accel_of(i):
                fp["accel"] = extra["accel"] = accel_of(i)
            for _ in range(3):
                doc = result_doc(hashlib.sha1(("%s-%d" % (label, i)).encode()).hexdigest(),
                                 testcase="accel-test", params={"case": label},
                                 metrics={METRIC: [level * (1 + rnd.gauss(0, 0.01))]},
                                 commit_time="2026-01-01T00:%02d:00Z" % i,
                                 commit_subject="%s %d" % (label, i), host_fingerprint=fp,
                                 **extra)
                r = self.srv.post("/api/v1/results", doc, scope="submit")
                self.assertEqual(r.status, 201, r)

    def test_kvm_to_tcg_is_an_environment_change_and_not_bisected(self):
        srv = self.srv
        # an older worker (no accel) up to commit 4, KVM from 5, TCG (KVM gone) from 15
        self.upload("switch", lambda i: None if i < 5 else "kvm" if i < 15 else "tcg", 0.1)
        # the control: KVM all along, a real 10 % step at 15
        self.upload("kvm", lambda i: None if i < 5 else "kvm", 0.9)

        def recs():
            r = srv.get("/api/v1/regressions?" + urllib.parse.urlencode(
                {"testcase": "accel-test"}))
            self.assertEqual(r.status, 200, r)
            return {x["params"]["case"]: x for x in r.json()["regressions"]}
        # the control's regression is confirmed and bisected by itself ...
        wait_until(lambda: recs().get("kvm", {}).get("bisect_id"), timeout=120,
                   what="the bisect of the KVM-only step")
        # ... and passes of the coordinator later, the accelerator's step is not
        time.sleep(2)
        got = recs()
        self.assertEqual(sorted(got), ["kvm", "switch"], got)
        env, code = got["switch"], got["kvm"]
        self.assertEqual(env["environment"]["fields"], ["accel"], env)
        self.assertEqual([f["accel"] for f in env["environment"]["before"]], ["kvm"])
        self.assertEqual([f["accel"] for f in env["environment"]["after"]], ["tcg"])
        self.assertIsNone(env["bisect_id"], env)
        self.assertNotIn(env["state"], ("bisecting", "bisected"), env)
        self.assertIsNone(code["environment"], code)
        self.assertEqual(srv.psql(
            "SELECT count(*) FROM bisects b JOIN regressions r ON r.id = b.regression_id "
            "JOIN setups s ON s.id = r.setup_id WHERE s.params->>'case' = 'switch'"), "0")
        # the comparison across the switch names it; one across the worker's upgrade (no
        # accel before, kvm after) does not
        sha = lambda label, i: hashlib.sha1(("%s-%d" % (label, i)).encode()).hexdigest()
        c = srv.get("/api/v1/compare?base=%s&head=%s" % (sha("switch", 14), sha("switch", 15)),
                    scope="read").json()
        self.assertEqual((c["host_fingerprints"]["differ"], c["host_fingerprints"]["fields"]),
                         (True, ["accel"]))
        c = srv.get("/api/v1/compare?base=%s&head=%s" % (sha("switch", 4), sha("switch", 5)),
                    scope="read").json()
        self.assertEqual((c["host_fingerprints"]["differ"], c["host_fingerprints"]["fields"]),
                         (False, []))


if __name__ == "__main__":
    unittest.main()
