"""Reproducing a kernel test robot report.

`regtrack test --from-mail FILE.eml --dry-run --json` on the robot's real
mails (tests/fixtures/robotmail/, both layouts; no server): the request it
would queue and what it read, exactly; a case this lab does not run and a
mail without its commit are exit 2 naming what. Then the API against the
real server: POST /api/v1/requests with "from_mail" and "dry_run" answers the
same document, a bad mail is a 400 naming the missing part, and without
dry_run the request is queued on a real tree (the FYI mail with its commit
replaced by a commit of the test's tree: head is that commit, base its
parent, the robot's small-allocs-mt is small-allocs mode=thread)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, resolved  # noqa: E402
from fakes import git, git_init, stop_tree_server, tree_server  # noqa: E402

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "robotmail")
FYI = os.path.join(FIX, "kernel-test-robot-fyi-vm-scalability-small-allocs-mt.eml")
VMS = os.path.join(FIX, "kernel-test-robot-vm-scalability-regression.eml")
STRESS = os.path.join(FIX, "kernel-test-robot-stress-ng-improvement.eml")
BAD = os.path.join(FIX, "malformed-no-commit.eml")
FYI_SHA = "2f06f702925b512a95b95dca3855549c047eef58"

FYI_ROBOT = {
    "layout": "fyi",
    "message_id": "<20201217023445.GD27932@robot-host.example.org>",
    "subject": "[locking/rwsem]  2f06f70292:  vm-scalability.throughput 385.1% improvement",
    "commit": FYI_SHA,
    "commit_subject": "locking/rwsem: Prevent potential lock starvation",
    "repo": {"url": "https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git",
             "branch": "master"},
    "base": None,
    "base_repo": None,
    "patch_link": None,
    "compared_base": "c8fe8b0564388f41",
    "testcase": "vm-scalability",
    "params": {"runtime": "300s", "test": "small-allocs-mt",
               "cpufreq_governor": "performance", "ucode": "0x5003003"},
    "kconfig": "x86_64-rhel-8.3",
    "compiler": "gcc-9",
    "tbox_group": "lkp-csl-2ap4",
    "machine": "192 threads Intel(R) Xeon(R) Platinum 9242 CPU @ 2.30GHz with 192G memory",
    "change": {"metric": "vm-scalability.throughput", "pct": "385.1", "kind": "improvement"},
}

VMS_ROBOT = {
    "layout": "noticed",
    "message_id": "<202406201010.a1344783-robot-sender@example.org>",
    "subject": "[linus:master] [mm]  d2136d749d:  vm-scalability.throughput -7.1% regression",
    "commit": "d2136d749d76af980b3accd72704eea4eab625bd",
    "commit_subject": "mm: support multi-size THP numa balancing",
    "repo": {"url": "https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git",
             "branch": "master"},
    "base": None,
    "base_repo": None,
    "patch_link": None,
    "compared_base": "6b0ed7b3c77547d2",
    "testcase": "vm-scalability",
    "params": {"runtime": "300s", "size": "512G", "test": "anon-cow-rand-hugetlb",
               "cpufreq_governor": "performance"},
    "kconfig": "x86_64-rhel-8.3",
    "compiler": "gcc-13",
    "tbox_group": "lkp-icl-2sp2",
    "machine": "128 threads 2 sockets Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz (Ice Lake) "
               "with 256G memory",
    "change": {"metric": "vm-scalability.throughput", "pct": "-7.1", "kind": "regression"},
}

RUNS = ("vm-scalability small-allocs, vm-scalability small-allocs-mt, unixbench execl, "
        "will-it-scale page_fault2")


def cli(*args):
    """bin/regtrack with no server configured: a dry run must not need one."""
    e = {k: v for k, v in os.environ.items() if k not in ("REGTRACK_SERVER", "REGTRACK_TOKEN")}
    e["REGTRACK_SERVER"] = "http://127.0.0.1:9"  # discard: anything sent would fail
    return subprocess.run([os.path.join(BIN, "regtrack")] + list(args), env=e,
                          capture_output=True, text=True, timeout=60)


class DryRun(unittest.TestCase):
    def test_fyi_layout_maps_small_allocs_mt(self):
        p = cli("test", "--from-mail", FYI, "--tree", "linux", "--target", "x86_64",
                "--target", "arm64", "--dry-run", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout), {
            "request": {
                "targets": ["x86_64", "arm64"],
                "tree": "linux",
                "testcases": [{"testcase": "small-allocs", "params": {"mode": "thread"}}],
                "head": FYI_SHA,
                "base": FYI_SHA + "^",
                "label": "<20201217023445.GD27932@robot-host.example.org>",
            },
            "robot": FYI_ROBOT,
        })
        self.assertEqual(p.stderr, "")

    def test_a_case_this_lab_does_not_run_is_exit_2_naming_it(self):
        p = cli("test", "--from-mail", VMS, "--tree", "linux", "--target", "arm64",
                "--dry-run", "--json")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(json.loads(p.stdout), {"request": None, "robot": VMS_ROBOT})
        self.assertEqual(p.stderr, "regtrack test: '%s': the robot's testcase 'vm-scalability' "
                         "(test: anon-cow-rand-hugetlb) is not one this lab runs (it runs %s; "
                         "name the testcases to run another)\n" % (VMS, RUNS))
        p = cli("test", "--from-mail", STRESS, "--dry-run", "--json")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("'stress-ng' (test: pipeherd) is not one this lab runs", p.stderr)
        robot = json.loads(p.stdout)["robot"]
        self.assertEqual((robot["layout"], robot["kconfig"], robot["compiler"],
                          robot["tbox_group"], robot["params"]["nr_threads"]),
                         ("noticed", "x86_64-rhel-9.4", "gcc-12", "lkp-icl-2sp7", "100%"))

    def test_own_testcase_and_base_win_over_the_mail(self):
        p = cli("test", "--from-mail", STRESS, "--tree", "linux", "--base", "v6.15",
                "--testcase", "execl", "--params", "nr_task=2", "--target", "arm64",
                "--dry-run", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["request"], {
            "testcases": [{"testcase": "execl", "params": {"nr_task": 2}}],
            "targets": ["arm64"], "tree": "linux", "base": "v6.15",
            "head": "ee5eda8ea59546af2e8f192c060fbf29862d7cbd",
            "label": "<202506042255.d1d90443-lkp@intel.com>"})

    def test_quoted_patch_report_with_its_series(self):
        """A reply quoting the robot's report on a posted patch: the request tests the
        series (--patches, as fetched from the patch link) on the base the mail names."""
        quoted = os.path.join(FIX, "kernel-test-robot-quoted-patch-unixbench.eml")
        with tempfile.TemporaryDirectory() as tmp:
            repo = os.path.join(tmp, "r")
            git_init(repo)
            with open(os.path.join(repo, "fair.c"), "w") as f:
                f.write("int x;\n")
            git(repo, "add", "fair.c")
            git(repo, "commit", "-q", "-m", "sched/fair: bump", date="2025-06-26T14:40:17Z")
            mbox = git(repo, "format-patch", "--stdout", "--root", "HEAD") + "\n"
            path = os.path.join(tmp, "series.mbox")
            with open(path, "w") as f:
                f.write(mbox)
            p = cli("test", "--from-mail", quoted, "--patches", path, "--tree", "tip",
                    "--testcase", "execl", "--target", "arm64", "--dry-run", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        d = json.loads(p.stdout)
        self.assertEqual(d["request"], {
            "testcases": [{"testcase": "execl", "params": {}}], "targets": ["arm64"],
            "tree": "tip", "base": "5bc34be478d09c4d16009e665e020ad0fcd0deea",
            "label": "<ccc99276-2f26-4cea-9f55-be7f75c8bf00@intel.com>", "patches": mbox})
        self.assertEqual((d["robot"]["base_repo"], d["robot"]["patch_link"],
                          d["robot"]["testcase"], d["robot"]["params"]["test"]),
                         ({"url": "https://git.kernel.org/cgit/linux/kernel/git/tip/tip.git",
                           "branch": None},
                          "https://lore.kernel.org/all/20250626144017.1510594-2-author@"
                          "example.org/", "unixbench", "shell1"))
        # without --testcase: unixbench shell1 is no case of this lab's
        p = cli("test", "--from-mail", quoted, "--dry-run")
        self.assertEqual(p.returncode, 2)
        self.assertIn("'unixbench' (test: shell1) is not one this lab runs", p.stderr)

    def test_bad_mail_and_no_tree(self):
        p = cli("test", "--from-mail", BAD, "--dry-run", "--json")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr, "regtrack test: '%s': the robot's mail is incomplete: no "
                         "'commit: SHA' line (from_mail.commit)\n" % BAD)
        p = cli("test", "--from-mail", os.path.join(FIX, "..", "..", "..", "Makefile"),
                "--dry-run")
        self.assertEqual(p.returncode, 2)
        self.assertIn("not a kernel test robot report", p.stderr)
        # queuing (no --dry-run) needs this lab's tree: said before anything is sent
        p = cli("test", "--from-mail", FYI, "--target", "x86_64")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr, "regtrack test: --tree is needed: this lab's tree that holds "
                         "%s (the mail's is https://git.kernel.org/cgit/linux/kernel/git/"
                         "torvalds/linux.git master)\n" % FYI_SHA)


def make_tree(path):
    git_init(path)
    with open(os.path.join(path, "mm.c"), "w") as f:
        f.write("int x;\n")
    git(path, "add", "mm.c")
    git(path, "commit", "-q", "-m", "mm: base", date="2026-01-01T00:00:00Z")
    c0 = git(path, "rev-parse", "HEAD")
    git(path, "commit", "-q", "--allow-empty", "-m", "locking/rwsem: head",
        date="2026-01-01T00:01:00Z")
    return {"c0": c0, "c1": git(path, "rev-parse", "HEAD")}


class Api(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.tree, cls.srv = tree_server("regtrack-frommail-", make_tree,
                                                           "detect_enabled = 0\n")
        r = cls.srv.post("/api/v1/trees", {"name": "demo", "url": cls.repo,
                                           "branches": ["master"]}, scope="admin")
        assert r.status == 200, r

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def mail(self, path):
        with open(path, encoding="utf-8") as f:
            return f.read()

    def test_dry_run_answers_the_parse_and_stores_nothing(self):
        before = self.srv.get("/api/v1/requests").json()
        r = self.srv.post("/api/v1/requests", {"from_mail": self.mail(FYI), "dry_run": True,
                                               "targets": ["arm64"]}, scope="submit")
        self.assertEqual(r.status, 200, r.body)
        self.assertEqual(r.json(), {
            "request": {"targets": ["arm64"],
                        "testcases": [{"testcase": "small-allocs",
                                       "params": {"mode": "thread"}}],
                        "head": FYI_SHA, "base": FYI_SHA + "^",
                        "label": "<20201217023445.GD27932@robot-host.example.org>"},
            "robot": FYI_ROBOT})
        self.assertEqual(self.srv.get("/api/v1/requests").json(), before)

    def test_bad_mail_is_400_naming_what_is_missing(self):
        for body, detail in (
                ({"from_mail": self.mail(BAD), "dry_run": True}, "from_mail.commit"),
                ({"from_mail": self.mail(VMS), "dry_run": True}, "from_mail.testcase"),
                ({"from_mail": "Looks good to me.\n", "tree": "demo"}, "from_mail"),
                ({"from_mail": 7}, "from_mail"),
                ({"from_mail": self.mail(FYI), "dry_run": "yes"}, "dry_run"),
                ({"dry_run": True}, "dry_run")):
            r = self.srv.post("/api/v1/requests", body, scope="submit")
            self.assertEqual(r.status, 400, (detail, r.body))
            self.assertEqual(r.json()["error"]["detail"], detail)
        # a commit this lab's tree does not have: accepted (no git on the HTTP side), then
        # failed by the resolver with the ref it could not find, no job queued
        r = self.srv.post("/api/v1/requests", {"from_mail": self.mail(FYI), "tree": "demo",
                                               "targets": ["x86_64"]}, scope="submit")
        q = resolved(self.srv, r)
        self.assertEqual((q["state"], q["jobs"]), ("failed", []), q)
        self.assertTrue(q["fail_reason"].startswith("base: '%s^'" % FYI_SHA), q["fail_reason"])
        r = self.srv.post("/api/v1/requests", {"from_mail": self.mail(BAD)}, scope="submit")
        self.assertEqual(r.json()["error"]["message"],
                         "the robot's mail is incomplete: no 'commit: SHA' line")

    def test_queued_from_the_mail(self):
        c0, c1 = self.tree["c0"], self.tree["c1"]
        mail = self.mail(FYI).replace(FYI_SHA, c1)  # a commit this test's tree has
        r = self.srv.post("/api/v1/requests", {"from_mail": mail, "tree": "demo",
                                               "targets": ["x86_64"], "repeat": 2},
                          scope="submit")
        q = resolved(self.srv, r)
        self.assertEqual((q["base"]["sha"], q["head"]["sha"]), (c0, c1))
        self.assertEqual(q["label"], "<20201217023445.GD27932@robot-host.example.org>")
        self.assertEqual(sorted(j["side"] for j in q["jobs"]), ["base", "base", "head", "head"])
        jobs = [self.srv.get("/api/v1/jobs/%d" % j["id"]).json() for j in q["jobs"]]
        self.assertEqual({(j["testcase"], json.dumps(j["params"], sort_keys=True))
                          for j in jobs}, {("small-allocs", '{"mode": "thread"}')})


if __name__ == "__main__":
    unittest.main()
