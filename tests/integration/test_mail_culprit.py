"""A bisect report about a real culprit: a git tree made here, the
real server (mirror, bisect, mailer) and fake workers speaking the worker
protocol; the mail goes to a real SMTP server (aiosmtpd).

Checked with exact values: the culprit's files (git numstat in the server's
mirror) decide which `paths` subscriptions receive the mail (mm/ and the glob
include/*.h do, fs/ does not); the diffstat is in the mail and in
GET /api/v1/bisects/{id}; the table compares every metric of the setup at
parent vs first bad commit (two changed rows, one unchanged metric left out
and counted); the machine line names the qemu guest the worker described,
on the host's CPU model."""
import os
import re
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fakes import (FakeWorker, git, git_init, stop_tree_server, tree_server,  # noqa: E402
                   wait_bisect_end)
from smtpsink import SmtpSink  # noqa: E402

METRIC = "vm-scalability.throughput"
def write(repo, path, text, append=False):
    full = os.path.join(repo, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "a" if append else "w") as f:
        f.write(text)


# (subject, {path: (text, append)}): c3 is the culprit: mm/mmap.c +3 -1 and
# include/linux/mm.h +1; the commits around it touch fs/ and Documentation/ only
COMMITS = [
    ("init", {"mm/mmap.c": ("int a;\nint b;\n", False), "fs/inode.c": ("int i;\n", False),
              "include/linux/mm.h": ("#define MM 1\n", False),
              "Documentation/mm.rst": ("mm\n", False)}),
    ("fs: tidy inode", {"fs/inode.c": ("int j;\n", True)}),
    ("Documentation: mm: typo", {"Documentation/mm.rst": ("mm.\n", False)}),
    ("mm/mmap: take the lock later", {"mm/mmap.c": ("int a;\nint c;\nint d;\nint e;\n", False),
                                      "include/linux/mm.h": ("#define MM2 2\n", True)}),
    ("fs: more inode", {"fs/inode.c": ("int k;\n", True)}),
    ("Documentation: more", {"Documentation/mm.rst": ("more\n", True)}),
]
CULPRIT = 3


def make_tree(path):
    git_init(path)
    shas = []
    for i, (subject, files) in enumerate(COMMITS):
        for p, (text, append) in files.items():
            write(path, p, text, append)
        git(path, "add", "-A")
        date = "2026-01-01T00:00:%02dZ" % i
        git(path, "commit", "-q", "-m", subject, date=date)
        shas.append(git(path, "rev-parse", "HEAD"))
    return shas


def values(i):
    """Per-run metric values at commit i: constant per commit (each run's two
    iterations average to them), so the table's means are exact."""
    slow = i >= CULPRIT
    v = {METRIC: 900.0 if slow else 1000.0,
         "vm-scalability.free_time": 2.5 if slow else 2.0,
         "vm-scalability.workload": 5000.0}
    return {k: [x - 1.0, x + 1.0] if x > 100 else [x, x] for k, x in v.items()}


MACHINE = {"hostname": "fake", "arch": "x86_64", "cpu_model": "Fake CPU 9000", "nr_cpus": 64,
           "memory_mb": 262144, "tbox_group": "vm-2p"}
# the machine the bisect's jobs name (lib/vmspec.h): host mode, vCPUs, pinning
SHAPE = {"accel": "tcg", "vcpus": 2, "pin": True}
# what worker/execute.c adds to a qemu run of that shape (the guest the case ran in)
GUEST = {"accel": "tcg", "cpus": 2,
         "guest": {"arch": "x86_64", "nr_cpus": 2, "memory_mb": 2048, "accel": "tcg",
                   "icount": False, "cpu_model": "qemu64", "pinned": [0, 32],
                   "hugepages": None, "numa": None}}


def build_config(job):
    """The .config a fake build stores: names its commit, so a link to it can be checked."""
    return "CONFIG_MMU=y\nCONFIG_LOCALVERSION=\"-%s\"\n" % job["commit"][:12]


def fake_worker(srv, name, index_of, stop):
    return FakeWorker(srv, name, stop, lambda job, rng: values(index_of[job["commit"]]),
                      machine=MACHINE, doc_extra=GUEST, kconfig=build_config)


