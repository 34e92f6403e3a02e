"""Bisect over a history with a merge: the first-parent chain is narrowed to
the merge, then the bisect descends into the merged side branch.

The tree, made here: master c0..c15 and c16..c20, a side branch s1..s20
forked at c5 and merged (--no-ff) after c15 as M:

    c0 - ... - c5 - ... - c15 - M - c16 - ... - c20
                \\              /
                 s1 - ... - s20

good = c0, bad = c20. The first-parent chain has 21 commits (c1..c15, M,
c16..c20); the range has 41. Fake workers speak the real worker protocol;
a commit is slow (950 vs 1000, noise sd 10) when it contains the culprit,
which the test names per case through the job's params:
  - side: the culprit is s13 -> first bad s13, found on level 1;
  - merge: the culprit is M itself (both parents good) -> first bad M;
  - spread: eight side commits (s2, s4, ..., s16) each make it 6.25 slower,
    so no one side commit holds the change: the side branch cannot be
    narrowed, and the answer stays M, found and verified on level 0.
"""
import os
import random
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakes import (FakeWorker, git, git_init, stop_tree_server, tree_server,  # noqa: E402
                   wait_bisect_end)

METRIC = "vm-scalability.throughput"
SIDE_CULPRIT = 13
WAIT_S = 90


