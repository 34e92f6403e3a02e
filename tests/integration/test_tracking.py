"""Tracking: test plans as data, trees polled by the server, and
the jobs a plan schedules for each push, each exactly once.

A local git tree made here is the tracked tree (the server mirrors it from
its path); a "push" is a commit (or a reset, for a force-push) in it,
followed by POST /api/v1/trees/{name}/poll, the push hook. Each test counts
the jobs its plan queued (GET /api/v1/jobs, by `plan`) against the number
the plan's rules give, and checks that no (commit, setup) has two jobs.
"""
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import PG_LOCAL, Server, wait_until  # noqa: E402
from fakes import FakeWorker, git, git_init, stop_tree_server, tree_server  # noqa: E402

WAIT_S = 60
_clock = [0]


def commit(repo, files=("README",), msg=None):
    """Appends a line to each of files in repo and commits them (dates fixed
    and increasing, so shas repeat run to run); returns the new sha."""
    _clock[0] += 1
    n = _clock[0]
    for f in files:
        path = os.path.join(repo, f)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a") as fh:
            fh.write("%d\n" % n)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", msg or "change %d" % n,
        date="2026-02-01T%02d:%02d:00Z" % (n // 60 % 24, n % 60))
    return git(repo, "rev-parse", "HEAD")


def make_tree(path):
    git_init(path)
    return [commit(path, ["init/main.c"]) for _ in range(3)]


def plan(name, tree_name, **kw):
    p = {"name": name, "tree": tree_name, "branches": ["master"],
         "testcases": [{"testcase": "small-allocs", "params": {"nr_task": 1}},
                       {"testcase": "execl", "params": {}}],
         "kconfigs": ["x86_64-defconfig"], "compilers": ["gcc-12"],
         "targets": ["x86_64", "vm-2p"], "repeat": 3, "measure": "icount", "monitors": [],
         "schedule": {"heads": True, "every": 0, "paths": [], "max_per_push": 50},
         "priority": 0, "owner": "mm-perf@example.org", "enabled": True}
    p.update(kw)
    return p


def polls(srv, tree):
    return int(srv.psql("SELECT polls FROM trees WHERE name = '%s'" % tree) or 0)


def poll(srv, tree, via=None):
    """Asks for a poll of tree (through server via, default srv) and waits
    until a poll that started after the request is recorded: one more poll,
    and the request cleared (a poll already running when it came keeps it,
    and the tree is polled again at once: ST_TREE_POLL_DONE)."""
    before = polls(srv, tree)
    r = (via or srv).post("/api/v1/trees/%s/poll" % tree, scope="submit")
    assert r.status == 202, r
    wait_until(lambda: srv.psql("SELECT polls > %d AND poll_requested_at IS NULL FROM trees "
                                "WHERE name = '%s'" % (before, tree)) == "t",
               timeout=WAIT_S, what="a poll of " + tree)


def plan_jobs(srv, name):
    r = srv.get("/api/v1/jobs?limit=5000")
    assert r.status == 200, r
    return [j for j in r.json() if j.get("plan") == name]


def setups_of(jobs):
    """(commit, testcase, params, kconfig, arch, tbox_group) of each job."""
    return [(j["commit"], j["testcase"], json.dumps(j["params"], sort_keys=True), j["kconfig"],
             j["arch"], j["tbox_group"]) for j in jobs]


def tree_json(srv, name):
    # GET /api/v1/trees is cached for up to a second
    time.sleep(1.1)
    return [t for t in srv.get("/api/v1/trees").json() if t["name"] == name][0]


def pushes(srv, name):
    r = srv.get("/api/v1/plans/%s/pushes" % name)
    assert r.status == 200, r
    return r.json()


class Tracking(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.base, cls.srv = tree_server(
            "regtrack-track-", make_tree, "poll_tick_ms = 100\n")
        r = cls.srv.post("/api/v1/trees", {"name": "linux", "url": cls.repo,
                                           "branches": ["master"], "poll_s": 0}, scope="admin")
        assert r.status == 200, r

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def new_tree(self, name, make=make_tree):
        repo = os.path.join(self.tmp, name)
        shas = make(repo)
        r = self.srv.post("/api/v1/trees", {"name": name, "url": repo, "branches": ["master"],
                                            "poll_s": 0}, scope="admin")
        self.assertEqual(r.status, 200, r)
        return repo, shas

    # -- plans as data ------------------------------------------------------

    def test_plan_round_trip_exactly_as_given(self):
        issue = {"name": "mm-smoke", "tree": "linux", "branches": ["master", "mm-*"],
                 "testcases": [{"testcase": "small-allocs", "params": {"nr_task": "100%"}},
                               {"testcase": "execl", "params": {}}],
                 "kconfigs": ["x86_64-defconfig"], "compilers": ["gcc-12"],
                 "targets": ["x86_64", "arm64", "lkp-icl-2sp8"],
                 "repeat": 3, "measure": "icount", "monitors": [],
                 "schedule": {"heads": True, "every": 0,
                              "paths": ["mm/", "include/linux/mm*.h"], "max_per_push": 50},
                 "priority": 0, "owner": "mm-perf@example.org", "enabled": False}
        srv = self.srv
        r = srv.post("/api/v1/plans", issue, scope="admin")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json(), issue)
        self.assertEqual(srv.get("/api/v1/plans/mm-smoke").json(), issue)
        self.assertIn(issue, srv.get("/api/v1/plans").json())
        # the same again: 409 naming the name; PUT of the same: 200, nothing changed
        r = srv.post("/api/v1/plans", issue, scope="admin")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (409, "name"), r)
        r = srv.request("PUT", "/api/v1/plans/mm-smoke", body=issue, scope="admin")
        self.assertEqual(r.status, 200, r)
        changed = dict(issue, repeat=5)
        r = srv.request("PUT", "/api/v1/plans/mm-smoke", body=changed, scope="admin")
        self.assertEqual((r.status, r.json()["repeat"]), (200, 5), r)
        # defaults filled in
        r = srv.request("PUT", "/api/v1/plans/minimal",
                        body={"tree": "linux", "branches": ["master"],
                              "testcases": [{"testcase": "execl"}], "kconfigs": ["host"],
                              "targets": ["vm-2p"], "enabled": False}, scope="admin")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["schedule"], {"heads": True, "every": 0, "paths": [],
                                                "max_per_push": 20})
        self.assertEqual((r.json()["compilers"], r.json()["repeat"], r.json()["measure"]),
                         (["gcc-12"], 1, "wallclock"))
        self.assertEqual(srv.request("PUT", "/api/v1/plans/minimal", body=issue,
                                     scope="admin").json()["error"]["detail"], "name")
        for name in ("mm-smoke", "minimal"):
            r = srv.request("DELETE", "/api/v1/plans/" + name, scope="admin")
            self.assertEqual(r.status, 204, r)
            self.assertEqual(srv.get("/api/v1/plans/" + name).status, 404)
        self.assertEqual(srv.request("DELETE", "/api/v1/plans/mm-smoke", scope="admin").status,
                         404)
        self.assertEqual(srv.post("/api/v1/plans", issue, scope="submit").status, 403)

    def test_bad_plans_name_the_field(self):
        srv = self.srv
        cases = [
            (dict(tree="no-such-tree"), 404, "tree"),
            (dict(branches=["mm-["]), 400, "branches[0]"),
            (dict(branches=[]), 400, "branches"),
            (dict(testcases=[]), 400, "testcases"),
            (dict(testcases=[{"testcase": "execl", "params": {"x": [1]}}]), 400,
             "testcases[0].params.x"),
            # the one params rule of results, jobs, bisects and requests
            (dict(testcases=[{"testcase": "execl", "params": {"": 1}}]), 400,
             "testcases[0].params."),
            (dict(testcases=[{"testcase": "execl", "params": {"v": "x" * 5000}}]), 400,
             "testcases[0].params.v"),
            (dict(testcases=[{"testcase": "bad name"}]), 400, "testcases[0].testcase"),
            (dict(kconfigs=["sparc-defconfig"]), 400, "kconfigs[0]"),
            (dict(targets=["x86_64", "no/such"]), 400, "targets[1]"),
            (dict(targets=["arm64"]), 400, "targets"),            # x86_64 kconfig only: empty
            (dict(repeat=0), 400, "repeat"),
            (dict(repeat=101), 400, "repeat"),
            (dict(measure="cycles"), 400, "measure"),
            # the plan's icount (plan() has it) is each job's: one vCPU, a guest to count in
            (dict(testcases=[{"testcase": "execl", "params": {}},
                             {"testcase": "execl", "params": {"vcpus": 4}}]), 400,
             "testcases[1].params.vcpus"),
            (dict(testcases=[{"testcase": "execl", "params": {"numa": 2}}]), 400,
             "testcases[0].params.numa"),
            (dict(testcases=[{"testcase": "execl", "params": {"accel": "kvm"}}]), 400,
             "testcases[0].params.accel"),
            (dict(kconfigs=["x86_64-defconfig", "host"]), 400, "measure"),
            (dict(monitors=["perf-stat", "perf-trace"]), 400, "monitors[1]"),
            (dict(schedule={"paths": ["mm/["]}), 400, "schedule.paths[0]"),
            (dict(schedule={"max_per_push": 0}), 400, "schedule.max_per_push"),
            (dict(schedule={"every": -1}), 400, "schedule.every"),
            (dict(schedule={"heads": False, "every": 0}), 400, "schedule"),
            (dict(schedule={"max_per_push": 300}), 400, "schedule.max_per_push"),  # 4 x 300 jobs
            (dict(schedule={"head": True}), 400, "schedule.head"),
            (dict(kconfig=["x86_64-defconfig"]), 400, "kconfig"),
            (dict(priority=1000), 400, "priority"),
            (dict(enabled="yes"), 400, "enabled"),
        ]
        for change, status, field in cases:
            body = plan("bad", "linux", **change)
            r = srv.post("/api/v1/plans", body, scope="admin")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (status, field),
                             "%s: %r" % (change, r))
        r = srv.post("/api/v1/plans", {k: v for k, v in plan("bad", "linux").items()
                                       if k != "tree"}, scope="admin")
        self.assertEqual((r.status, r.json()["error"]["code"], r.json()["error"]["detail"]),
                         (400, "missing_field", "tree"), r)
        self.assertEqual(srv.get("/api/v1/plans/bad").status, 404)

    def test_plan_apply_file(self):
        srv = self.srv
        path = os.path.join(self.tmp, "plans.json")
        plans = [plan("file-a", "linux", enabled=False), plan("file-b", "linux", enabled=False)]
        with open(path, "w") as f:
            json.dump(plans, f)
        out = srv.cli("plan", "apply", path)
        self.assertEqual(out.stdout.split("\n")[:2], ["created file-a", "created file-b"])
        out = srv.cli("plan", "apply", path)
        self.assertEqual(out.stdout.split("\n")[:2], ["unchanged file-a", "unchanged file-b"])
        plans[1]["repeat"] = 7
        with open(path, "w") as f:
            json.dump(plans, f)
        out = srv.cli("plan", "apply", path)
        self.assertEqual(out.stdout.split("\n")[:2], ["unchanged file-a", "updated file-b"])
        self.assertEqual(srv.get("/api/v1/plans/file-b").json()["repeat"], 7)
        # a bad plan stores nothing and names its field
        plans[0]["repeat"] = 7
        plans[1]["schedule"] = {"every": "x"}
        with open(path, "w") as f:
            json.dump(plans, f)
        out = srv.cli("plan", "apply", path, check=False)
        self.assertEqual(out.returncode, 2, out)
        self.assertIn("schedule.every", out.stderr)
        self.assertEqual(srv.get("/api/v1/plans/file-a").json()["repeat"], 3)
        for name in ("file-a", "file-b"):
            srv.request("DELETE", "/api/v1/plans/" + name, scope="admin")

    # -- polling and scheduling -------------------------------------------

    def test_two_pushes_queue_exactly_the_expected_jobs(self):
        srv, repo = self.srv, self.repo
        r = srv.post("/api/v1/plans", plan("push", "linux", schedule={
            "heads": True, "every": 2, "paths": [], "max_per_push": 50}), scope="admin")
        self.assertEqual(r.status, 201, r)
        setups = 2 * 1 * 1 * 2  # testcases x kconfigs x compilers x targets
        poll(srv, "linux")
        jobs = plan_jobs(srv, "push")
        # the plan's first poll: the head alone, the baseline
        self.assertEqual(len(jobs), setups)
        self.assertEqual({j["commit"] for j in jobs}, {self.base[-1]})
        # push 1: 3 commits; every 2nd (the 2nd) and the head (the 3rd)
        p1 = [commit(repo) for _ in range(3)]
        poll(srv, "linux")
        jobs = plan_jobs(srv, "push")
        self.assertEqual(len(jobs), setups * 3)
        # push 2: 4 commits; the 2nd, and the 4th (every 2nd and the head)
        p2 = [commit(repo) for _ in range(4)]
        poll(srv, "linux")
        poll(srv, "linux")  # nothing new: nothing queued
        jobs = plan_jobs(srv, "push")
        self.assertEqual(len(jobs), setups * 5)
        self.assertEqual({j["commit"] for j in jobs},
                         {self.base[-1], p1[1], p1[2], p2[1], p2[3]})
        keys = setups_of(jobs)
        self.assertEqual(len(keys), len(set(keys)), "a (commit, setup) queued twice")
        j = [x for x in jobs if x["commit"] == p2[3] and x["tbox_group"] == "vm-2p"
             and x["testcase"] == "small-allocs"][0]
        self.assertEqual((j["arch"], j["capability"], j["repeat"], j["params"], j["kconfig"],
                          j["compiler"], j["tree"], j["state"]),
                         ("x86_64", "qemu-x86_64", 3, {"measure": "icount", "nr_task": 1},
                          "x86_64-defconfig", "gcc-12", "linux", "queued"))
        # tracking below bisects (bisect_priority -10) and jobs asked for by hand (0)
        self.assertEqual({x["priority"] for x in jobs}, {-20})
        pp = pushes(srv, "push")
        self.assertEqual([(p["old"], p["new"], p["commits"], p["jobs_queued"]) for p in pp],
                         [(p1[2], p2[3], 4, 8), (self.base[-1], p1[2], 3, 8),
                          (None, self.base[-1], 0, 4)])
        self.assertEqual(pp[0]["tested"], [{"commit": p2[1], "reason": "every"},
                                           {"commit": p2[3], "reason": "head"}])
        self.assertEqual(pp[2]["tested"], [{"commit": self.base[-1], "reason": "baseline"}])
        t = tree_json(srv, "linux")
        self.assertEqual([(h["branch"], h["head"], h["forced"]) for h in t["heads"]],
                         [("master", p2[3], False)])
        self.assertIsNone(t["poll_error"])
        self.assertGreaterEqual(t["polls"], 4)
        # the new commits are imported after the old ones (series follow the history)
        order = srv.psql("SELECT string_agg(sha, ',' ORDER BY topo_order) FROM commits c "
                         "JOIN trees t ON t.id = c.tree_id WHERE t.name = 'linux'").split(",")
        self.assertEqual(order, self.base + p1 + p2)
        # deleting the plan cancels what it queued, and polls queue nothing more
        r = srv.request("DELETE", "/api/v1/plans/push", scope="admin")
        self.assertEqual(r.status, 204)
        states = srv.psql("SELECT string_agg(DISTINCT state, ',') FROM jobs WHERE "
                          "fail_reason = 'plan deleted'")
        self.assertEqual(states, "cancelled")

    def test_a_commit_on_two_branches_is_queued_once(self):
        srv = self.srv
        repo, base = self.new_tree("twin")
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "twin", "twin", branches=["master", "mm-*"],
            testcases=[{"testcase": "execl", "params": {}}]), scope="admin").status, 201)
        git(repo, "branch", "mm-next")
        git(repo, "branch", "mm-stable")
        git(repo, "branch", "other")   # no glob matches it
        poll(srv, "twin")
        # three matching branches at one head: one job per setup (x86_64, vm-2p)
        jobs = plan_jobs(srv, "twin")
        self.assertEqual(sorted((j["commit"], j["tbox_group"] or "") for j in jobs),
                         sorted([(base[-1], ""), (base[-1], "vm-2p")]))
        self.assertEqual(sorted((p["branch"], p["jobs_queued"]) for p in pushes(srv, "twin")),
                         [("master", 2), ("mm-next", 0), ("mm-stable", 0)])
        # mm-next moves on: its new head only
        git(repo, "checkout", "-q", "mm-next")
        head = commit(repo, ["mm/x.c"])
        git(repo, "checkout", "-q", "master")
        poll(srv, "twin")
        self.assertEqual(sorted(j["commit"] for j in plan_jobs(srv, "twin")),
                         sorted([base[-1]] * 2 + [head] * 2))
        t = tree_json(srv, "twin")
        self.assertEqual([(h["branch"], h["head"]) for h in t["heads"]],
                         [("master", base[-1]), ("mm-next", head), ("mm-stable", base[-1]),
                          ("other", base[-1])])
        srv.request("DELETE", "/api/v1/plans/twin", scope="admin")

    def test_force_push_schedules_since_the_merge_base(self):
        srv = self.srv
        repo, base = self.new_tree("forced")
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "forced", "forced", testcases=[{"testcase": "execl", "params": {}}],
            targets=["x86_64"]), scope="admin").status, 201)
        poll(srv, "forced")
        old = [commit(repo) for _ in range(2)]
        poll(srv, "forced")
        self.assertEqual({j["commit"] for j in plan_jobs(srv, "forced")}, {base[-1], old[-1]})
        # rewrite: back to the base, three other commits
        git(repo, "reset", "-q", "--hard", base[-1])
        new = [commit(repo, ["mm/rewritten.c"]) for _ in range(3)]
        poll(srv, "forced")
        jobs = plan_jobs(srv, "forced")
        # the old head's job stays (its results would too); the new head is queued
        self.assertEqual(sorted(j["commit"] for j in jobs), sorted([base[-1], old[-1], new[-1]]))
        pp = pushes(srv, "forced")[0]
        self.assertEqual((pp["old"], pp["new"], pp["base"], pp["forced"], pp["commits"]),
                         (old[-1], new[-1], base[-1], True, 3))
        t = tree_json(srv, "forced")
        self.assertEqual([(h["head"], h["previous"], h["forced"]) for h in t["heads"]],
                         [(new[-1], old[-1], True)])
        srv.request("DELETE", "/api/v1/plans/forced", scope="admin")

    def test_paths_and_max_per_push(self):
        srv = self.srv
        repo, base = self.new_tree("paths")
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "paths", "paths", testcases=[{"testcase": "execl", "params": {}}],
            targets=["x86_64"], schedule={"heads": True, "every": 1,
                                          "paths": ["mm/", "include/linux/mm*.h"],
                                          "max_per_push": 3}), scope="admin").status, 201)
        poll(srv, "paths")
        files = [["fs/a.c"], ["mm/a.c"], ["include/linux/mm_types.h"], ["Documentation/x"],
                 ["mm/b.c"], ["mm/c.c", "fs/b.c"], ["fs/c.c"]]
        c = [commit(repo, f) for f in files]
        poll(srv, "paths")
        # touching: c1 c2 c4 c5 and the head (for the push): 5 > 3, so the head and two
        # spread over the others (c2, c5); c1, c4 skipped
        jobs = plan_jobs(srv, "paths")
        self.assertEqual(sorted(j["commit"] for j in jobs), sorted([base[-1], c[2], c[5], c[6]]))
        pp = pushes(srv, "paths")[0]
        self.assertEqual(pp["tested"], [{"commit": c[2], "reason": "every"},
                                        {"commit": c[5], "reason": "every"},
                                        {"commit": c[6], "reason": "head"}])
        self.assertEqual(pp["skipped"], [{"commit": c[1], "reason": "max_per_push"},
                                         {"commit": c[4], "reason": "max_per_push"}])
        self.assertEqual(pp["jobs_queued"], 3)
        # a push that touches none of the paths queues nothing: its head is skipped, why said
        d = [commit(repo, ["fs/d.c"]) for _ in range(2)]
        poll(srv, "paths")
        self.assertEqual(len(plan_jobs(srv, "paths")), 4)
        pp = pushes(srv, "paths")[0]
        self.assertEqual((pp["tested"], pp["skipped"], pp["jobs_queued"]),
                         ([], [{"commit": d[-1], "reason": "paths"}], 0))
        srv.request("DELETE", "/api/v1/plans/paths", scope="admin")

    def test_max_per_push_counts_every_branch_of_a_poll(self):
        """A push of seven branches at once queues what a push of one may
        item 5: a 2,005-branch tree queued 100,250 jobs in one poll); the branches
        left over are scheduled by the next polls, each exactly once."""
        srv = self.srv
        repo, base = self.new_tree("fan")
        heads = {"master": base[-1]}
        for i in range(6):
            git(repo, "checkout", "-q", "-b", "b-%d" % i, base[-1])
            heads["b-%d" % i] = commit(repo, ["mm/b%d.c" % i])
        git(repo, "checkout", "-q", "master")
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "fan", "fan", branches=["master", "b-*"],
            testcases=[{"testcase": "execl", "params": {}}], targets=["x86_64"],
            schedule={"heads": True, "every": 0, "paths": [], "max_per_push": 3}),
            scope="admin").status, 201)
        seen = []
        for want in (3, 6, 7, 7):
            poll(srv, "fan")
            jobs = plan_jobs(srv, "fan")
            self.assertEqual(len(jobs), want, [j["commit"] for j in jobs])
            seen.append(len(pushes(srv, "fan")))
        self.assertEqual(seen, [3, 6, 7, 7])
        self.assertEqual(sorted(j["commit"] for j in plan_jobs(srv, "fan")),
                         sorted(heads.values()))
        srv.request("DELETE", "/api/v1/plans/fan", scope="admin")

    def test_latin1_author_and_branch_name_do_not_stop_polls(self):
        """A commit whose author and subject are Latin-1 bytes, and a branch whose name
        is no UTF-8, once failed every poll of their tree for good."""
        srv = self.srv
        repo, base = self.new_tree("latin1")
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "latin1", "latin1", branches=["master", "b-*"],
            testcases=[{"testcase": "execl", "params": {}}], targets=["x86_64"]),
            scope="admin").status, 201)
        poll(srv, "latin1")
        tree = git(repo, "rev-parse", "HEAD^{tree}")
        env = {k.encode(): v.encode() for k, v in os.environ.items()}
        env.update({b"GIT_AUTHOR_NAME": b"J\xf6rg M\xfcller", b"GIT_AUTHOR_EMAIL": b"j@x",
                    b"GIT_COMMITTER_NAME": b"c", b"GIT_COMMITTER_EMAIL": b"c@x",
                    b"GIT_AUTHOR_DATE": b"2026-03-01T00:00:00Z",
                    b"GIT_COMMITTER_DATE": b"2026-03-01T00:00:00Z"})
        out = subprocess.run([b"git", b"-C", repo.encode(), b"commit-tree", tree.encode(),
                              b"-p", base[-1].encode()], input=b"mm: fix f\xfcr 32 bits\n",
                             env=env, capture_output=True, check=True, timeout=60)
        bad = out.stdout.decode().strip()
        git(repo, "update-ref", "refs/heads/master", bad)
        subprocess.run([b"git", b"-C", repo.encode(), b"update-ref", b"refs/heads/b-\xff",
                        base[-1].encode()], check=True, timeout=60)
        git(repo, "branch", "b-ok", bad)
        poll(srv, "latin1")
        t = tree_json(srv, "latin1")
        self.assertIsNone(t["poll_error"], t)
        self.assertEqual([(h["branch"], h["head"]) for h in t["heads"]],
                         [("b-ok", bad), ("master", bad)])
        self.assertEqual(srv.psql("SELECT author || ' | ' || subject FROM commits "
                                  "WHERE sha = '%s'" % bad),
                         # git's log reads text that is no UTF-8 as Latin-1; what is still
                         # not UTF-8 after that is stored as '?' (gitmirror.c add_elem)
                         "J\u00f6rg M\u00fcller <j@x> | mm: fix f\u00fcr 32 bits")
        self.assertEqual(sorted(j["commit"] for j in plan_jobs(srv, "latin1")),
                         sorted([base[-1], bad]))
        srv.request("DELETE", "/api/v1/plans/latin1", scope="admin")

    def test_failing_fetch_is_shown_and_others_go_on(self):
        srv = self.srv
        gone = os.path.join(self.tmp, "gone")
        r = srv.post("/api/v1/trees", {"name": "gone", "url": gone, "poll_s": 0}, scope="admin")
        self.assertEqual(r.status, 200, r)
        poll(srv, "gone")
        t = tree_json(srv, "gone")
        self.assertIn("git clone", t["poll_error"])
        self.assertIn("does not exist", t["poll_error"])  # git's own words
        self.assertEqual((t["poll_failures"], t["heads"]), (1, []))
        # a tree polled after it is not held back
        repo, base = self.new_tree("beside")
        poll(srv, "beside")
        t = tree_json(srv, "beside")
        self.assertEqual((t["poll_error"], [h["head"] for h in t["heads"]]), (None, [base[-1]]))
        # the repository appears: the next poll succeeds and clears the error
        subprocess.run(["git", "clone", "-q", "--mirror", repo, gone], check=True, timeout=60)
        poll(srv, "gone")
        t = tree_json(srv, "gone")
        self.assertEqual((t["poll_error"], t["poll_failures"]), (None, 0))

    def test_stored_plan_that_no_longer_passes_queues_nothing(self):
        """A plan stored before a check existed (here: 300 vcpus on x86_64,
        whose pc machine takes 255) is checked again at each poll: it queues
        nothing, the log names the field, the tree's other plans go on, and
        the mended plan tests the head it had not seen."""
        srv = self.srv
        repo, base = self.new_tree("reshaped")
        shape = [{"testcase": "execl", "params": {"vcpus": 2}}]
        for name in ("reshaped", "beside-reshaped"):
            r = srv.post("/api/v1/plans", plan(name, "reshaped", testcases=shape,
                                               measure="wallclock", targets=["x86_64"]),
                         scope="admin")
            self.assertEqual(r.status, 201, r)
        r = srv.post("/api/v1/plans", plan("refused", "reshaped", measure="wallclock",
                                           targets=["x86_64"], testcases=[
                                               {"testcase": "execl", "params": {"vcpus": 300}}]),
                     scope="admin")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "testcases[0].params.vcpus"))
        # as a server from before the check stored it
        srv.psql("UPDATE plans SET spec = jsonb_set(spec, '{testcases,0,params,vcpus}', '300') "
                 "WHERE name = 'reshaped'")
        poll(srv, "reshaped")
        self.assertEqual([], plan_jobs(srv, "reshaped"))
        self.assertEqual([], pushes(srv, "reshaped"))
        self.assertEqual({j["commit"] for j in plan_jobs(srv, "beside-reshaped")}, {base[-1]})
        with open(srv.log.name, "rb") as f:
            f.seek(srv.log_start)
            log = f.read().decode("utf-8", "replace")
        self.assertIn("plan 'reshaped' not scheduled: it does not pass the plan checks of this "
                      "server: testcases[0].params.vcpus: 'vcpus' is at most 255 on x86_64 "
                      "(qemu's pc machine takes no more), not 300 (PUT /api/v1/plans/reshaped "
                      "with it mended)\n", log)
        # mended: the head the plan had not seen is its baseline, once
        r = srv.request("PUT", "/api/v1/plans/reshaped",
                        plan("reshaped", "reshaped", testcases=shape, measure="wallclock",
                             targets=["x86_64"]), scope="admin")
        self.assertEqual(r.status, 200, r)
        poll(srv, "reshaped")
        poll(srv, "reshaped")
        jobs = plan_jobs(srv, "reshaped")
        self.assertEqual([(j["commit"], j["params"]) for j in jobs], [(base[-1], {"vcpus": 2})])
        self.assertEqual([(p["old"], p["new"], p["jobs_queued"]) for p in
                          pushes(srv, "reshaped")], [(None, base[-1], 1)])

    def test_mirror_follows_the_url_of_the_database(self):
        srv = self.srv
        repo, base = self.new_tree("moved")
        poll(srv, "moved")
        other = os.path.join(self.tmp, "moved-elsewhere")
        git_init(other)
        head = commit(other, ["kernel/fork.c"])
        r = srv.post("/api/v1/trees", {"name": "moved", "url": other, "branches": ["master"]},
                     scope="admin")
        self.assertEqual(r.status, 200, r)
        poll(srv, "moved")
        t = tree_json(srv, "moved")
        self.assertEqual([(h["head"], h["forced"]) for h in t["heads"]], [(head, True)])
        mirror = os.path.join(self.tmp, "data", "mirrors", "moved.git")
        self.assertEqual(git(mirror, "config", "--get", "remote.origin.url"), other)