class MailCulprit(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sink = SmtpSink()
        cls.sink.start()
        cls.tmp, cls.repo, cls.shas, cls.srv = tree_server(
            "regtrack-mail-culprit-", make_tree,
            "detect_enabled = 0\nsmtp_url = %s\nsmtp_starttls = none\n"
            "mail_from = regtrack bot <regtrack@example.org>\n"
            "public_url = https://perf.example.org\n" % cls.sink.url, dry_run=False)

    @classmethod
    def tearDownClass(cls):
        try:
            stop_tree_server(cls.srv, cls.tmp)
        finally:
            cls.sink.stop()

    def subscribe(self, email, paths):
        r = self.srv.post("/api/v1/subscriptions", {"email": email, "paths": paths},
                          scope="admin")
        self.assertEqual(r.status, 201, r)

    def test_1_culprit_paths_table_machine(self):
        srv, shas = self.srv, self.shas
        self.subscribe("mm@example.org", ["mm/"])
        self.subscribe("fs@example.org", ["fs/"])
        self.subscribe("headers@example.org", ["include/*.h"])
        self.subscribe("docs@example.org", ["Documentation", "scripts/"])
        r = srv.post("/api/v1/trees", {"name": "demo", "url": self.repo, "branches": ["master"]},
                     scope="admin")
        self.assertEqual(r.status, 200, r)
        index_of = {s: i for i, s in enumerate(shas)}
        stop = threading.Event()
        workers = [fake_worker(srv, "fake-%d" % i, index_of, stop) for i in range(2)]
        for w in workers:
            w.start()
        try:
            r = srv.post("/api/v1/bisects", {
                "tree": "demo", "good": shas[0], "bad": shas[-1], "testcase": "vm-scalability",
                "params": dict(SHAPE, test="small-allocs"), "kconfig": "x86_64-defconfig",
                "compiler": "gcc-12", "tbox_group": "vm-2p", "metric": METRIC},
                scope="submit")
            self.assertIn(r.status, (200, 201), r)
            bid = r.json()["id"]
            b = wait_bisect_end(srv, bid, 60)
        finally:
            stop.set()
            for w in workers:
                w.join(10)
        self.assertEqual((b["state"], b["outcome"]), ("done", "found"), b.get("reason"))
        fb = b["first_bad_commit"]
        self.assertEqual(fb["sha"], shas[CULPRIT])
        # the diffstat of the first bad commit, from git numstat in the mirror
        self.assertEqual(fb["diffstat"], {
            "files_changed": 2, "insertions": 4, "deletions": 1,
            "files": [{"path": "include/linux/mm.h", "insertions": 1, "deletions": 0},
                      {"path": "mm/mmap.c", "insertions": 3, "deletions": 1}]})

        mails = self.sink.wait_for(1)
        time.sleep(1.0)
        self.assertEqual(len(self.sink.messages), 1)
        m = mails[0]
        # paths: mm/ (prefix) and include/*.h (glob across '/') match; fs/ and
        # Documentation (touched by other commits of the range) do not
        self.assertEqual(sorted(m["rcpt_tos"]), ["headers@example.org", "mm@example.org"])
        msg = m["msg"]
        self.assertEqual(msg["Subject"], "[demo:master] [mm/mmap] %s: %s -10.0%% regression"
                         % (shas[CULPRIT][:12], METRIC))
        body = msg.get_content().replace("\r\n", "\n")
        self.assertIn("\nparent:   %s (\"Documentation: mm: typo\")\n"
                      "diffstat: 2 files changed, 4 insertions(+), 1 deletion(-)\n"
                      "          +1 -0  include/linux/mm.h\n"
                      "          +3 -1  mm/mmap.c\n" % shas[CULPRIT - 1], body)
        # what the jobs asked for (every param, the machine's included) and what the
        # runs got (the guest's pinned vCPUs)
        self.assertIn("\nmachine:  vm-2p - 2 vCPUs pinned, 2G memory, x86_64 qemu guest (tcg) "
                      "on Fake CPU 9000\n", body)
        self.assertIn("\nparameters:\n  accel: tcg\n  pin: true\n  test: small-allocs\n"
                      "  vcpus: 2\n", body)
        # the table: parent vs first bad commit, the bisected metric first, then the
        # other significant change; the unchanged metric is left out and counted
        table = body.split("%stddev", 1)[1].split("\n\n", 1)[0]
        rows = [l for l in table.splitlines() if re.search(r"  [a-z][\w.-]+$", l)]
        self.assertEqual(len(rows), 2, table)
        self.assertRegex(rows[0], r"^ +1000\.0 +-10\.0% +900\.0 +vm-scalability\.throughput$")
        self.assertRegex(rows[1], r"^ +2\.00 +\+25\.0% +2\.50 +vm-scalability\.free_time$")
        self.assertNotIn("vm-scalability.workload", table)
        self.assertIn("\n1 more metric of both commits left out (no significant change, or "
                      "beyond the table's size); all of them:\n  https://perf.example.org/api/v1/"
                      "compare?base=%s&head=%s&format=text\n" % (shas[CULPRIT - 1], shas[CULPRIT]),
                      body)
        # how to run it again: the service's curl, the token-free commands of both commits
        # (as many runs as the table has at the first bad commit) and the culprit's .config
        runs = int(srv.psql("SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id "
                            "JOIN regressions g ON g.setup_id = r.setup_id "
                            "WHERE c.sha = '%s' AND g.bisect_id = %d" % (shas[CULPRIT], bid))
                   .split()[0])
        self.assertGreater(runs, 0)
        local = ("\nto run the data points on your own machine, inside a kernel tree (no server, "
                 "no token):\n\n"
                 "  # first bad commit\n"
                 "  regtrack-worker reproduce --kconfig x86_64-defconfig --testcase vm-scalability "
                 "--params accel=tcg,pin=true,test=small-allocs,vcpus=2 --commit %s --repeat %d\n\n"
                 "  # its parent\n"
                 "  regtrack-worker reproduce --kconfig x86_64-defconfig --testcase vm-scalability "
                 "--params accel=tcg,pin=true,test=small-allocs,vcpus=2 --commit %s --repeat %d\n"
                 % (shas[CULPRIT], runs, shas[CULPRIT - 1], runs))
        self.assertIn(local, body)
        cfg = re.search(r"\nkernel \.config: https://perf\.example\.org(/api/v1/jobs/\d+/kconfig)\n",
                        body)
        self.assertIsNotNone(cfg, body)
        r = srv.get(cfg.group(1))
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.body, build_config({"commit": shas[CULPRIT]}))
        # the same numbers as GET /api/v1/compare for that pair
        cmp = srv.get("/api/v1/compare?base=%s&head=%s" % (shas[CULPRIT - 1], shas[CULPRIT])).json()
        got = {r["metric"]: (r["mean"], r["verdict"]) for r in cmp["rows"]}
        self.assertEqual(got, {METRIC: ([1000.0, 900.0], "different"),
                               "vm-scalability.free_time": ([2.0, 2.5], "different"),
                               "vm-scalability.workload": ([5000.0, 5000.0], "same")})


    def test_2_range_of_one_commit(self):
        """A detected range of one commit (not bisected): that commit is the
        culprit whose files the paths subscriptions are matched against."""
        shas = self.shas
        rid = int(self.srv.psql(
            "INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
            "state, change_pct, verdict, n_before, n_after, commits_after, pair_verdict) "
            "SELECT r.setup_id, m.id, g.id, b.id, 'regression', 'confirmed', -5.0, 'different', "
            "5, 5, 1, 'different' FROM runs r, commits g, commits b, metrics m "
            "WHERE g.sha = '%s' AND b.sha = '%s' AND m.name = '%s' LIMIT 1 RETURNING id"
            % (shas[0], shas[1], METRIC)).split()[0])
        before = len(self.sink.messages)
        r = self.srv.post("/api/v1/regressions/%d/report" % rid, {}, scope="admin")
        self.assertEqual(r.status, 202, r)
        m = self.sink.wait_for(before + 1)[before]
        # "fs: tidy inode" touched fs/inode.c only
        self.assertEqual(m["rcpt_tos"], ["fs@example.org"])
        # no run at the bad commit, so no branch known: the tree alone
        self.assertEqual(m["msg"]["Subject"], "[demo] %s..%s: %s -5.0%% regression"
                         % (shas[0][:12], shas[1][:12], METRIC))
        body = m["msg"].get_content().replace("\r\n", "\n")
        self.assertIn("\nbad:      %s (\"fs: tidy inode\")\n"
                      "diffstat: 1 file changed, 1 insertion(+)\n"
                      "          +1 -0  fs/inode.c\n" % shas[1], body)


if __name__ == "__main__":
    unittest.main()