def make_tree(path):
    """Returns {name: sha} for c0..c20, s1..s20 and M."""
    git_init(path)
    shas = {}
    t = [0]

    def commit(name):
        t[0] += 1
        date = "2026-01-01T01:%02d:%02dZ" % (t[0] // 60, t[0] % 60)
        git(path, "commit", "-q", "--allow-empty", "-m", "mm: %s" % name, date=date)
        shas[name] = git(path, "rev-parse", "HEAD")

    for i in range(6):
        commit("c%d" % i)
    git(path, "branch", "side")
    for i in range(6, 16):
        commit("c%d" % i)
    git(path, "checkout", "-q", "side")
    for i in range(1, 21):
        commit("s%d" % i)
    git(path, "checkout", "-q", "master")
    t[0] += 1
    git(path, "merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side",
        date="2026-01-01T01:%02d:%02dZ" % (t[0] // 60, t[0] % 60))
    shas["M"] = git(path, "rev-parse", "HEAD")
    for i in range(16, 21):
        commit("c%d" % i)
    return shas


def containing(repo, culprit, head):
    """The commits that contain `culprit` (it and its descendants up to head)."""
    out = git(repo, "rev-list", "--ancestry-path", "%s..%s" % (culprit, head))
    return set(out.split()) | {culprit}


def fake_worker(srv, name, slow, stop, drawn):
    """params.case picks the story: the side-branch culprit, the merge itself,
    or a change spread over eight side commits (6.25 each). The k-th run of a
    commit in a story gets the same noise whichever worker leases it and
    when (drawn counts the runs under its lock): a busy machine that changes
    the order of leases does not change what a bisect measures."""
    def values(job, rng):
        case = job["params"]["case"]
        if case == "spread":
            mean = 1000.0 - 6.25 * sum(job["commit"] in s for s in slow["spread"])
        else:
            mean = 950.0 if job["commit"] in slow[case] else 1000.0
        with drawn["lock"]:
            k = drawn.get((case, job["commit"]), 0)
            drawn[(case, job["commit"])] = k + 1
        return {METRIC: [mean + random.Random("%s-%s-%d" % (case, job["commit"], k)).gauss(0, 10)]}
    return FakeWorker(srv, name, stop, values, tree="merged")


class BisectMerge(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.c, cls.srv = tree_server(
            "regtrack-bisect-merge-", make_tree, "detect_enabled = 0\n")
        c = cls.c
        cls.slow = {"side": containing(cls.repo, c["s%d" % SIDE_CULPRIT], c["c20"]),
                    "merge": containing(cls.repo, c["M"], c["c20"]),
                    "spread": [containing(cls.repo, c["s%d" % i], c["c20"]) for i in range(2, 17, 2)]}
        r = cls.srv.post("/api/v1/trees", {"name": "merged", "url": cls.repo,
                                           "branches": ["master"]}, scope="admin")
        assert r.status == 200, r
        cls.stop = threading.Event()
        drawn = {"lock": threading.Lock()}
        cls.workers = [fake_worker(cls.srv, "fake-%d" % i, cls.slow, cls.stop, drawn)
                       for i in range(3)]
        for w in cls.workers:
            w.start()

    @classmethod
    def tearDownClass(cls):
        cls.stop.set()
        for w in cls.workers:
            w.join(10)
        stop_tree_server(cls.srv, cls.tmp)

    def bisect(self, case, good="c0", variant=None):
        params = {"case": case}
        if variant:
            params["variant"] = variant
        r = self.srv.post("/api/v1/bisects", {
            "tree": "merged", "good": self.c[good], "bad": self.c["c20"],
            "testcase": "vm-scalability", "params": params,
            "kconfig": "x86_64-defconfig", "compiler": "gcc-12", "tbox_group": "vm-2p",
            "metric": METRIC}, scope="submit")
        self.assertEqual(r.status, 201, r)
        bid = r.json()["id"]
        b = wait_bisect_end(self.srv, bid, WAIT_S)
        if b["state"] in ("queued", "running"):
            self.fail("bisect %d still %s after %d s" % (bid, b["state"], WAIT_S))
        return b

    def common(self, b):
        c = self.c
        self.assertEqual(b["state"], "done", b.get("reason"))
        self.assertEqual(b["outcome"], "found")
        # level 0 walked the first-parent chain: c1..c15, M, c16..c20; the range has 41
        self.assertEqual((b["nr_candidates"], b["nr_range"]), (21, 41))
        # ... found the merge, verified it against its first parent, and descended
        self.assertEqual(b["level"], 1)
        self.assertEqual(len(b["descents"]), 1, b["descents"])
        d = b["descents"][0]
        self.assertEqual((d["level"], d["good"], d["bad"], d["merge"], d["merge_parent"]),
                         (0, c["c0"], c["c20"], c["M"], c["c15"]))
        self.assertEqual((d["nr_candidates"], d["side_commits"]), (21, 20))
        self.assertEqual(d["verification"]["parent"], c["c15"])
        self.assertEqual(d["verification"]["verdict"], "different")
        self.assertGreaterEqual(min(d["verification"]["n"]), 10)
        self.assertGreaterEqual(d["confidence"], 0.99)
        # steps of both levels; level 0 measured only first-parent commits, level 1 only
        # side-branch commits, the merge and its first parent
        name = {v: k for k, v in c.items()}
        steps = {0: [], 1: []}
        for s in b["steps"]:
            steps[s["level"]].append(s)
        first_parent = {"c%d" % i for i in range(0, 21)} | {"M"}
        side = {"s%d" % i for i in range(1, 21)}
        self.assertTrue(steps[0] and steps[1], b["steps"])
        self.assertLessEqual({name[s["commit"]] for s in steps[0]}, first_parent)
        self.assertLessEqual({name[s["commit"]] for s in steps[1]}, side | {"M", "c15"})
        self.assertTrue({name[s["commit"]] for s in steps[1]} & side)
        # level 0's last verdict on the merge: bad; on its first parent: good
        last0 = {}
        for s in steps[0]:
            last0[name[s["commit"]]] = s["verdict"]
        self.assertEqual((last0["M"], last0["c15"]), ("bad", "good"))
        # every good/bad verdict of either level agrees with the hidden culprit
        for s in b["steps"]:
            if s["verdict"] in ("good", "bad") and s["role"] != "good":
                self.assertEqual(s["verdict"] == "bad", s["commit"] in self.slow[b["params"]["case"]],
                                 (name[s["commit"]], s))
        # level 1 starts after level 0's last round: rounds keep counting
        self.assertLess(max(s["round"] for s in steps[0]), min(s["round"] for s in steps[1]))
        self.assertGreaterEqual(b["confidence"], 0.99)
        return steps

    def test_side_branch_commit_is_first_bad(self):
        b = self.bisect("side")
        self.common(b)
        c = self.c
        culprit = c["s%d" % SIDE_CULPRIT]
        self.assertEqual(b["first_bad_commit"]["sha"], culprit)
        self.assertEqual(b["first_bad_commit"]["subject"], "mm: s%d" % SIDE_CULPRIT)
        v = b["verification"]
        self.assertEqual((v["parent"], v["first_bad"]), (c["s%d" % (SIDE_CULPRIT - 1)], culprit))
        self.assertEqual(v["verdict"], "different")
        self.assertLess(v["change_pct"], -3)
        # the regression recorded for it: the side commit vs its own parent
        reg = self.srv.get("/api/v1/regressions/%d" % b["regression_id"]).json()
        self.assertEqual((reg["state"], reg["good"]["sha"], reg["bad"]["sha"]),
                         ("bisected", c["s%d" % (SIDE_CULPRIT - 1)], culprit))

    def test_merge_itself_is_first_bad(self):
        b = self.bisect("merge")
        steps = self.common(b)
        c = self.c
        self.assertEqual(b["first_bad_commit"]["sha"], c["M"])
        # verified on level 1 against the side branch's tip (its second parent), which
        # like its first parent (level 0) is good
        v = b["verification"]
        self.assertEqual((v["parent"], v["first_bad"]), (c["s20"], c["M"]))
        self.assertEqual(v["verdict"], "different")
        last1 = {}
        for s in steps[1]:
            last1[s["commit"]] = s["verdict"]
        self.assertEqual(last1[c["s20"]], "good")
        # no deeper level: the merge ends its own level
        self.assertEqual(len(b["descents"]), 1)

    def test_spread_side_branch_keeps_the_merge(self):
        b = self.bisect("spread")
        c = self.c
        self.assertEqual((b["state"], b["outcome"]), ("done", "found"), b.get("reason"))
        name = {v: k for k, v in c.items()}
        self.assertEqual(b["first_bad_commit"]["sha"], c["M"], (name[b["first_bad_commit"]["sha"]], b["verification"], b["model"], [(name[s["commit"]], s["round"], s["verdict"], s["evidence"]["mean"], s["evidence"]["n"]) for s in b["steps"]]))
        self.assertEqual(b["level"], 1)
        self.assertEqual([d["merge"] for d in b["descents"]], [c["M"]])
        self.assertIn("its side branch could not be narrowed", b["reason"])
        # the verification is level 0's: the merge against its first parent, the full change
        v = b["verification"]
        self.assertEqual((v["parent"], v["first_bad"], v["verdict"]), (c["c15"], c["M"], "different"))
        self.assertLess(v["change_pct"], -3)
        self.assertGreaterEqual(b["confidence"], 0.99)
        self.assertTrue([s for s in b["steps"] if s["level"] == 1])
        reg = self.srv.get("/api/v1/regressions/%d" % b["regression_id"]).json()
        self.assertEqual((reg["state"], reg["good"]["sha"], reg["bad"]["sha"]),
                         ("bisected", c["c15"], c["M"]))

    def test_good_end_on_the_side_branch(self):
        """good = s5: everything s5 reaches is known good, on either level."""
        b = self.bisect("side", good="s5", variant="good on the side branch")
        c = self.c
        self.assertEqual((b["state"], b["outcome"]), ("done", "found"), b.get("reason"))
        self.assertEqual(b["first_bad_commit"]["sha"], c["s%d" % SIDE_CULPRIT])
        # level 0: c6..c15, M, c16..c20; the range: those and s6..s20
        self.assertEqual((b["nr_candidates"], b["nr_range"]), (16, 31))
        d = b["descents"][0]
        self.assertEqual((d["merge"], d["merge_parent"], d["side_commits"]), (c["M"], c["c15"], 15))
        name = {v: k for k, v in c.items()}
        measured = {name[s["commit"]] for s in b["steps"]}
        known_good = {"s%d" % i for i in range(1, 5)} | {"c%d" % i for i in range(6)}
        self.assertFalse(measured & known_good, measured)
        self.assertIn("s5", measured)  # the good end itself, as the level 0 reference


if __name__ == "__main__":
    unittest.main()
