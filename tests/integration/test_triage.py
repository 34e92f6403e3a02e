"""Triage of regression records by a person, and what a record of a change
from a base of zero says.

- PATCH {"state": "invalid"} needs a note that is not blank (400 `note`),
  as POST .../invalid needs its reason: a false alarm counts in the
  quality ledger with its reason.
- A state the record already has is no change: no history row, unless a
  new note comes with it (kept as a note, from = to).
- A path id past 2^63 - 1 is a 400 naming `id` that echoes what was
  asked, on every route with a numeric id.
- A 0 -> 5 series: the record's evidence sentence, its history note and
  its report mail say the levels, never "inf" or LKP's hundred-digit %.

Series are uploaded through POST /api/v1/results; the detector runs in the
background, waited for by polling (never a fixed sleep).
"""
import hashlib
import os
import random
import re
import sys
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc, wait_until  # noqa: E402

TESTCASE = "triage-test"
THROUGHPUT = "vm-scalability.throughput"
ZERO = "custom.zero_to_x"
WAIT_S = 120
BIG = "99999999999999999999"   # past 2^63 - 1: strtoll saturates at 9223372036854775807


def setUpModule():
    global srv, tmp
    tmp = os.path.join(os.environ.get("REGTRACK_TEST_TMP", "/tmp"), "triage-%d" % os.getpid())
    os.makedirs(tmp, exist_ok=True)
    conf = os.path.join(tmp, "server.conf")
    with open(conf, "w") as f:
        f.write("auto_bisect = 0\nmail_dry_run_dir = %s\nmail_poll_ms = 100\n"
                "mail_cc = perf@example.org\n"
                % os.path.join(tmp, "mail"))
    srv = Server(extra_args=["--config", conf])


def tearDownModule():
    srv.stop()


def csha(label, i):
    return hashlib.sha1(("%s-%d" % (label, i)).encode()).hexdigest()


