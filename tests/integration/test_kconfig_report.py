"""The report text as mailed and the .config difference between builds
(read scope): GET /api/v1/regressions/{id}/report,
GET /api/v1/{bisects,regressions}/{id}/kconfig-diff and
GET /api/v1/kconfig/diff?base_job=&head_job=.

A bisect started by hand over a real git tree of 16 commits, one fake
worker speaking the worker protocol: every build before the culprit
reports the real x86_64-tiny-mm .config, every build from the culprit on
the real one Kconfig made after PREEMPT/THP/HZ were switched
(tests/fixtures/kconfig/README.md), so the first bad commit's build differs
from its parent's by exactly what the kernel's scripts/diffconfig printed
for the two files. The bisect records a regression and its report is
mailed (dry run); the report endpoint gives that mail's text without its
recipients.
"""
import email
import email.policy
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TOP, Server, result_doc, sha, wait_until  # noqa: E402
from fakes import git  # noqa: E402

N = 16          # commits c0..c15
CULPRIT = 11    # the first slow commit, and the first with the new .config
METRIC = "page-fault.ops_per_sec"
CC = "perf-team@example.org"
FIX = os.path.join(TOP, "tests", "fixtures", "kconfig")


def read(name):
    with open(os.path.join(FIX, name)) as f:
        return f.read()


BASE_CONFIG = read("x86_64-tiny-mm.config")
HEAD_CONFIG = read("x86_64-tiny-mm-preempt-thp.config")
DIFFCONFIG = read("x86_64-tiny-mm-preempt-thp.diffconfig").splitlines()


class KconfigAndReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="regtrack-kconfig-")
        cls.repo = os.path.join(cls.tmp, "linux")
        subprocess.run(["git", "init", "-q", "-b", "master", cls.repo], check=True, timeout=60)
        cls.shas = []
        for i in range(N):
            date = "2026-10-01T00:00:%02dZ" % i
            git(cls.repo, "commit", "-q", "--allow-empty", "-m",
                "mm/thp: default to always" if i == CULPRIT else "mm/page_alloc: change %d" % i,
                env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
            cls.shas.append(git(cls.repo, "rev-parse", "HEAD"))
        cls.mail_dir = os.path.join(cls.tmp, "mail")
        conf = os.path.join(cls.tmp, "server.conf")
        with open(conf, "w") as f:
            f.write("data_dir = %s\nbisect_share_pct = 100\nbisect_poll_ms = 100\n"
                    "detect_enabled = 0\nmail_dry_run_dir = %s\nmail_cc = %s\n"
                    "mail_poll_ms = 100\nauto_bisect = 0\n"
                    % (os.path.join(cls.tmp, "data"), cls.mail_dir, CC))
        cls.srv = Server(extra_args=["--config", conf])
        cls.bisect = cls.run_bisect()

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        subprocess.run(["rm", "-rf", "--", cls.tmp], timeout=60)
        assert rc == 0, "server exited %d (sanitizer report in its log)" % rc

    @classmethod
    def run_bisect(cls):
        srv, shas = cls.srv, cls.shas
        index = {s: i for i, s in enumerate(shas)}
        r = srv.post("/api/v1/trees", {"name": "demo", "url": cls.repo, "branches": ["master"]},
                     scope="admin")
        assert r.status == 200, r
        r = srv.post("/api/v1/workers/register", {
            "hostname": "lkp-kc-1", "arch": "x86_64", "tbox_group": "vm-2p", "nr_cpus": 2,
            "memory_mb": 2048, "cpu_model": "fake", "capabilities": ["qemu-x86_64"],
            "fingerprint": {}}, scope="worker")
        assert r.status == 200, r
        mid = r.json()["machine_id"]
        r = srv.post("/api/v1/bisects", {
            "tree": "demo", "good": shas[0], "bad": shas[-1], "testcase": "page-fault",
            "params": {"nr_task": "2"}, "kconfig": "x86_64-tiny-mm", "compiler": "gcc-12",
            "tbox_group": "vm-2p", "metric": METRIC}, scope="submit")
        assert r.status == 201, r
        bid = r.json()["id"]
        cls.jobs = {}  # commit index -> job ids that reported a .config
        deadline = time.monotonic() + 90
        n = 0
        while time.monotonic() < deadline:
            b = srv.get("/api/v1/bisects/%d" % bid).json()
            if b["state"] not in ("queued", "running"):
                break
            r = srv.post("/api/v1/jobs/lease", {"machine_id": mid, "wait_s": 1}, scope="worker")
            if r.status != 200:
                continue
            job = r.json()["job"]
            i = index[job["commit"]]
            docs = []
            for k in range(job["repeat"]):
                v = (850000.0 if i >= CULPRIT else 1000000.0) * (1 + ((n * 7 + k * 3) % 11 - 5) * 0.002)
                docs.append(result_doc(job["commit"], testcase=job["testcase"], job_id=job["id"],
                                       params=job["params"], kconfig=job["kconfig"],
                                       compiler=job["compiler"], tree="demo",
                                       machine={"hostname": "lkp-kc-1", "arch": "x86_64",
                                                "cpu_model": "fake", "nr_cpus": 2,
                                                "memory_mb": 2048, "tbox_group": "vm-2p"},
                                       metrics={METRIC: [v]}))
            n += 1
            r = srv.post("/api/v1/jobs/%d/complete" % job["id"], {
                "machine_id": mid, "status": "ok", "results": docs, "log_tail": "ok\n",
                "kconfig": HEAD_CONFIG if i >= CULPRIT else BASE_CONFIG}, scope="worker")
            assert r.status == 200, r
            cls.jobs.setdefault(i, []).append(job["id"])
        assert b["state"] == "done", b
        assert b["first_bad_commit"]["sha"] == shas[CULPRIT], b
        return b

    def test_bisect_kconfig_diff_parent_vs_first_bad(self):
        srv, shas, b = self.srv, self.shas, self.bisect
        r = srv.get("/api/v1/bisects/%d/kconfig-diff" % b["id"], scope="read")
        self.assertEqual(r.status, 200, r)
        d = r.json()
        # the builds: the bisect's newest job at the parent and at the first bad commit
        self.assertEqual(d["base"], {"role": "parent", "commit": shas[CULPRIT - 1],
                                     "subject": "mm/page_alloc: change %d" % (CULPRIT - 1),
                                     "job_id": max(self.jobs[CULPRIT - 1]), "options": 1100})
        self.assertEqual(d["head"], {"role": "first_bad", "commit": shas[CULPRIT],
                                     "subject": "mm/thp: default to always",
                                     "job_id": max(self.jobs[CULPRIT]), "options": 1107})
        # exactly what the kernel's scripts/diffconfig printed for the two files
        self.assertEqual(d["lines"], DIFFCONFIG)
        self.assertEqual((d["identical"], d["removed"], d["changed"], d["added"]),
                         (False, 6, 9, 13))
        self.assertEqual(d["lines"][8], " HZ 250 -> 1000")
        self.assertEqual(d["entries"][8], {"op": "changed", "name": "CONFIG_HZ",
                                           "old": "250", "new": "1000"})
        self.assertEqual(d["entries"][0], {"op": "removed", "name": "CONFIG_INLINE_READ_UNLOCK",
                                           "old": "y", "new": None})
        self.assertEqual(d["entries"][-1], {"op": "added", "name": "CONFIG_XARRAY_MULTI",
                                            "old": None, "new": "y"})
        # the regression the bisect recorded answers the same
        r = srv.get("/api/v1/regressions/%d/kconfig-diff" % b["regression_id"], scope="read")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json(), d)
        self.assertEqual(srv.get("/api/v1/bisects/999999/kconfig-diff").json()["error"],
                         {"code": "not_found", "message": "no bisect 999999", "detail": "id"})

    def test_job_pair(self):
        srv = self.srv
        a, b = max(self.jobs[0]), max(self.jobs[N - 1])
        r = srv.get("/api/v1/kconfig/diff?base_job=%d&head_job=%d" % (a, b), scope="read")
        self.assertEqual(r.status, 200, r)
        d = r.json()
        self.assertEqual(d["lines"], DIFFCONFIG)
        self.assertEqual((d["base"]["role"], d["base"]["commit"], d["base"]["job_id"]),
                         ("job", self.shas[0], a))
        # reversed: + and - swap, old and new swap
        d = srv.get("/api/v1/kconfig/diff?base_job=%d&head_job=%d" % (b, a)).json()
        self.assertEqual((d["removed"], d["changed"], d["added"]), (13, 9, 6))
        self.assertEqual(d["lines"][13 + 2], " HZ 1000 -> 250")
        # two builds of the same .config: identical, with the number of options
        a2 = min(self.jobs[0])
        d = srv.get("/api/v1/kconfig/diff?base_job=%d&head_job=%d" % (a2, a)).json()
        self.assertEqual((d["identical"], d["lines"], d["entries"], d["head"]["options"]),
                         (True, [], [], 1100))

    def test_job_pair_errors(self):
        srv = self.srv
        a = max(self.jobs[0])
        cases = [
            ("?head_job=%d" % a, 400, "missing_field", "base_job"),
            ("?base_job=x&head_job=%d" % a, 400, "invalid_field", "base_job"),
            ("?base_job=%d&head_job=-3" % a, 400, "invalid_field", "head_job"),
            ("?base_job=%d&head_job=999999" % a, 404, "not_found", "head_job"),
        ]
        for q, status, code, detail in cases:
            r = srv.get("/api/v1/kconfig/diff" + q, scope="read")
            self.assertEqual((r.status, r.json()["error"]["code"], r.json()["error"]["detail"]),
                             (status, code, detail), (q, r))
        # a job that never reported a .config
        r = srv.post("/api/v1/jobs", {"commit": self.shas[3], "kconfig": "host",
                                      "testcase": "hackbench", "params": {"mode": "threads"},
                                      "tbox_group": "vm-2p"}, scope="submit")
        self.assertEqual(r.status, 201, r)
        jid = r.json()["id"]
        r = srv.get("/api/v1/kconfig/diff?base_job=%d&head_job=%d" % (jid, a))
        self.assertEqual((r.status, r.json()["error"]["message"]),
                         (404, "job %d has no .config" % jid))

    def test_report_of_hand_started_bisect(self):
        srv, shas, b = self.srv, self.shas, self.bisect
        rid = b["regression_id"]
        self.assertIsNotNone(rid)  # a bisect started by hand records a regression
        path = "/api/v1/regressions/%d/report" % rid

        def mails():
            r = srv.get(path, scope="read")
            self.assertEqual(r.status, 200, r)
            ms = r.json()["mails"]
            return ms if ms and ms[0]["state"] == "dry_run" else None
        ms = wait_until(mails, what="the bisect report rendered")
        self.assertEqual(len(ms), 1, ms)
        m = ms[0]
        oid, subject = srv.psql("SELECT id, subject FROM outbox WHERE bisect_id = %d"
                                % b["id"]).split("|", 1)
        self.assertEqual((m["id"], m["kind"], m["bisect_id"], m["rendered"], m["in_reply_to"]),
                         (int(oid), "bisect", b["id"], True, None))
        self.assertEqual(m["subject"], subject)
        self.assertTrue(m["subject"].startswith("[demo:master] [mm/thp] %s: %s " % (shas[CULPRIT][:12],
                                                                               METRIC)), m)
        self.assertIsNotNone(m["sent_at"])
        # the text as mailed: the dry-run file's body and Message-ID are the same
        with open(os.path.join(self.mail_dir, "%s.eml" % oid), "rb") as f:
            parsed = email.message_from_binary_file(f, policy=email.policy.default)
        self.assertEqual(m["message_id"], parsed["Message-ID"])
        self.assertEqual(m["body"].replace("\r\n", "\n"),
                         parsed.get_body().get_content().replace("\r\n", "\n"))
        self.assertIn("#regzbot introduced: %s" % shas[CULPRIT], m["body"])
        # read scope never sees who got it
        text = srv.get(path, scope="read").body
        self.assertIn(CC, parsed["Cc"] or parsed["To"])
        self.assertNotIn(CC, text)
        self.assertNotIn("recipients", m)
        self.assertNotIn("last_error", m)

    def test_report_newest_first_queued_and_skipped(self):
        srv = self.srv
        # a regression of its own range (runs by hand, no bisect, no job)
        for c, v in ((sha("1"), 100.0), (sha("2"), 80.0)):
            r = srv.post("/api/v1/results", result_doc(c, metrics={"vm-scalability.throughput": [v]}),
                         scope="submit")
            self.assertIn(r.status, (200, 201), r)
        rid = int(srv.psql(
            "INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
            "state, change_pct, verdict, n_before, n_after, commits_after, pair_verdict) "
            "SELECT r.setup_id, m.id, g.id, b.id, 'regression', 'confirmed', -20, 'different', "
            "1, 1, 1, 'different' FROM runs r JOIN commits b ON b.id = r.commit_id, commits g, "
            "metrics m WHERE b.sha = '%s' AND g.sha = '%s' AND m.name = "
            "'vm-scalability.throughput' LIMIT 1 RETURNING id" % (sha("2"), sha("1"))).split()[0])
        path = "/api/v1/regressions/%d/report" % rid
        self.assertEqual(srv.get(path).json(), {"regression_id": rid, "mails": []})
        # no job built these commits: no .config to compare, and the answer says which
        r = srv.get("/api/v1/regressions/%d/kconfig-diff" % rid)
        self.assertEqual((r.status, r.json()["error"]), (404, {
            "code": "not_found", "detail": "base",
            "message": "no .config stored for the good build (commit %s, kconfig "
                       "x86_64-defconfig): no job of it reported one" % sha("1")[:12]}))
        # two reports asked for by hand: the second is a reply, listed first
        ids = []
        for _ in range(2):
            r = srv.post("/api/v1/regressions/%d/report" % rid, {}, scope="admin")
            self.assertEqual(r.status, 202, r)
            ids.append(r.json()["outbox_id"])
            wait_until(lambda: srv.psql("SELECT state FROM outbox WHERE id = %d" % ids[-1])
                       == "dry_run", what="dry run")
        ms = srv.get(path).json()["mails"]
        self.assertEqual([m["id"] for m in ms], ids[::-1])
        self.assertEqual(ms[0]["in_reply_to"], ms[1]["message_id"])
        self.assertEqual(ms[0]["subject"], "Re: " + ms[1]["subject"])
        self.assertEqual([m["kind"] for m in ms], ["range", "range"])
        # a row not rendered yet is listed (queued, no text); a skipped one with its
        # reason ("no recipients" shown where people look); failed ones are not
        q = int(srv.psql("INSERT INTO outbox (kind, regression_id, next_attempt_at) "
                         "VALUES ('range', %d, now() + interval '1 hour') RETURNING id"
                         % rid).split()[0])
        sk = int(srv.psql("INSERT INTO outbox (kind, regression_id, state, last_error) VALUES "
                          "('range', %d, 'skipped', 'no recipients') RETURNING id"
                          % rid).split()[0])
        srv.psql("INSERT INTO outbox (kind, regression_id, state, last_error) VALUES "
                 "('fixed', %d, 'failed', 'x')" % rid)
        ms = srv.get(path, scope="read").json()["mails"]
        self.assertEqual([m["id"] for m in ms], [sk, q] + ids[::-1])
        self.assertEqual({k: ms[0][k] for k in ("state", "reason", "rendered", "subject")},
                         {"state": "skipped", "reason": "no recipients", "rendered": False,
                          "subject": None})
        self.assertEqual({k: ms[1][k] for k in ("state", "rendered", "subject", "body",
                                                "message_id", "sent_at", "reason")},
                         {"state": "queued", "rendered": False, "subject": None, "body": None,
                          "message_id": None, "sent_at": None, "reason": None})

    def test_report_errors(self):
        srv = self.srv
        r = srv.get("/api/v1/regressions/999999/report", scope="read")
        self.assertEqual((r.status, r.json()), (404, {"error": {
            "code": "not_found", "message": "no regression 999999", "detail": "id"}}))
        r = srv.get("/api/v1/regressions/abc/report", scope="read")
        self.assertEqual((r.status, r.json()["error"]["code"]), (400, "invalid_field"))
        self.assertEqual(srv.get("/api/v1/regressions/999999/kconfig-diff").json()["error"],
                         {"code": "not_found", "message": "no regression 999999", "detail": "id"})


if __name__ == "__main__":
    unittest.main()
