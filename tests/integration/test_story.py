"""The regression's story: GET /api/v1/regressions/{id}
carries its arch, its bisect's first bad commit (subject, author, diffstat,
confidence, parent) and `also_seen`, the same change on other arches by the
rule of server/db/regressions.h; the report mail says "also seen on arm64:
-62.0%" and ends its table with the top changed perf-profile.* rows of the
profiled runs at the first bad commit and its parent, as the 0-day robot
prints them. Runs are posted result documents, records and the bisect are
written by psql; the mail goes to a real SMTP server (aiosmtpd)."""
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc, sha, wait_until  # noqa: E402
from smtpsink import SmtpSink  # noqa: E402

METRIC = "vm-scalability.throughput"
PARAMS = {"test": "small-allocs", "nr_task": "100%"}
G0, P, F, L = sha("a"), sha("b"), "86e4851" + "0" * 33, sha("d")  # oldest first
SUBJECT = "mm/mmap: delay every mapping (demo_delay)"
RUNS = 6  # a side: enough for `different` at alpha 0.01 after Benjamini-Hochberg

# perf-profile.* means at the parent and at the first bad commit (percent of samples)
PROFILE = {
    "perf-profile.children.cycles-pp.demo_delay": (0.5, 40.0),    # +7900 %
    "perf-profile.self.cycles-pp.demo_delay": (0.4, 38.0),        # +9400 %
    "perf-profile.children.cycles-pp.do_mmap": (10.0, 30.0),      # +200 %
    "perf-profile.children.cycles-pp.exit_mmap": (20.0, 12.0),    # -40 %
    "perf-profile.self.cycles-pp.osq_lock": (5.0, 5.05),          # +1 %: below the 5 % floor
}
# ten more changed symbols, +10 % .. +19 %: only the largest six fit the ten rows
for i in range(10):
    PROFILE["perf-profile.children.cycles-pp.f%02d" % i] = (1.0, 1.0 * (1.10 + 0.01 * i))

ARCHES = {  # arch: (kconfig, tbox_group, machine arch)
    "x86_64": ("x86_64-defconfig", "qemu-x86_64-tcg-2c", "x86_64"),
    "arm64": ("arm64-defconfig", "qemu-arm64-tcg-2c", "aarch64"),
    "riscv64": ("host", "rv-box", "riscv64"),
}


def write_config(extra):
    f = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    f.write("\n".join("%s = %s" % kv for kv in extra.items()) + "\n")
    f.close()
    return f.name