def upload(label, params, level, ncommits=30, runs=3, seed=1):
    """Runs of one setup; level(i, rnd) -> {metric: [values]} of commit i."""
    rnd = random.Random(seed)
    for i in range(ncommits):
        for _ in range(runs):
            doc = result_doc(csha(label, i), testcase=TESTCASE, metrics=level(i, rnd),
                             params=params,
                             commit_time="2026-01-01T%02d:%02d:00Z" % (i // 60, i % 60),
                             commit_subject="%s commit %d" % (label, i))
            r = srv.post("/api/v1/results", doc, scope="submit")
            assert r.status == 201, r


def wait_idle():
    deadline = time.monotonic() + WAIT_S
    while srv.psql("SELECT count(*) FROM detect_queue") != "0":
        assert time.monotonic() < deadline, "detection queue not drained"
        time.sleep(0.1)


def record(params, metric):
    r = srv.get("/api/v1/regressions?" + urllib.parse.urlencode(
        {"testcase": TESTCASE, "metric": metric}))
    assert r.status == 200, r
    recs = [x for x in r.json()["regressions"] if x["params"] == params]
    assert len(recs) == 1, recs
    return srv.get("/api/v1/regressions/%d" % recs[0]["id"]).json()


def patch(rid, body):
    return srv.request("PATCH", "/api/v1/regressions/%s" % rid, body=body, scope="admin")


def invalid(rid, reason):
    return srv.post("/api/v1/regressions/%s/invalid" % rid, {"reason": reason}, scope="admin")


STEP = {"test": "step"}
ZERO_P = {"test": "zero"}


class Triage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # throughput -20 % at commit 18, 1 % noise
        upload("step", STEP, lambda i, rnd: {THROUGHPUT: [
            1000.0 * (0.8 if i >= 18 else 1.0) * (1 + rnd.gauss(0, 0.01)) for _ in range(2)]})
        # 0 until commit 20, then about 5 (LKP's %change of a zero base: ~5e102 %)
        upload("zero", ZERO_P, lambda i, rnd: {ZERO: [
            0.0 if i < 20 else 5.0 + rnd.gauss(0, 0.1) for _ in range(2)]}, ncommits=40, seed=3)
        wait_idle()

    def test_1_patch_invalid_needs_a_note(self):
        r0 = record(STEP, THROUGHPUT)
        rid = r0["id"]
        for body in ({"state": "invalid"}, {"state": "invalid", "note": None},
                     {"state": "invalid", "note": ""}, {"state": "invalid", "note": " \t\n"}):
            r = patch(rid, body)
            self.assertEqual(r.status, 400, (body, r))
            err = r.json()["error"]
            self.assertEqual((err["code"], err["detail"]), ("missing_field", "note"), body)
            self.assertEqual(err["message"],
                             "give the 'note' why it is not a real change (kept in its history)")
        after = srv.get("/api/v1/regressions/%d" % rid).json()
        self.assertEqual((after["state"], after["history"]), (r0["state"], r0["history"]))
        # other states keep the optional note
        r = patch(rid, {"state": "bisecting"})
        self.assertEqual(r.status, 200, r)
        last = r.json()["history"][-1]
        self.assertEqual((last["from"], last["to"], last["note"]),
                         (r0["state"], "bisecting", None))
        r = patch(rid, {"state": "invalid", "note": "the host was thermally throttled"})
        self.assertEqual(r.status, 200, r)
        last = r.json()["history"][-1]
        self.assertEqual((last["from"], last["to"], last["note"]),
                         ("bisecting", "invalid", "the host was thermally throttled"))

    def test_2_marking_invalid_again_is_no_change(self):
        rid = record(STEP, THROUGHPUT)["id"]
        reason = "the benchmark's host was swapping"
        self.assertEqual(patch(rid, {"state": "reported", "note": "mailed"}).status, 200)
        r = invalid(rid, reason)
        self.assertEqual(r.status, 200, r)
        before = r.json()
        n = len(before["history"])
        self.assertEqual([(h["from"], h["to"], h["note"]) for h in before["history"][-2:]],
                         [(before["history"][-3]["to"], "reported", "mailed"),
                          ("reported", "invalid", reason)])
        # the same reason again (a second click, the mail's command run twice): nothing
        r = invalid(rid, reason)
        self.assertEqual(r.status, 200, r)
        again = r.json()
        self.assertIs(again.pop("changed"), False)
        self.assertEqual(again, srv.get("/api/v1/regressions/%d" % rid).json())
        self.assertEqual(again["history"], before["history"])
        r = patch(rid, {"state": "invalid", "note": reason})
        self.assertEqual((r.status, r.json()["history"], r.json()["changed"]),
                         (200, before["history"], False), r)
        # a new reason is kept, as a note on the state it has
        r = invalid(rid, "also: a cron job ran beside it")
        self.assertEqual(r.status, 200, r)
        h = r.json()["history"]
        self.assertEqual(len(h), n + 1)
        self.assertEqual((h[-1]["from"], h[-1]["to"], h[-1]["note"]),
                         ("invalid", "invalid", "also: a cron job ran beside it"))
        self.assertEqual((r.json()["state"], r.json()["changed"]), ("invalid", True))
        # any state: the one it has, with no note or a blank one (the page's form
        # left as it was), writes nothing
        r = patch(rid, {"state": "confirmed"})
        self.assertEqual((r.status, len(r.json()["history"])), (200, n + 2), r)
        for body in ({"state": "confirmed"}, {"state": "confirmed", "note": "  "}):
            r = patch(rid, body)
            self.assertEqual((r.status, len(r.json()["history"])), (200, n + 2), (body, r))
        self.assertEqual(srv.psql(
            "SELECT count(*) FROM regression_history WHERE regression_id = %d "
            "AND from_state = to_state AND note IS NULL" % rid), "0")

    def test_3_path_id_past_int64(self):
        r = invalid(BIG, "x")
        self.assertEqual(r.status, 400, r)
        err = r.json()["error"]
        self.assertEqual(err["detail"], "id")
        self.assertIn(BIG, err["message"])
        self.assertNotIn("9223372036854775807", r.body)
        for method, path, scope in (
                ("GET", "/api/v1/regressions/%s", "read"),
                ("PATCH", "/api/v1/regressions/%s", "admin"),
                ("GET", "/api/v1/regressions/%s/report", "read"),
                ("GET", "/api/v1/jobs/%s", "read"),
                ("GET", "/api/v1/bisects/%s", "read"),
                ("GET", "/api/v1/requests/%s", "read")):
            body = {"note": "x"} if method == "PATCH" else None
            r = srv.request(method, path % BIG, body=body, scope=scope)
            self.assertEqual(r.status, 400, (path, r))
            self.assertEqual(r.json()["error"]["detail"], "id", path)
            self.assertNotIn("9223372036854775807", r.body, path)
        # the largest id is an id (none such: 404), a sign or a space is not one
        r = srv.get("/api/v1/regressions/9223372036854775807")
        self.assertEqual((r.status, r.json()["error"]["message"]),
                         (404, "no regression 9223372036854775807"))
        for bad in ("+1", "-1", "0", "1x"):
            r = srv.get("/api/v1/regressions/" + bad)
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "id"), bad)

    def test_4_base_zero_in_words(self):
        r = record(ZERO_P, ZERO)
        self.assertEqual((r["good"]["sha"], r["bad"]["sha"]), (csha("zero", 19), csha("zero", 20)))
        self.assertEqual(r["mean_before"], 0)
        after = r["mean_after"]
        self.assertAlmostEqual(after, 5.0, delta=0.1)
        level = "%.4g" % after
        ev = r["evidence"]
        ratio = ev["spread_ratio"]
        self.assertEqual(ev["text"], "the %d tested commits after moved from 0 to %s "
                                     "(the base is 0: no %%change)%s"
                         % (r["commits_after"], level, "" if ratio is None else
                            ", %s \u00d7 the series' own spread"
                            % ("%.1f" % ratio if ratio < 99.95 else "%.0f" % ratio)))
        note = r["history"][0]["note"]
        # the levels when it was first detected (results were still streaming in)
        self.assertRegex(note, r"^detected change of '%s': moved from 0 to [45]\.\d+ "
                               r"\(the base is 0: no %%change\), p [0-9.e-]+, \d+ vs \d+ runs, "
                               r"different$" % re.escape(ZERO))
        for h in r["history"]:
            self.assertNotRegex(h["note"] or "", r"inf|nan|\d{10}", h)
        # the report mail says the same
        q = srv.post("/api/v1/regressions/%d/report" % r["id"], {}, scope="admin")
        self.assertEqual(q.status, 202, q)

        def mail():
            ms = srv.get("/api/v1/regressions/%d/report" % r["id"]).json()["mails"]
            return ms[0] if ms and ms[0]["state"] == "dry_run" else None
        m = wait_until(mail, what="the report rendered")
        self.assertTrue(m["subject"].endswith(": %s regression from 0 to %s" % (ZERO, level)),
                        m["subject"])
        self.assertIn("regtrack measured a regression of %s from 0 to %s (the base is 0: no %%change)"
                      % (ZERO, level), m["body"])
        self.assertIn("evidence: " + ev["text"], m["body"])
        for text in (m["subject"], m["body"]):
            self.assertIsNone(re.search(r"[+-]?inf%|\d{10,}(\.\d+)?%", text), text)


if __name__ == "__main__":
    unittest.main()