class Supersede(unittest.TestCase):
    """A target's queue deeper than track_queue_limit: the new head supersedes."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.base, cls.srv = tree_server(
            "regtrack-track3-", make_tree, "poll_tick_ms = 100\ntrack_queue_limit = 4\n")
        r = cls.srv.post("/api/v1/trees", {"name": "linux", "url": cls.repo, "poll_s": 0},
                         scope="admin")
        assert r.status == 200, r

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def test_newest_head_supersedes_older_queued_jobs(self):
        srv = self.srv
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "sup", "linux", testcases=[{"testcase": "execl", "params": {}}]),
            scope="admin").status, 201)
        poll(srv, "linux")
        heads = [self.base[-1]]
        for _ in range(3):
            heads.append(commit(self.repo))
            poll(srv, "linux")
        # 4 heads x 2 targets, 4 queued per target: at the limit, nothing superseded
        jobs = plan_jobs(srv, "sup")
        self.assertEqual((len(jobs), {j["state"] for j in jobs}), (8, {"queued"}))
        heads.append(commit(self.repo))
        poll(srv, "linux")
        jobs = plan_jobs(srv, "sup")
        queued = sorted((j["commit"], j["tbox_group"] or "") for j in jobs
                        if j["state"] == "queued")
        self.assertEqual(queued, sorted([(heads[-1], ""), (heads[-1], "vm-2p")]))
        gone = [j for j in jobs if j["state"] == "cancelled"]
        self.assertEqual(len(gone), 8)
        self.assertEqual({j["commit"] for j in gone}, set(heads[:-1]))
        self.assertTrue(all(j["fail_reason"].startswith("superseded by %s of master"
                                                        % heads[-1][:12]) for j in gone), gone)
        self.assertEqual(srv.get("/api/v1/jobs/%d" % gone[0]["id"]).json()["phase"],
                         "superseded")
        self.assertEqual([p["superseded"] for p in pushes(srv, "sup")], [8, 0, 0, 0, 0])


STEP_PUSH2 = 10   # the injected step: the 11th commit of the second push (not tested by the
                  # plan: every 2nd is), so the detector's range has two commits to bisect
METRIC = "vm-scalability.throughput"


class TrackingToBisect(unittest.TestCase):
    """The plan queues every job; a step in the second push becomes a regression
    and an auto-bisect that names the commit, with no job queued by hand."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.base, cls.srv = tree_server(
            "regtrack-track4-", make_tree,
            "poll_tick_ms = 100\ndetect_poll_ms = 100\nauto_bisect = 1\n"
            "auto_bisect_min_pct = 2\nbisect_probe_z = 0\n")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def test_step_in_second_push_is_bisected_to_its_commit(self):
        srv, repo = self.srv, self.repo
        r = srv.post("/api/v1/trees", {"name": "e2e", "url": repo, "poll_s": 0},
                     scope="admin")
        self.assertEqual(r.status, 200, r)
        params = {"test": "tracked"}
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "e2e", "e2e", testcases=[{"testcase": "vm-scalability", "params": params}],
            targets=["vm-2p"], measure="wallclock", repeat=3,
            schedule={"heads": True, "every": 2, "paths": [], "max_per_push": 50}),
            scope="admin").status, 201)
        p1 = [commit(repo, ["mm/a.c"]) for _ in range(40)]
        p2 = [commit(repo, ["mm/b.c"]) for _ in range(40)]
        culprit = p2[STEP_PUSH2]
        slow = set(p2[STEP_PUSH2:])

        def values(job, rng):
            return {METRIC: [(950.0 if job["commit"] in slow else 1000.0) + rng.gauss(0, 10)]}

        stop = threading.Event()
        workers = [FakeWorker(srv, "fake-%d" % i, stop, values, tree="e2e") for i in range(2)]
        for w in workers:
            w.start()
        try:
            # the commits exist; master shows them in two pushes
            git(repo, "reset", "-q", "--hard", self.base[-1])
            poll(srv, "e2e")                       # the baseline
            git(repo, "reset", "-q", "--hard", p1[-1])
            poll(srv, "e2e")                       # push 1: every 2nd of 40, the head among them
            git(repo, "reset", "-q", "--hard", p2[-1])
            poll(srv, "e2e")                       # push 2: the same
            # the pushes' jobs (a tip's extra jobs may already be queued by detection,
            # depending on which of push 2's results landed first)
            self.assertEqual(len([j for j in plan_jobs(srv, "e2e") if j["repeat"] == 3]),
                             1 + 20 + 20)
            q = urllib.parse.urlencode({"testcase": "vm-scalability", "metric": METRIC})
            reg = wait_until(lambda: next((x for x in srv.get("/api/v1/regressions?" + q).json()
                                           ["regressions"] if x["bisect_id"]), None),
                             timeout=240, what="a regression with its bisect")
            b = wait_until(lambda: (lambda x: x if x["state"] not in ("queued", "running")
                                    else None)(srv.get("/api/v1/bisects/%d" % reg["bisect_id"])
                                               .json()), timeout=240, what="the bisect's end")
        finally:
            stop.set()
            for w in workers:
                w.join(10)
        # the detector's range: the last tested commit before the step, the first after
        self.assertEqual((reg["good"]["sha"], reg["bad"]["sha"]),
                         (p2[STEP_PUSH2 - 1], p2[STEP_PUSH2 + 1]))
        self.assertEqual((b["state"], b["outcome"]), ("done", "found"), b.get("reason"))
        self.assertEqual(b["first_bad_commit"]["sha"], culprit)
        # nobody queued a job by hand: the plan's and the bisect's only
        self.assertEqual(srv.psql("SELECT count(*) FROM jobs WHERE submitted_by IS NOT NULL"), "0")
        self.assertEqual(srv.psql("SELECT count(*) FROM jobs WHERE plan_id IS NOT NULL "
                                  "AND track_key NOT LIKE '% tip'"), "41")
        self.assertGreater(sum(w.jobs for w in workers), 41)


