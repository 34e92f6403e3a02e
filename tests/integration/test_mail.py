"""Regression report mails against a real SMTP server (aiosmtpd):
one mail per report with the right headers, subject, table and links;
follow-ups thread under the first mail; an SMTP outage delays mail and
never drops or doubles it; header injection through commit subjects and
metric names is impossible; subscriptions API; dry-run mode."""
import email.utils
import os
import random
import re
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc, sha, wait_until  # noqa: E402
from smtpsink import SmtpSink  # noqa: E402

METRIC = "will-it-scale.per_process_ops"
GOOD = [123000.0, 123500.0, 123700.0]   # mean 123400
BAD = [108800.0, 108900.0, 108850.0]    # mean 108850: -11.79 % (the table's LKP %change);
#                                         Hodges-Lehmann shift -11.9 % (a bisect report's headline)


def write_config(extra):
    f = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    # auto_bisect is on by default; these tests start bisects themselves
    f.write("\n".join("%s = %s" % kv for kv in dict({"auto_bisect": 0}, **extra).items()) + "\n")
    f.close()
    return f.name


class Mail(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sink = SmtpSink()
        cls.sink.start()
        cls.conf = write_config({
            "smtp_url": cls.sink.url, "smtp_starttls": "none",
            "mail_from": "regtrack bot <regtrack@example.org>",
            "public_url": "https://perf.example.org/", "mail_cc": "cc@example.org",
            "mail_poll_ms": 100, "mail_retry_max_s": 1, "detect_enabled": 0})
        cls.srv = Server(extra_args=["--config", cls.conf])
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.sink.stop()
        os.unlink(cls.conf)

    def q(self, sql):
        return self.srv.psql(sql).strip()

    def regression(self, good, bad, subject="mm/mmap: take the lock later",
                   author="Jane Dev <jane@example.org>", metric=METRIC, bisect_id=None,
                   values=(GOOD, BAD), fps=(None, None)):
        """Runs at two commits through the API, then a regression record by psql.
        fps: each side's host_fingerprint (None: the runs carry none)."""
        for c, vals, fp in zip((good, bad), values, fps):
            for v in vals:
                extra = {"host_fingerprint": fp} if fp else {}
                doc = result_doc(c, testcase="will-it-scale", metrics={METRIC: [v, v]},
                                 params={"mode": "process", "nr_task": "100%", "test": "mmap1"},
                                 **extra)
                r = self.srv.post("/api/v1/results", doc, scope="submit")
                self.assertIn(r.status, (200, 201), r)
        subj = subject.replace("'", "''")
        self.q("UPDATE commits SET subject = E'%s', author = '%s' WHERE sha = '%s'"
               % (subj.replace("\r", "\\r").replace("\n", "\\n"), author, bad))
        self.q("UPDATE commits SET subject = 'mm/mmap: prepare' WHERE sha = '%s'" % good)
        mname = metric.replace("\r", "\\r").replace("\n", "\\n")
        self.q("INSERT INTO metrics (name, higher_is_better) VALUES (E'%s', true) "
               "ON CONFLICT (name) DO NOTHING" % mname)
        rid = self.q(
            "INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
            "state, change_pct, verdict, n_before, n_after, commits_after, pair_verdict, bisect_id) "
            "SELECT r.setup_id, m.id, g.id, b.id, 'regression', 'confirmed', -11.79, 'different', "
            "3, 3, 1, 'different', %s FROM runs r JOIN commits b ON b.id = r.commit_id, "
            "commits g, metrics m WHERE b.sha = '%s' AND g.sha = '%s' AND m.name = E'%s' "
            "LIMIT 1 RETURNING id" % (bisect_id or "NULL", bad, good, mname))
        return int(rid.split()[0])

    def report(self, rid):
        r = self.srv.post("/api/v1/regressions/%d/report" % rid, {}, scope="admin")
        self.assertEqual(r.status, 202, r)
        self.assertTrue(r.json()["mail_enabled"])
        return r.json()["outbox_id"]

    def row(self, oid):
        out = self.q("SELECT state, coalesce(message_id, ''), attempts FROM outbox WHERE id = %d"
                     % oid)
        state, mid, attempts = out.split("|")
        return state, mid, int(attempts)

    def test_1_subscriptions_api(self):
        r = self.srv.post("/api/v1/subscriptions", {"email": "mm@example.org", "tree": "linux",
                                                    "metric": "will-it-scale.*"}, scope="admin")
        self.assertEqual(r.status, 201, r)
        r2 = self.srv.post("/api/v1/subscriptions", {"email": "net@example.org",
                                                     "testcase": "netperf",
                                                     "paths": ["net/*"]}, scope="admin")
        self.assertEqual(r2.status, 201, r2)
        self.assertEqual(r2.json()["paths"], ["net/*"])
        bad = self.srv.post("/api/v1/subscriptions",
                            {"email": "x@example.org\r\nBcc: evil@x"}, scope="admin")
        self.assertEqual(bad.status, 400)
        self.assertEqual(bad.json()["error"]["detail"], "email")
        self.assertEqual(self.srv.post("/api/v1/subscriptions", {"tree": "linux"},
                                       scope="admin").status, 400)
        self.assertIn(self.srv.post("/api/v1/subscriptions", {"email": "a@example.org"},
                                    scope="read").status, (401, 403))
        subs = self.srv.get("/api/v1/subscriptions", scope="admin").json()
        self.assertEqual([s["email"] for s in subs], ["mm@example.org", "net@example.org"])
        self.assertEqual(subs[0]["metric"], "will-it-scale.*")
        tmp = self.srv.post("/api/v1/subscriptions", {"email": "tmp@example.org"}, scope="admin")
        path = "/api/v1/subscriptions/%d" % tmp.json()["id"]
        self.assertEqual(self.srv.request("DELETE", path, scope="admin").status, 204)
        self.assertEqual(self.srv.request("DELETE", path, scope="admin").status, 404)
        self.assertEqual(len(self.srv.get("/api/v1/subscriptions", scope="admin").json()), 2)
        self.assertEqual(self.srv.post("/api/v1/regressions/999999/report", {},
                                       scope="admin").status, 404)

    def test_2_bisect_report_and_followup(self):
        good, bad = sha("1"), "3c1a2b4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
        rid = self.regression(good, bad, bisect_id=42)
        before = len(self.sink.messages)
        oid = self.report(rid)
        mails = self.sink.wait_for(before + 1)
        m = mails[before]
        msg = m["msg"]
        self.assertEqual(msg["Subject"], "[linux:master] [mm/mmap] 3c1a2b4d5e6f: %s -11.9%% "
                         "regression" % METRIC)
        self.assertEqual(email.utils.parseaddr(msg["From"]),
                         ("regtrack bot", "regtrack@example.org"))
        self.assertEqual(m["mail_from"], "regtrack@example.org")
        # subscription (tree linux, metric glob) + mail_cc; net@ does not match
        self.assertEqual(sorted(m["rcpt_tos"]), ["cc@example.org", "mm@example.org"])
        self.assertRegex(msg["Message-ID"], r"^<[0-9a-f-]{36}@example\.org>$")
        self.assertIsNone(msg["In-Reply-To"])
        body = msg.get_content().replace("\r\n", "\n")
        self.assertIn("\ncommit:   %s (\"mm/mmap: take the lock later\")\n" % bad, body)
        self.assertIn("\nauthor:   Jane Dev <jane@example.org>\n", body)
        self.assertIn("\ntestcase: will-it-scale\n", body)
        self.assertIn("\nmachine:  vm-2p - 2 CPUs, 4G memory, x86_64 (test cpu)\n", body)
        self.assertIn("\nparameters:\n  mode: process\n  nr_task: 100%\n  test: mmap1\n", body)
        self.assertIn("\nReported-by: regtrack <regtrack@example.org>\n"
                      "Closes: https://perf.example.org/regressions/%d\n" % rid, body)
        self.assertIn("\n#regzbot introduced: %s\n" % bad, body)
        # the LKP table: means of the runs (123400 -> 108850 = -11.8 %)
        self.assertRegex(body, r"\n +123400 +-11\.8% +108850 +" + re.escape(METRIC) + r"\n")
        self.assertIn("  1111111111 (\"mm/mmap: prepare\")\n", body)
        self.assertIn('"commit":"%s"' % bad, body)
        self.assertIn(" https://perf.example.org/api/v1/jobs\n", body)
        self.assertIn("\ndashboard: https://perf.example.org/regressions/%d\n"
                      "bisect:    https://perf.example.org/bisects/42\n" % rid, body)
        # the one step to mark it a false alarm: its page and the exact command
        self.assertIn("\nnot a real change? an admin marks it invalid in one step, on "
                      "https://perf.example.org/regressions/%d or with:\n"
                      "  regtrack --server https://perf.example.org regression invalid %d "
                      "--reason \"...\"\n" % (rid, rid), body)
        state, mid, attempts = wait_until(lambda: self.row(oid)[0] == "sent" and self.row(oid),
                                          what="row sent")
        self.assertEqual((state, attempts), ("sent", 1))
        self.assertEqual(mid, msg["Message-ID"])

        # marked fixed: the trigger queues a follow-up that replies in the thread
        self.q("UPDATE regressions SET state = 'fixed' WHERE id = %d" % rid)
        mails = self.sink.wait_for(before + 2)
        f = mails[before + 1]["msg"]
        self.assertEqual(f["In-Reply-To"], mid)
        self.assertEqual(f["References"], mid)
        self.assertEqual(f["Subject"], "Re: " + msg["Subject"])
        self.assertIn("is now marked fixed", f.get_content())
        self.assertIn("https://perf.example.org/regressions/%d" % rid, f.get_content())
        self.assertNotEqual(f["Message-ID"], mid)
        # exactly one mail each: nothing else arrives
        time.sleep(1.5)
        self.assertEqual(len(self.sink.messages), before + 2)
        self.assertEqual(self.q("SELECT count(*) FROM outbox WHERE regression_id = %d "
                                "AND state = 'sent'" % rid), "2")

    def test_3_outage_delays_never_drops(self):
        rids = [self.regression(sha("4"), sha("5")), self.regression(sha("6"), sha("7"))]
        before = len(self.sink.messages)
        self.sink.stop()
        try:
            oids = [self.report(r) for r in rids]
            # the mailer tried, failed and kept both rows queued with a backoff
            wait_until(lambda: all(self.row(o)[2] >= 2 for o in oids), what="retries")
            for o in oids:
                state, mid, _ = self.row(o)
                self.assertEqual(state, "queued")
                self.assertTrue(mid)  # rendered once, Message-ID fixed before sending
            err = self.q("SELECT last_error FROM outbox WHERE id = %d" % oids[0])
            self.assertTrue(err)
        finally:
            self.sink.start()
        mails = self.sink.wait_for(before + 2)
        wait_until(lambda: all(self.row(o)[0] == "sent" for o in oids), what="rows sent")
        time.sleep(2.5)  # a retry in flight would show up as a third mail
        self.assertEqual(len(self.sink.messages), before + 2)
        got = sorted(m["msg"]["Message-ID"] for m in mails[before:])
        self.assertEqual(got, sorted(self.row(o)[1] for o in oids))
        subjects = sorted(m["msg"]["Subject"] for m in mails[before:])
        self.assertEqual(subjects, sorted(
            "[linux:master] %s..%s: %s -11.8%% regression" % (g[:12], b[:12], METRIC)
            for g, b in ((sha("4"), sha("5")), (sha("6"), sha("7")))))

    def test_4_header_injection(self):
        rid = self.regression(sha("8"), sha("9"), subject="mm: evil\r\nBcc: evil@x.org",
                              author="Mallory <m@x.org>\r\nBcc: evil3@x.org",
                              metric="inj.ops\r\nBcc: evil2@x.org", bisect_id=43)
        before = len(self.sink.messages)
        self.report(rid)
        m = self.sink.wait_for(before + 1)[before]
        raw = m["raw"]
        head = raw.split(b"\r\n\r\n", 1)[0]
        self.assertNotRegex(head, rb"(?im)^bcc:")
        self.assertEqual(len(re.findall(rb"(?im)^subject:", head)), 1)
        self.assertEqual(m["rcpt_tos"], ["cc@example.org"])
        self.assertIsNone(m["msg"]["Bcc"])
        self.assertEqual(m["msg"]["Subject"], "[linux:master] [mm: evil Bcc] 999999999999: "
                         "inj.ops Bcc: evil2@x.org -11.8% regression")
        self.assertNotIn(b"\n\n", head.replace(b"\r\n", b"|"))

    def test_5_utf8_subject_rfc2047(self):
        rid = self.regression(sha("a"), sha("b"), subject="mm/sl\u00fcb: r\u00e9duire la fragmentation",
                              bisect_id=44)
        before = len(self.sink.messages)
        self.report(rid)
        m = self.sink.wait_for(before + 1)[before]
        self.assertIn(b"Subject: =?UTF-8?B?", m["raw"])
        self.assertEqual(m["msg"]["Subject"], "[linux:master] [mm/sl\u00fcb] bbbbbbbbbbbb: "
                         "%s -11.9%% regression" % METRIC)
        self.assertIn("commit:   %s (\"mm/sl\u00fcb: r\u00e9duire la fragmentation\")" % sha("b"),
                      m["msg"].get_content())

    def test_6_bisect_report_word_follows_the_direction(self):
        # a record stored as a regression by the means (-8.9 %: one failed run at
        # the culprit, as servers before sql/0015 judged it); the report's table
        # compares the culprit with its parent: `different`, the HL shift +1.1 %,
        # an improvement, which is not mailed (mail_report_improvements = 0)
        rnd = random.Random(1)
        base = [1000 + rnd.gauss(0, 5) for _ in range(10)]
        head = [1010 + rnd.gauss(0, 5) for _ in range(9)] + [10.0]
        rid = self.regression(sha("c"), sha("d"), bisect_id=45, values=(base, head))
        before = len(self.sink.messages)
        oid = self.report(rid)
        state, _, _ = wait_until(lambda: self.row(oid)[0] != "queued" and self.row(oid),
                                 what="row handled")
        self.assertEqual(state, "skipped")
        self.assertEqual(self.q("SELECT last_error FROM outbox WHERE id = %d" % oid),
                         "improvement and mail_report_improvements = 0")
        time.sleep(0.5)
        self.assertEqual(len(self.sink.messages), before)


    def test_7_host_fingerprint_note(self):
        # the table's sides ran on hosts that differ in microcode and host kernel: one line
        # naming both values of each; the same fingerprint on both sides: no line
        fp_a = {"cpu_model": "Xeon 8380", "microcode": "0xf0", "cpufreq_governor": "performance",
                "kernel_release": "6.1.0-18-amd64", "cmdline": "quiet"}
        fp_b = dict(fp_a, microcode="0xf4", kernel_release="6.5.0-1-amd64")
        note = ("\nnote:     base and head ran on hosts that differ in host kernel "
                "(6.1.0-18-amd64 vs 6.5.0-1-amd64), microcode (0xf0 vs 0xf4)\n")
        for good, bad, fps, bid, want in ((sha("e1"), sha("e2"), (fp_a, fp_b), 46, True),
                                          (sha("e3"), sha("e4"), (fp_a, fp_a), 47, False)):
            rid = self.regression(good, bad, bisect_id=bid, fps=fps)
            before = len(self.sink.messages)
            self.report(rid)
            body = self.sink.wait_for(before + 1)[before]["msg"].get_content().replace("\r\n",
                                                                                        "\n")
            # under the machine line
            self.assertIn("\nmachine:  vm-2p - 2 CPUs, 4G memory, x86_64 (test cpu)\n"
                          + ("note:     " if want else "mode:     wallclock\n"), body)
            if want:
                self.assertIn(note, body)
            else:
                self.assertNotIn("ran on hosts that differ", body)

    def test_8_evidence_in_words_as_on_the_page(self):
        # the record's own numbers in one sentence, under the opening
        # one, next to its p; the API record says the same words (the page shows them)
        rid = self.regression(sha("f1"), "3c1a2b4d5e6f708192a3b4c5d6e7f8091a2b3c4f")
        self.q("UPDATE regressions SET hl_pct = -3.1, ci_lo_pct = -3.6, ci_hi_pct = -2.6, "
               "shift = -3825.4, noise_sigma = 910.8, commits_after = 4, p_value = 0.00021 "
               "WHERE id = %d" % rid)
        sentence = ("the 4 tested commits after moved by -3.1 % [-3.6, -2.6], "
                    "4.2 \u00d7 the series' own spread")
        ev = self.srv.get("/api/v1/regressions/%d" % rid).json()["evidence"]
        self.assertEqual(ev, {"commits_after": 4, "shift_pct": -3.1, "ci_pct": [-3.6, -2.6],
                              "shift": -3825.4, "noise_sigma": 910.8,
                              "spread_ratio": 3825.4 / 910.8, "noise_cycle": 0, "text": sentence})
        before = len(self.sink.messages)
        self.report(rid)
        body = self.sink.wait_for(before + 1)[before]["msg"].get_content().replace("\r\n", "\n")
        self.assertIn(" between f1f1f1f1f1f1 and 3c1a2b4d5e6f (not bisected).\n"
                      "evidence: %s; p 0.00021\n\n" % sentence, body)
        # a sigma read net of a cycle in the series' history (sql/0040, lib/stats/detect.h
        # 2c): the page's and the mail's sentence say so
        self.q("UPDATE regressions SET noise_cycle = 12 WHERE id = %d" % rid)
        ev = self.srv.get("/api/v1/regressions/%d" % rid).json()["evidence"]
        self.assertEqual((ev["noise_cycle"], ev["text"]),
                         (12, sentence + " net of its 12-commit cycle"))
        before = len(self.sink.messages)
        self.report(rid)
        body = self.sink.wait_for(before + 1)[before]["msg"].get_content().replace("\r\n", "\n")
        self.assertIn("evidence: %s net of its 12-commit cycle; p 0.00021\n\n" % sentence, body)
        # a record without a noise model (stored before sql/0026): no ratio; without a size,
        # nothing at all
        self.q("UPDATE regressions SET noise_sigma = NULL WHERE id = %d" % rid)
        ev = self.srv.get("/api/v1/regressions/%d" % rid).json()["evidence"]
        self.assertEqual((ev["spread_ratio"], ev["text"]),
                         (None, "the 4 tested commits after moved by -3.1 % [-3.6, -2.6]"))
        self.q("UPDATE regressions SET hl_pct = NULL WHERE id = %d" % rid)
        self.assertIsNone(self.srv.get("/api/v1/regressions/%d" % rid).json()["evidence"]["text"])


class DryRun(unittest.TestCase):
    def test_dry_run_writes_file_without_sending(self):
        d = tempfile.mkdtemp(prefix="regtrack-mail-")
        conf = write_config({"mail_dry_run_dir": d, "mail_cc": "cc@example.org",
                             "mail_poll_ms": 100, "detect_enabled": 0,
                             "mail_from": "regtrack@example.org"})
        srv = Server(extra_args=["--config", conf])
        try:
            t = Mail("test_1_subscriptions_api")
            t.srv = srv
            rid = t.regression(sha("c"), sha("d"))
            oid = t.report(rid)
            path = os.path.join(d, "%d.eml" % oid)
            wait_until(lambda: os.path.exists(path), what="dry-run file")
            state, mid, _ = wait_until(lambda: t.row(oid)[0] == "dry_run" and t.row(oid),
                                       what="dry_run state")
            with open(path, "rb") as f:
                text = f.read()
            self.assertIn(("Message-ID: %s\r\n" % mid).encode(), text)
            self.assertIn(b"\r\nTo: cc@example.org\r\n", text)
        finally:
            srv.stop()
            os.unlink(conf)


def server_log(srv):
    """What this run of srv logged so far."""
    with open(srv.log.name, "rb") as f:
        f.seek(srv.log_start)
        return f.read().decode("utf-8", "replace")


class Held(unittest.TestCase):
    """Mail the configuration cannot send is not sent: its row is `held` with
    the reason in the outbox and on the regression's mails, the server log
    says what to set (at start and for each held mail), and a server started
    with it set sends what was held."""

    def report(self, srv, conf):
        t = Mail("test_1_subscriptions_api")
        t.srv = srv
        rid = t.regression(sha("c"), sha("d"))
        r = srv.post("/api/v1/regressions/%d/report" % rid, {}, scope="admin")
        self.assertEqual(r.status, 202, r)
        return t, rid, r.json()

    def check_held(self, srv, t, rid, reply, why, kind="range"):
        oid = reply["outbox_id"]
        self.assertEqual((reply["mail_enabled"], reply["held"]), (False, why))
        wait_until(lambda: t.row(oid)[0] == "held", what="held state")
        row = [o for o in srv.get("/api/v1/outbox", scope="admin").json() if o["id"] == oid][0]
        self.assertEqual((row["state"], row["last_error"], row["subject"]), ("held", why, None))
        mails = srv.get("/api/v1/regressions/%d/report" % rid).json()["mails"]
        self.assertEqual([(m["id"], m["state"], m["reason"]) for m in mails], [(oid, "held", why)])
        return oid

    def test_no_smtp_url(self):
        conf = write_config({"mail_cc": "cc@example.org", "mail_poll_ms": 100,
                             "detect_enabled": 0})
        srv = Server(extra_args=["--config", conf])
        try:
            t, rid, reply = self.report(srv, conf)
            oid = self.check_held(srv, t, rid, reply, "held: smtp_url not set")
            hint = "smtp_url (--smtp) or mail_dry_run_dir set"
            log = wait_until(lambda: "mail %d (range)" % oid in server_log(srv) and
                             server_log(srv), what="log line")
            self.assertIn("warning mail held: smtp_url not set: report and A/B mails are kept in "
                          "the outbox as 'held' until the server starts with %s\n" % hint, log)
            self.assertIn("warning mail %d (range) held: smtp_url not set; it goes out once the "
                          "server starts with %s\n" % (oid, hint), log)
        finally:
            srv.stop()
            os.unlink(conf)

    def test_defaults_held_then_sent(self):
        sink = SmtpSink()
        sink.start()
        base = {"smtp_url": sink.url, "smtp_starttls": "none", "mail_cc": "cc@example.org",
                "mail_poll_ms": 100, "detect_enabled": 0}
        conf = write_config(base)
        srv = Server(extra_args=["--config", conf])
        try:
            t, rid, reply = self.report(srv, conf)
            why = "held: mail_from is the default (regtrack@localhost) and public_url not set"
            oid = self.check_held(srv, t, rid, reply, why)
            time.sleep(0.5)
            self.assertEqual(sink.messages, [])
            self.assertIn("warning mail %s: report and A/B mails are kept in the outbox as 'held' "
                          "until the server starts with mail_from and public_url (--public-url) "
                          "set: a report's Reported-by and Closes tags name them, and they end "
                          "up in upstream commits\n" % why, server_log(srv))
            # set, the server sends what it held, with the new sender and links
            with open(conf, "w") as f:
                f.write("".join("%s = %s\n" % kv for kv in dict(
                    base, auto_bisect=0, mail_from="perf bot <perf@example.org>",
                    public_url="https://perf.example.org").items()))
            srv.restart()
            m = sink.wait_for(1)[0]
            self.assertEqual(m["mail_from"], "perf@example.org")
            body = m["msg"].get_content().replace("\r\n", "\n")
            self.assertIn("\nReported-by: regtrack <perf@example.org>\n"
                          "Closes: https://perf.example.org/regressions/%d\n" % rid, body)
            wait_until(lambda: t.row(oid)[0] == "sent", what="sent state")
            self.assertIn("info mailer: 1 held mail queued again\n", server_log(srv))
        finally:
            srv.stop()
            sink.stop()
            os.unlink(conf)


if __name__ == "__main__":
    unittest.main()