class Story(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sink = SmtpSink()
        cls.sink.start()
        cls.conf = write_config({
            "smtp_url": cls.sink.url, "smtp_starttls": "none",
            "mail_from": "regtrack bot <regtrack@example.org>",
            "public_url": "https://perf.example.org", "mail_poll_ms": 100,
            "mail_cc": "cc@example.org",
            # the records are inserted confirmed: no automatic bisect may take them
            "detect_enabled": 0, "auto_bisect": 0})
        cls.srv = Server(extra_args=["--config", cls.conf])
        cls.post_runs()
        cls.records()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.sink.stop()
        os.unlink(cls.conf)

    @classmethod
    def q(cls, sql):
        return cls.srv.psql(sql).strip()

    @classmethod
    def post(cls, arch, commit, metrics):
        kconfig, tbox, march = ARCHES[arch]
        doc = result_doc(commit, metrics=metrics, kconfig=kconfig, params=PARAMS,
                         machine={"hostname": "box-" + arch, "arch": march, "cpu_model": "cpu",
                                  "nr_cpus": 2, "memory_mb": 4096, "tbox_group": tbox})
        r = cls.srv.post("/api/v1/results", doc, scope="submit")
        assert r.status in (200, 201), r

    @classmethod
    def post_runs(cls):
        # commits first seen oldest first: the series order without a mirror
        for c in (G0, L):
            cls.post("x86_64", c, {METRIC: [1000.0]})
        for k in range(RUNS):
            for c, before in ((P, True), (F, False)):
                m = {METRIC: [(1000.0 if before else 390.0) + k]}
                for name, (a, b) in PROFILE.items():
                    m[name] = [(a if before else b) * (1 + 0.001 * k)]
                cls.post("x86_64", c, m)
        for c in (G0, F, L):
            cls.post("arm64", c, {METRIC: [800.0]})
            cls.post("riscv64", c, {METRIC: [700.0]})
        cls.q("UPDATE commits SET subject = '%s', author = 'Jane Dev <jane@example.org>', "
              "parents = ARRAY['%s'] WHERE sha = '%s'" % (SUBJECT, P, F))
        cls.q("UPDATE commits SET subject = 'mm: prepare' WHERE sha = '%s'" % P)
        cls.q("INSERT INTO commit_diffstat (commit_id, files_changed, insertions, deletions) "
              "SELECT id, 1, 5, 0 FROM commits WHERE sha = '%s'" % F)
        cls.q("INSERT INTO commit_files (commit_id, path, insertions, deletions) "
              "SELECT id, 'mm/mmap.c', 5, 0 FROM commits WHERE sha = '%s'" % F)

    @classmethod
    def record(cls, arch, good, bad, hl_pct, metric=METRIC):
        kconfig, tbox, _ = ARCHES[arch]
        return int(cls.q(
            "INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
            "state, change_pct, hl_pct, ci_lo_pct, ci_hi_pct, verdict, n_before, n_after, "
            "commits_after, pair_verdict) SELECT s.id, m.id, g.id, b.id, 'regression', "
            "'confirmed', %f, %f, %f, %f, 'different', 5, 5, 1, 'different' FROM setups s, "
            "metrics m, commits g, commits b WHERE s.kconfig = '%s' AND s.tbox_group = '%s' "
            "AND m.name = '%s' AND g.sha = '%s' AND b.sha = '%s' RETURNING id"
            % (hl_pct - 0.5, hl_pct, hl_pct - 1.5, hl_pct + 1.5, kconfig, tbox, metric, good,
               bad)).split()[0])

    @classmethod
    def records(cls):
        cls.x86 = cls.record("x86_64", P, F, -61.0)
        # arm64: a wider range (G0, F] overlapping (P, F]
        cls.arm = cls.record("arm64", G0, F, -62.0)
        # riscv64: (F, L] does not overlap (P, F]; the arm64 record of another metric
        # is another change
        cls.rv = cls.record("riscv64", F, L, -60.0)
        cls.q("INSERT INTO metrics (name, higher_is_better) VALUES ('vm-scalability.free_time', "
              "false)")
        cls.q("INSERT INTO run_values (run_id, metric_id, vals) SELECT r.id, m.id, '{1}' "
              "FROM runs r JOIN setups s ON s.id = r.setup_id, metrics m WHERE s.kconfig = "
              "'arm64-defconfig' AND m.name = 'vm-scalability.free_time'")
        cls.other = cls.record("arm64", G0, F, -30.0, metric="vm-scalability.free_time")
        cls.bid = int(cls.q(
            "INSERT INTO bisects (state, tree_id, good_id, bad_id, testcase_id, params, kconfig, "
            "compiler, metric, first_bad_id, confidence, outcome, regression_id, verification, "
            "finished_at) SELECT 'done', t.id, p.id, f.id, s.testcase_id, s.params, s.kconfig, "
            "s.compiler, '%s', f.id, 0.9987, 'found', %d, '{\"verdict\": \"different\"}', now() "
            "FROM trees t, commits p, commits f, regressions g JOIN setups s ON s.id = g.setup_id "
            "WHERE t.name = 'linux' AND p.sha = '%s' AND f.sha = '%s' AND g.id = %d RETURNING id"
            % (METRIC, cls.x86, P, F, cls.x86)).split()[0])
        cls.q("UPDATE regressions SET bisect_id = %d, state = 'bisected' WHERE id = %d"
              % (cls.bid, cls.x86))

    def test_1_regression_reply_tells_the_bisect(self):
        r = self.srv.get("/api/v1/regressions/%d" % self.x86, scope="read")
        self.assertEqual(r.status, 200, r)
        o = r.json()
        self.assertEqual(o["arch"], "x86_64")
        self.assertEqual(o["bad"]["sha"], F)  # the record's range end ...
        b = o["bisect"]
        self.assertEqual((b["id"], b["state"], b["outcome"], b["confidence"]),
                         (self.bid, "done", "found", 0.9987))
        fb = b["first_bad_commit"]  # ... and what the bisect found, with its story
        self.assertEqual((fb["sha"], fb["subject"], fb["author"]),
                         (F, SUBJECT, "Jane Dev <jane@example.org>"))
        self.assertEqual(fb["diffstat"], {"files_changed": 1, "insertions": 5, "deletions": 0,
                                          "files": [{"path": "mm/mmap.c", "insertions": 5,
                                                     "deletions": 0}]})
        self.assertEqual(b["parent"], {"sha": P, "subject": "mm: prepare"})
        self.assertEqual(b["profile_diff"], "/api/v1/bisects/%d/profile-diff" % self.bid)
        # a record without a bisect says so
        self.assertIsNone(self.srv.get("/api/v1/regressions/%d" % self.arm).json()["bisect"])

    def test_2_also_seen(self):
        o = self.srv.get("/api/v1/regressions/%d" % self.x86).json()
        # arm64 overlaps; riscv64's range does not; the other metric is another change
        self.assertEqual(o["also_seen"], [{
            "arch": "arm64", "regression_id": self.arm, "kind": "regression",
            "state": "confirmed", "hl_pct": -62.0, "change_pct": -62.5, "ci_pct": [-63.5, -60.5],
            "p_value": None, "tbox_group": "qemu-arm64-tcg-2c", "kconfig": "arm64-defconfig",
            "bisect_id": None, "first_bad": {"sha": F, "subject": SUBJECT, "source": "range"},
            "match": "range", "url": "/regressions/%d" % self.arm}])
        # seen from arm64: x86_64's first bad commit is its bisect's
        a = self.srv.get("/api/v1/regressions/%d" % self.arm).json()
        self.assertEqual(a["arch"], "arm64")
        self.assertEqual([(s["arch"], s["regression_id"], s["hl_pct"], s["first_bad"]["source"],
                           s["bisect_id"]) for s in a["also_seen"]],
                         [("x86_64", self.x86, -61.0, "bisect", self.bid)])
        # the arch of a "host" kconfig is its machine's
        rv = self.srv.get("/api/v1/regressions/%d" % self.rv).json()
        self.assertEqual((rv["arch"], rv["also_seen"]), ("riscv64", []))
        self.assertEqual(self.srv.get("/api/v1/regressions/%d" % self.other).json()["also_seen"],
                         [])

    def test_3_mail_also_seen_and_profile_rows(self):
        before = len(self.sink.messages)
        r = self.srv.post("/api/v1/regressions/%d/report" % self.x86, {}, scope="admin")
        self.assertEqual(r.status, 202, r)
        m = self.sink.wait_for(before + 1)[before]["msg"]
        body = m.get_content().replace("\r\n", "\n")
        self.assertIn("and bisected it to commit 86e485100000.\n"
                      "also seen on arm64: -62.0%% (https://perf.example.org/regressions/%d)\n"
                      "evidence: the 1 tested commit after moved by -61.0 %% [-62.5, -59.5]\n\n"
                      "commit:   %s" % (self.arm, F), body)
        table = body.split("%stddev", 1)[1].split("\n\n", 1)[0]
        rows = [l for l in table.splitlines() if re.search(r"  [a-z][\w.-]+$", l)]
        names = [l.split()[-1] for l in rows]
        pp = "perf-profile.children.cycles-pp."
        # the bisected metric, then the ten largest significant perf-profile changes by
        # |%change|: children first, then self; osq_lock (+1 %) and f00..f03 left out
        self.assertEqual(names, [METRIC, pp + "demo_delay", pp + "do_mmap", pp + "exit_mmap"] +
                         [pp + "f%02d" % i for i in range(9, 3, -1)] +
                         ["perf-profile.self.cycles-pp.demo_delay"])
        # the robot's form: perf-profile rows show the absolute delta of the percentages
        self.assertRegex(rows[1], r"^ +0\.50 +\+39\.6 +40\.1\d* +" + re.escape(pp) + "demo_delay$")
        self.assertRegex(rows[3], r"^ +20\.0\d* +-8\.0 +12\.0\d* +" + re.escape(pp) + "exit_mmap$")
        # the mail's own metric keeps LKP's %change: 1002.5 -> 392.5
        self.assertRegex(rows[0], r"^ +1002\.?\d* +-60\.8% +392\.5\d* +" + re.escape(METRIC) + "$")

    def test_4_range_report_without_profiles(self):
        """arm64's record: no profiled runs at its range's ends: no profile rows,
        and x86_64 where the bisect found the same change."""
        before = len(self.sink.messages)
        r = self.srv.post("/api/v1/regressions/%d/report" % self.arm, {}, scope="admin")
        self.assertEqual(r.status, 202, r)
        body = self.sink.wait_for(before + 1)[before]["msg"].get_content().replace("\r\n", "\n")
        self.assertIn("(not bisected).\nalso seen on x86_64: -61.0%% "
                      "(https://perf.example.org/regressions/%d)\n"
                      "evidence: the 1 tested commit after moved by -62.0 %% [-63.5, -60.5]\n\n"
                      % self.x86, body)
        self.assertNotIn("perf-profile.", body)

    def test_5_same_culprit_on_another_arch_replies_in_its_thread(self):
        """A second arch's bisect names the same first bad commit: its report is a
        reply in the thread of the first arch's report (one thread per culprit),
        and its reproduce commands build for its arch."""
        arm2 = self.record("arm64", P, F, -62.0)
        bid = int(self.q(
            "INSERT INTO bisects (state, tree_id, good_id, bad_id, testcase_id, params, kconfig, "
            "compiler, metric, first_bad_id, confidence, outcome, regression_id, finished_at) "
            "SELECT 'done', t.id, g.id, f.id, s.testcase_id, s.params, s.kconfig, s.compiler, "
            "'%s', f.id, 0.99, 'found', r.id, now() FROM trees t, commits g, commits f, "
            "regressions r JOIN setups s ON s.id = r.setup_id WHERE t.name = 'linux' "
            "AND g.sha = '%s' AND f.sha = '%s' AND r.id = %d RETURNING id"
            % (METRIC, P, F, arm2)).split()[0])
        self.q("UPDATE regressions SET bisect_id = %d, state = 'bisected' WHERE id = %d"
               % (bid, arm2))
        seen = self.srv.get("/api/v1/regressions/%d" % arm2).json()["also_seen"]
        self.assertEqual([(s["arch"], s["regression_id"], s["match"]) for s in seen],
                         [("x86_64", self.x86, "first_bad")])
        # the thread: x86_64's first report (test_3)
        first = min((o for o in self.srv.get("/api/v1/outbox?regression=%d" % self.x86,
                                             scope="admin").json()), key=lambda o: o["id"])
        before = len(self.sink.messages)
        r = self.srv.post("/api/v1/regressions/%d/report" % arm2, {}, scope="admin")
        self.assertEqual(r.status, 202, r)
        m = self.sink.wait_for(before + 1)[before]["msg"]
        self.assertEqual(m["Subject"], "Re: " + first["subject"])
        self.assertEqual((m["In-Reply-To"], m["References"]),
                         (first["message_id"], first["message_id"]))
        body = m.get_content().replace("\r\n", "\n")
        self.assertIn("\n  # first bad commit\n  regtrack-worker reproduce --kconfig "
                      "arm64-defconfig --testcase vm-scalability --params "
                      "nr_task=100%%,test=small-allocs --arch aarch64 --commit %s --repeat " % F,
                      body)
        oid = r.json()["outbox_id"]
        # the row commits once the mail server said 250
        row = wait_until(lambda: [o for o in self.srv.get("/api/v1/outbox?regression=%d" % arm2,
                                                          scope="admin").json()
                                  if o["id"] == oid and o["state"] == "sent"], what="sent row")
        self.assertEqual((row[0]["thread_id"], row[0]["in_reply_to"]),
                         (first["id"], first["message_id"]))


if __name__ == "__main__":
    unittest.main()