class TipReport(unittest.TestCase):
    """Reports at the tip: a step in the newest push is recorded from its head alone.

    One tested commit per push (heads only). The push with the step moves its head
    away from the commits before it; the server queues, once, detect_tip_runs more
    runs of that head and of the head before it; when they are in, the pair's
    verdict records the regression, confirmed, and the auto-bisect names the
    commit. The detector alone would need detect_confirm_commits more pushes."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.base, cls.srv = tree_server(
            "regtrack-track5-", make_tree,
            "poll_tick_ms = 100\ndetect_poll_ms = 100\nauto_bisect = 1\n"
            "auto_bisect_min_pct = 2\nbisect_probe_z = 0\ndetect_tip_runs = 5\n")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def tip_jobs(self):
        return self.srv.psql("SELECT string_agg(c.sha || ':' || j.repeat || ':' || j.priority || ':' "
                             "|| coalesce(j.track_branch, '-'), ',' ORDER BY j.id) FROM jobs j "
                             "JOIN commits c ON c.id = j.commit_id "
                             "WHERE j.track_key LIKE '% tip'")

    def test_step_at_the_tip_is_recorded_by_the_next_pass(self):
        srv, repo = self.srv, self.repo
        r = srv.post("/api/v1/trees", {"name": "tip", "url": repo, "poll_s": 0}, scope="admin")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "tip", "tip", testcases=[{"testcase": "vm-scalability", "params": {"test": "tip"}}],
            targets=["vm-2p"], measure="wallclock", repeat=3,
            schedule={"heads": True, "every": 0, "paths": [], "max_per_push": 50}),
            scope="admin").status, 201)
        slow = set()

        def values(job, rng):
            # +-0.4 % noise (below detect_min_change_pct: no quiet tip moves), a 5 % step
            v = 950.0 if job["commit"] in slow else 1000.0
            return {METRIC: [v * (1 + rng.uniform(-0.004, 0.004))]}

        def done():
            return all(j["state"] == "done" for j in plan_jobs(srv, "tip"))

        stop = threading.Event()
        workers = [FakeWorker(srv, "tip-%d" % i, stop, values, tree="tip") for i in range(2)]
        for w in workers:
            w.start()
        heads = [self.base[-1]]
        try:
            poll(srv, "tip")                       # the baseline
            wait_until(done, timeout=WAIT_S, what="the baseline's job")
            for _ in range(6):                     # quiet pushes of two commits
                [commit(repo, ["mm/a.c"]) for _ in range(2)]
                heads.append(git(repo, "rev-parse", "HEAD"))
                poll(srv, "tip")
                wait_until(done, timeout=WAIT_S, what="a push's job")
            self.assertEqual(self.tip_jobs(), "")  # no quiet tip asked for more runs
            # the push with the step: four commits, the second slows the path
            p = [commit(repo, ["mm/b.c"])]
            culprit = commit(repo, ["mm/b.c"])
            p += [culprit] + [commit(repo, ["mm/b.c"]) for _ in range(2)]
            slow.update(p[1:])
            poll(srv, "tip")
            q = urllib.parse.urlencode({"testcase": "vm-scalability", "metric": METRIC})
            reg = wait_until(lambda: next((x for x in srv.get("/api/v1/regressions?" + q).json()
                                           ["regressions"] if x["bisect_id"]), None),
                             timeout=120, what="the tip's regression with its bisect")
            b = wait_until(lambda: (lambda x: x if x["state"] not in ("queued", "running")
                                    else None)(srv.get("/api/v1/bisects/%d" % reg["bisect_id"])
                                               .json()), timeout=240, what="the bisect's end")
            # more passes over the same tip (bisect runs, one more quiet poll): nothing again
            poll(srv, "tip")
            time.sleep(1)
        finally:
            stop.set()
            for w in workers:
                w.join(10)
        # the extra jobs: one of the new head, one of the head before, once, as tracking
        self.assertEqual(sorted(self.tip_jobs().split(",")),
                         sorted(["%s:5:-20:-" % heads[-1], "%s:5:-20:-" % p[-1]]))
        # recorded with one tested commit after the step: the heads around it, confirmed
        # by the pair of 8 runs a side (3 of the push, 5 more)
        self.assertEqual((reg["good"]["sha"], reg["bad"]["sha"], reg["commits_after"]),
                         (heads[-1], p[-1], 1))
        self.assertEqual((reg["kind"], reg["pair"]["verdict"], reg["direction"]),
                         ("regression", "different", -1))
        self.assertLess(reg["pair"]["hl_pct"], -4)
        hist = srv.get("/api/v1/regressions/%d" % reg["id"]).json()["history"]
        notes = " | ".join(h["note"] or "" for h in hist)
        self.assertIn("detected at the tip of 'master'", notes)
        self.assertIn("confirmed at the tip", notes)
        self.assertIn("8 vs 8 runs", notes)
        self.assertEqual((b["state"], b["outcome"]), ("done", "found"), b.get("reason"))
        self.assertEqual(b["first_bad_commit"]["sha"], culprit)
        # one record of the step, none before it
        regs = srv.get("/api/v1/regressions?" + q).json()["regressions"]
        self.assertEqual([x["id"] for x in regs], [reg["id"]])


class TipReportLate(unittest.TestCase):
    """The tip's extra runs land after the next push: the step is no longer at the tip.

    The push with the step asks for more runs of its head and of the head before
    it; they are held until one more push (a commit as slow) is tested, so the
    newest commit, whose pair with the stepped head is the same, is the tip when
    they land. The pair that was asked for is compared on its own runs all the
    same and recorded, confirmed; before, nothing was recorded: the tip's pair was
    the same and the windowed detector needs more commits after a step."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.base, cls.srv = tree_server(
            "regtrack-track6-", make_tree,
            "poll_tick_ms = 100\ndetect_poll_ms = 100\nauto_bisect = 0\n"
            "detect_tip_runs = 5\n")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def test_pair_asked_at_the_tip_is_recorded_when_its_runs_land(self):
        srv, repo = self.srv, self.repo
        r = srv.post("/api/v1/trees", {"name": "late", "url": repo, "poll_s": 0}, scope="admin")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "late", "late", testcases=[{"testcase": "vm-scalability", "params": {"test": "late"}}],
            targets=["vm-2p"], measure="wallclock", repeat=3,
            schedule={"heads": True, "every": 0, "paths": [], "max_per_push": 50}),
            scope="admin").status, 201)
        slow, gate = set(), threading.Event()

        def values(job, rng):
            if job["repeat"] == 5:                 # an extra tip job: held until released
                gate.wait(WAIT_S)
            v = 950.0 if job["commit"] in slow else 1000.0
            return {METRIC: [v * (1 + rng.uniform(-0.004, 0.004))]}

        def tip_jobs():
            return int(srv.psql("SELECT count(*) FROM jobs WHERE track_key LIKE '% tip'"))

        def plan_done():
            return all(j["state"] == "done" for j in plan_jobs(srv, "late")
                       if j["repeat"] == 3)

        stop = threading.Event()
        # three workers: two may hold the tip jobs while the third tests the next push
        workers = [FakeWorker(srv, "late-%d" % i, stop, values, tree="late") for i in range(3)]
        for w in workers:
            w.start()
        heads = [self.base[-1]]
        try:
            poll(srv, "late")
            wait_until(plan_done, timeout=WAIT_S, what="the baseline's job")
            for _ in range(6):
                commit(repo, ["mm/a.c"])
                heads.append(git(repo, "rev-parse", "HEAD"))
                poll(srv, "late")
                wait_until(plan_done, timeout=WAIT_S, what="a push's job")
            self.assertEqual(tip_jobs(), 0)
            stepped = commit(repo, ["mm/b.c"])
            slow.add(stepped)
            poll(srv, "late")
            wait_until(lambda: tip_jobs() == 2, timeout=WAIT_S, what="the tip's extra jobs")
            newest = commit(repo, ["mm/b.c"])
            slow.add(newest)
            poll(srv, "late")
            wait_until(plan_done, timeout=WAIT_S, what="the next push's job")
            gate.set()
            q = urllib.parse.urlencode({"testcase": "vm-scalability", "metric": METRIC})
            reg = wait_until(lambda: next((x for x in srv.get("/api/v1/regressions?" + q).json()
                                           ["regressions"] if x["bad"]["sha"] == stepped), None),
                             timeout=WAIT_S, what="the record of the pair asked at the tip")
            wait_until(lambda: srv.psql("SELECT count(*) FROM jobs WHERE state <> 'done'") == "0",
                       timeout=WAIT_S, what="every job done")
            time.sleep(1)
        finally:
            gate.set()
            stop.set()
            for w in workers:
                w.join(10)
        reg = srv.get("/api/v1/regressions/%d" % reg["id"]).json()
        self.assertEqual((reg["good"]["sha"], reg["bad"]["sha"]), (heads[-1], stepped))
        self.assertEqual((reg["kind"], reg["state"], reg["direction"]),
                         ("regression", "confirmed", -1))
        self.assertEqual(reg["pair"]["verdict"], "different")
        self.assertLess(reg["pair"]["hl_pct"], -4)
        self.assertGreater(reg["pair"]["hl_pct"], -6)
        notes = " | ".join(h["note"] or "" for h in reg["history"])
        self.assertIn("detected from the extra runs asked at the tip", notes)
        self.assertIn("8 vs 8 runs", notes)
        # one record of the step: the stepped head vs the newest (both slow) is none
        regs = srv.get("/api/v1/regressions?" + q).json()["regressions"]
        self.assertEqual([x["id"] for x in regs], [reg["id"]])


class TipPairsKeepTheDetectorsRecord(unittest.TestCase):
    """The pairs asked for at the tip follow the plan's settings and never
    overwrite what the detector found.

    As TipReportLate, with a plan whose `detect.min_change_pct` is 2 and a
    second metric that moves +1.5 % at the same commit: the pair of that
    metric differs on its tip runs, but the plan alerts nothing below 2 %
    (before, it was recorded, confirmed, from the pair alone). Then more
    slow commits land, the windowed detector reports the -5 % step itself,
    and its record keeps the detector's evidence: its p, its noise sigma and
    the runs of the segments either side (before, every pass overwrote it
    with the two commits' 8 vs 8 runs, and the evidence sentence then spoke
    of commits that were not compared)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.base, cls.srv = tree_server(
            "regtrack-track7-", make_tree,
            "poll_tick_ms = 100\ndetect_poll_ms = 100\nauto_bisect = 0\n"
            "detect_tip_runs = 5\n")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def test_min_change_and_the_detectors_evidence(self):
        srv, repo = self.srv, self.repo
        small = "vm-scalability.small"
        r = srv.post("/api/v1/trees", {"name": "pairs", "url": repo, "poll_s": 0},
                     scope="admin")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "pairs", "pairs",
            testcases=[{"testcase": "vm-scalability", "params": {"test": "pairs"}}],
            targets=["vm-2p"], measure="wallclock", repeat=3,
            detect={"min_change_pct": 2}), scope="admin").status, 201)
        slow, gate = set(), threading.Event()

        def values(job, rng):
            if job["repeat"] == 5:
                gate.wait(WAIT_S)
            s = job["commit"] in slow
            return {METRIC: [(950.0 if s else 1000.0) * (1 + rng.uniform(-0.004, 0.004))],
                    small: [(1015.0 if s else 1000.0) * (1 + rng.uniform(-0.001, 0.001))]}

        def tip_jobs():
            return int(srv.psql("SELECT count(*) FROM jobs WHERE track_key LIKE '% tip'"))

        def plan_done():
            return all(j["state"] == "done" for j in plan_jobs(srv, "pairs"))

        def push(is_slow):
            sha = commit(repo, ["mm/c.c"])
            if is_slow:
                slow.add(sha)
            poll(srv, "pairs")
            return sha

        stop = threading.Event()
        workers = [FakeWorker(srv, "pairs-%d" % i, stop, values, tree="pairs")
                   for i in range(3)]
        for w in workers:
            w.start()
        q = urllib.parse.urlencode({"testcase": "vm-scalability", "metric": METRIC})
        try:
            poll(srv, "pairs")
            wait_until(plan_done, timeout=WAIT_S, what="the baseline's job")
            for _ in range(6):
                push(False)
                wait_until(plan_done, timeout=WAIT_S, what="a push's job")
            good = git(repo, "rev-parse", "HEAD")
            stepped = push(True)
            wait_until(lambda: tip_jobs() == 2, timeout=WAIT_S, what="the tip's extra jobs")
            push(True)
            wait_until(lambda: all(j["state"] == "done" for j in plan_jobs(srv, "pairs")
                                   if j["repeat"] == 3), timeout=WAIT_S, what="the next push")
            gate.set()
            reg = wait_until(lambda: next((x for x in srv.get("/api/v1/regressions?" + q).json()
                                           ["regressions"] if x["bad"]["sha"] == stepped), None),
                             timeout=WAIT_S, what="the record of the pair asked at the tip")
            # more slow commits: the windowed detector now has the step itself
            for _ in range(4):
                push(True)
                wait_until(plan_done, timeout=WAIT_S, what="a push's job")
            wait_until(lambda: srv.get("/api/v1/regressions/%d" % reg["id"]).json()
                       ["detector"]["p_value"] is not None, timeout=WAIT_S,
                       what="the detector's own figures on the record")
            wait_until(lambda: srv.psql("SELECT count(*) FROM detect_queue") == "0",
                       timeout=WAIT_S, what="detection drained")
            time.sleep(1)
        finally:
            gate.set()
            stop.set()
            for w in workers:
                w.join(10)
        # +1.5 % is below the plan's 2 %: no record of it, from the pair or the detector
        regs = srv.get("/api/v1/regressions?" + urllib.parse.urlencode(
            {"testcase": "vm-scalability", "metric": small})).json()["regressions"]
        self.assertEqual(regs, [])
        reg = srv.get("/api/v1/regressions/%d" % reg["id"]).json()
        self.assertEqual((reg["good"]["sha"], reg["bad"]["sha"]), (good, stepped))
        self.assertLess(reg["detector"]["p_value"], 1e-3)
        self.assertIsNotNone(reg["noise_sigma"])
        # the segments either side (7 fast commits x 3 runs and more), not the pair's 8 vs 8
        self.assertGreater(reg["n_before"], 8)
        self.assertGreater(reg["n_after"], 8)
        self.assertEqual(reg["pair"]["verdict"], "different")
        self.assertIsNotNone(reg["evidence"]["spread_ratio"])


class FirstStep(unittest.TestCase):
    """A step right after the baseline (the demo's -27 % at its first push).

    The baseline is the only commit before the first push's, so neither the
    windowed detector (min_seg commits a side) nor the tip check (a window of 4)
    sees the step, however many pushes follow. The first push's commit, shifted
    from the baseline, asks once for detect_tip_runs more runs of both; their
    pair, different, is recorded, confirmed. Later pushes at the new level add
    nothing."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.base, cls.srv = tree_server(
            "regtrack-track7-", make_tree,
            "poll_tick_ms = 100\ndetect_poll_ms = 100\nauto_bisect = 0\n"
            "detect_tip_runs = 5\n")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def test_step_after_the_baseline_is_recorded(self):
        srv, repo = self.srv, self.repo
        r = srv.post("/api/v1/trees", {"name": "first", "url": repo, "poll_s": 0},
                     scope="admin")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(srv.post("/api/v1/plans", plan(
            "first", "first",
            testcases=[{"testcase": "vm-scalability", "params": {"test": "first"}}],
            targets=["vm-2p"], measure="wallclock", repeat=3,
            schedule={"heads": True, "every": 0, "paths": [], "max_per_push": 50}),
            scope="admin").status, 201)
        slow = set()

        def values(job, rng):
            v = 730.0 if job["commit"] in slow else 1000.0
            return {METRIC: [v * (1 + rng.uniform(-0.004, 0.004))]}

        def tip_jobs():
            return srv.psql("SELECT string_agg(c.sha || ':' || j.repeat, ',' ORDER BY c.sha) "
                            "FROM jobs j JOIN commits c ON c.id = j.commit_id "
                            "WHERE j.track_key LIKE '% tip'")

        def done():
            return all(j["state"] == "done" for j in plan_jobs(srv, "first"))

        q = urllib.parse.urlencode({"testcase": "vm-scalability", "metric": METRIC})

        def records():
            return srv.get("/api/v1/regressions?" + q).json()["regressions"]

        stop = threading.Event()
        workers = [FakeWorker(srv, "first-%d" % i, stop, values, tree="first") for i in range(2)]
        for w in workers:
            w.start()
        baseline = self.base[-1]
        try:
            poll(srv, "first")                     # the baseline
            wait_until(done, timeout=WAIT_S, what="the baseline's job")
            stepped = commit(repo, ["mm/b.c"])     # the first push: 27 % slower
            slow.add(stepped)
            poll(srv, "first")
            reg = wait_until(lambda: next((x for x in records() if x["state"] == "confirmed"),
                                          None),
                             timeout=WAIT_S, what="the record of the step after the baseline")
            wait_until(done, timeout=WAIT_S, what="the extra runs")
            for _ in range(2):                     # pushes at the new level
                slow.add(commit(repo, ["mm/b.c"]))
                poll(srv, "first")
                wait_until(done, timeout=WAIT_S, what="a push's job")
            time.sleep(1)
        finally:
            stop.set()
            for w in workers:
                w.join(10)
        # the extra runs: 5 of the baseline and 5 of the first push's commit, once
        self.assertEqual(tip_jobs(), ",".join(sorted(["%s:5" % baseline, "%s:5" % stepped])))
        reg = srv.get("/api/v1/regressions/%d" % reg["id"]).json()
        self.assertEqual((reg["good"]["sha"], reg["bad"]["sha"]), (baseline, stepped))
        self.assertEqual((reg["kind"], reg["state"], reg["direction"], reg["pair"]["verdict"]),
                         ("regression", "confirmed", -1, "different"))
        self.assertLess(reg["pair"]["hl_pct"], -26)
        self.assertGreater(reg["pair"]["hl_pct"], -28)
        notes = " | ".join(h["note"] or "" for h in reg["history"])
        self.assertRegex(notes, r"detected after the baseline: the first tested commit after it "
                         r"is -2[67]\.\d\d% from it; 5 extra run\(s\) each of it and of the baseline")
        # confirmed once the extra runs were in: 3 runs a side cannot be `different`
        self.assertRegex(notes, r"confirmed after the baseline: the baseline vs the first "
                         r"tested commit is different \(-2[67]\.\d\d%, (8 vs [38]|3 vs 8) runs\)")
        # one record of the step, none for the pushes after it
        self.assertEqual([x["id"] for x in records()], [reg["id"]])


class ManyServers(unittest.TestCase):
    """Two servers polling one database, and one killed in the middle of a poll."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="regtrack-track2-")
        self.repo = os.path.join(self.tmp, "linux")
        self.base = make_tree(self.repo)
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            if s.proc:
                s.stop()
        subprocess.run(["rm", "-rf", "--", self.tmp], timeout=60)

    def server(self, first=None):
        """A server with its own data_dir; on first's database when given."""
        conf = os.path.join(self.tmp, "server-%d.conf" % len(self.servers))
        with open(conf, "w") as f:
            f.write("data_dir = %s\npoll_tick_ms = 100\n"
                    % os.path.join(self.tmp, "data-%d" % len(self.servers)))
        if first is None:
            s = Server(extra_args=["--config", conf])
        else:
            s = Server.__new__(Server)
            s.cluster, s.dbname, s.conninfo = first.cluster, first.dbname, first.conninfo
            s.extra_args, s.env, s.proc = ["--config", conf], dict(os.environ), None
            s.start()
            s.tokens = first.tokens
        self.servers.append(s)
        return s

    def test_kill_mid_poll_then_two_servers(self):
        a = self.server()
        r = a.post("/api/v1/trees", {"name": "linux", "url": self.repo, "branches": ["master"],
                                     "poll_s": 0}, scope="admin")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(a.post("/api/v1/plans", plan("p", "linux", schedule={
            "heads": True, "every": 1, "paths": [], "max_per_push": 50}),
            scope="admin").status, 201)
        setups = 4
        poll(a, "linux")
        self.assertEqual(len(plan_jobs(a, "p")), setups)

        # hold the plan's branch row: the poll's transaction inserts its jobs, then waits
        # on it to move the plan's head; kill the server there
        holder = subprocess.Popen(
            [PG_LOCAL, "psql", "-X", "-q", "-d", a.dbname], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, env=a.cluster.env, text=True)
        holder.stdin.write("BEGIN; SELECT 1 FROM plan_branches FOR UPDATE;\n")
        holder.stdin.flush()
        wait_until(lambda: a.psql("SELECT count(*) FROM pg_locks l JOIN pg_class c "
                                  "ON c.oid = l.relation WHERE c.relname = 'plan_branches' "
                                  "AND l.mode = 'RowShareLock' AND l.granted") != "0",
                   timeout=WAIT_S, what="the row lock")
        p2 = [commit(self.repo) for _ in range(3)]
        r = a.post("/api/v1/trees/linux/poll", scope="submit")
        self.assertEqual(r.status, 202)
        wait_until(lambda: a.psql("SELECT count(*) FROM pg_stat_activity WHERE "
                                  "wait_event_type = 'Lock' AND query LIKE '%plan_branches%'")
                   != "0", timeout=WAIT_S, what="the poll waiting on the row")
        a.stop(sig=signal.SIGKILL)
        holder.stdin.write("COMMIT;\n\\q\n")
        holder.stdin.flush()
        holder.wait(60)
        # the killed server's transaction is rolled back: not one of its jobs stays
        wait_until(lambda: a.psql("SELECT count(*) FROM pg_stat_activity WHERE "
                                  "query LIKE '%plan_branches%' AND pid <> pg_backend_pid()")
                   == "0", timeout=WAIT_S, what="the killed server's backend to end")
        self.assertEqual(len(plan_jobs_db(a, "p")), setups)

        # two servers on the database, both polling every second
        b = self.server(first=a)
        c = self.server(first=a)
        a.psql("UPDATE trees SET poll_s = 1")
        wait_until(lambda: len(plan_jobs_db(b, "p")) == setups * 4, timeout=WAIT_S,
                   what="push 2 scheduled after the kill")
        # one push of five commits: made on a detached HEAD and moved onto master at once,
        # since a poll every second could otherwise see four of them as a push of its own
        git(self.repo, "checkout", "-q", "--detach")
        p3 = [commit(self.repo) for _ in range(5)]
        git(self.repo, "update-ref", "refs/heads/master", p3[-1])
        git(self.repo, "checkout", "-q", "master")
        wait_until(lambda: len(plan_jobs_db(b, "p")) == setups * 9, timeout=WAIT_S,
                   what="push 3 scheduled")
        # more polls (each server's, every second): they queue nothing more
        after = polls(b, "linux")
        wait_until(lambda: polls(b, "linux") >= after + 3, timeout=WAIT_S,
                   what="three more polls after push 3")
        jobs = plan_jobs(c, "p")
        self.assertEqual(len(jobs), setups * 9)
        keys = setups_of(jobs)
        self.assertEqual(len(keys), len(set(keys)), "a (commit, setup) queued twice")
        self.assertEqual({j["commit"] for j in jobs}, {self.base[-1]} | set(p2) | set(p3))
        pp = pushes(b, "p")
        self.assertEqual([(p["new"], p["jobs_queued"]) for p in pp],
                         [(p3[-1], setups * 5), (p2[-1], setups * 3), (self.base[-1], setups)])


def plan_jobs_db(srv, name):
    return srv.psql("SELECT j.id FROM jobs j JOIN plans p ON p.id = j.plan_id "
                    "WHERE p.name = '%s'" % name).split()


if __name__ == "__main__":
    unittest.main()
