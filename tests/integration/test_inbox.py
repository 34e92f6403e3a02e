"""Patches from a list: a real public-inbox v2 archive made by
public-inbox-init and public-inbox-mda from the fixtures
(tests/fixtures/inbox), followed by path and over HTTP
(public-inbox-httpd on loopback, as lore serves it). The poller stores
each message once, keeps its place per epoch, and shows an unreachable
inbox's error on the inbox while the others go on."""
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import PG_LOCAL, Server, wait_until  # noqa: E402
import inboxtree  # noqa: E402
from inboxtree import Httpd, deliver, fixtures, make_inbox  # noqa: E402

ALL = [os.path.basename(f) for f in fixtures()]


def inbox(srv, name):
    return [i for i in srv.get("/api/v1/inboxes", scope="read").json() if i["name"] == name][0]


def messages(srv, name):
    r = srv.get("/api/v1/inboxes/%s/messages" % name, scope="read")
    assert r.status == 200, r
    return r.json()


class InboxPoll(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="regtrack-inbox-")
        conf = os.path.join(cls.tmp, "server.conf")
        with open(conf, "w") as f:
            f.write("data_dir = %s\npoll_tick_ms = 100\nauto_bisect = 0\n"
                    "detect_enabled = 0\n" % os.path.join(cls.tmp, "data"))
        cls.srv = Server(extra_args=["--config", conf])

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        subprocess.run(["rm", "-rf", "--", cls.tmp], timeout=60)
        assert rc == 0, "server exited %d" % rc

    def test_1_path_inbox_read_once_in_order(self):
        path = os.path.join(self.tmp, "lm")
        env = make_inbox(path)
        deliver(path, env, fixtures()[:4])
        r = self.srv.post("/api/v1/inboxes", {"name": "lm", "url": path, "poll_s": 1,
                                               "lists": ["linux-mm@kvack.org"],
                                               "since": "2000-01-01"}, scope="admin")
        self.assertEqual(r.status, 200, r)
        wait_until(lambda: len(messages(self.srv, "lm")) == 4, what="4 messages")
        deliver(path, env, fixtures()[4:])
        ms = wait_until(lambda: (lambda m: m if len(m) == len(ALL) else None)(
            messages(self.srv, "lm")), what="every message")
        self.assertEqual([m["message_id"] for m in ms][:6],
                         ["sa-v1-0@example.org", "sa-v1-1@example.org", "sa-v1-2@example.org",
                          "sa-v1-3@example.org", "sa-v1-review@example.org",
                          "sa-v2-0@example.org"])
        by = {m["message_id"]: m for m in ms}
        self.assertEqual(by["sa-v1-2@example.org"]["in_reply_to"], "sa-v1-0@example.org")
        self.assertEqual(by["sa-v1-2@example.org"]["subject"], "[PATCH 2/3] mm: add b")
        self.assertEqual(by["sa-v1-review@example.org"]["in_reply_to"], "sa-v1-2@example.org")
        self.assertIsNone(by["tidy-1@example.org"]["in_reply_to"])
        self.assertEqual(by["sa-v1-0@example.org"]["sent_at"][:19], "2026-01-05T10:00:00")
        self.assertEqual(by["sa-v1-0@example.org"]["author"], "Dev One <dev@example.org>")
        head = subprocess.run(["git", "-C", os.path.join(path, "git", "0.git"), "rev-parse",
                               "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        i = wait_until(lambda: (lambda x: x if x["epochs"] and
                                x["epochs"][0]["last_commit"] == head else None)(
            inbox(self.srv, "lm")), what="epoch 0 read to its head")
        self.assertEqual((i["messages"], i["epochs"][0]["messages"], i["poll_error"]),
                         (len(ALL), len(ALL), None))
        # later polls read nothing again
        polls = i["polls"]
        wait_until(lambda: inbox(self.srv, "lm")["polls"] >= polls + 2, what="two more polls")
        self.assertEqual(int(self.srv.psql("SELECT count(*) FROM inbox_messages")), len(ALL))

    def test_2_http_inbox_and_unreachable(self):
        path = os.path.join(self.tmp, "lh")
        env = make_inbox(path, name="lh")
        deliver(path, env, fixtures()[:2])
        httpd = Httpd(env)
        try:
            url = "http://127.0.0.1:%d/lh/" % httpd.port
            r = self.srv.post("/api/v1/inboxes", {"name": "lh", "url": url, "poll_s": 1,
                                                   "since": "2000-01-01T00:00:00Z"},
                              scope="admin")
            self.assertEqual(r.status, 200, r)
            wait_until(lambda: len(messages(self.srv, "lh")) == 2, what="2 messages by http")
            httpd.stop()
            # the inbox unreachable: the error on the inbox, the poller goes on
            i = wait_until(lambda: (lambda x: x if x["poll_error"] else None)(
                inbox(self.srv, "lh")), what="poll error")
            self.assertIn("git", i["poll_error"])
            self.assertGreaterEqual(i["poll_failures"], 1)
            deliver(path, env, fixtures()[2:6])
            httpd.start()
            wait_until(lambda: len(messages(self.srv, "lh")) == 6, timeout=60,
                       what="6 messages after the inbox came back")
            wait_until(lambda: inbox(self.srv, "lh")["poll_error"] is None, timeout=60,
                       what="the error cleared")
        finally:
            httpd.stop()
        self.assertEqual([m["message_id"] for m in messages(self.srv, "lh")],
                         ["sa-v1-0@example.org", "sa-v1-1@example.org", "sa-v1-2@example.org",
                          "sa-v1-3@example.org", "sa-v1-review@example.org",
                          "sa-v2-0@example.org"])

    def test_3_bad_registrations(self):
        for body, field in (({"url": "/x"}, "name"), ({"name": "a b", "url": "/x"}, "name"),
                            ({"name": "x"}, "url"), ({"name": "x", "url": "-x"}, "url"),
                            ({"name": "x", "url": "/x", "lists": "a"}, "lists"),
                            ({"name": "x", "url": "/x", "paths": ["a,b"]}, "paths"),
                            ({"name": "x", "url": "/x", "cc_list": 1}, "cc_list"),
                            ({"name": "x", "url": "/x", "poll_s": -1}, "poll_s"),
                            ({"name": "x", "url": "/x", "since": "2026-02-30"}, "since"),
                            ({"name": "x", "url": "/x", "since": "2026-01-01T25:00:00Z"},
                             "since"),
                            ({"name": "x", "url": "/x", "since": 1}, "since"),
                            ({"name": "x", "url": "/x", "colour": 1}, "colour")):
            r = self.srv.post("/api/v1/inboxes", body, scope="admin")
            self.assertEqual(r.status, 400, (body, r))
            self.assertEqual(r.json()["error"]["detail"], field, body)
        r = self.srv.post("/api/v1/inboxes", {"name": "x", "url": "/x"}, scope="submit")
        self.assertEqual(r.status, 403, r)

    def test_3b_unknown_inbox_is_404(self):
        """An inbox name that is not registered is the path's fault, not an empty list."""
        for what in ("messages", "series"):
            r = self.srv.get("/api/v1/inboxes/no-such-list/%s" % what, scope="read")
            self.assertEqual(r.status, 404, (what, r))
            err = r.json()["error"]
            self.assertEqual((err["code"], err["detail"]), ("not_found", "name"), what)
            self.assertIn("no inbox 'no-such-list'", err["message"])

    def test_4_missing_path(self):
        r = self.srv.post("/api/v1/inboxes", {"name": "gone", "url": "/nonexistent/inbox",
                                               "poll_s": 1}, scope="admin")
        self.assertEqual(r.status, 200, r)
        i = wait_until(lambda: (lambda x: x if x["poll_error"] else None)(
            inbox(self.srv, "gone")), what="poll error")
        self.assertIn("no epoch 0", i["poll_error"])

    def test_5_first_poll_starts_at_the_head(self):
        """A new inbox tests what is posted from now on: the archive's past is
        passed over (a lore list holds years of it), unless since says how far
        back to read."""
        path = os.path.join(self.tmp, "hd")
        env = make_inbox(path, name="hd")
        deliver(path, env, fixtures()[:4])
        head = subprocess.run(["git", "-C", os.path.join(path, "git", "0.git"), "rev-parse",
                               "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        for name, since in (("hd", None), ("hd-late", "2100-01-01")):
            body = {"name": name, "url": path, "poll_s": 1}
            if since:
                body["since"] = since
            r = self.srv.post("/api/v1/inboxes", body, scope="admin")
            self.assertEqual(r.status, 200, r)
        for name in ("hd", "hd-late"):
            i = wait_until(lambda: (lambda x: x if x["polls"] >= 2 else None)(
                inbox(self.srv, name)), what="two polls of " + name)
            self.assertEqual((i["poll_error"], i["started"], i["messages"]), (None, True, 0))
            self.assertEqual([(e["epoch"], e["last_commit"]) for e in i["epochs"]],
                             [(0, head)])
        deliver(path, env, fixtures()[4:6])
        for name in ("hd", "hd-late"):
            wait_until(lambda: len(messages(self.srv, name)) == 2, what="2 new messages")
            self.assertEqual([m["message_id"] for m in messages(self.srv, name)],
                             ["sa-v1-review@example.org", "sa-v2-0@example.org"])
        # a new list's archive, empty when registered, has no past: its first messages count
        path = os.path.join(self.tmp, "hd-new")
        env = make_inbox(path, name="hd-new")
        r = self.srv.post("/api/v1/inboxes", {"name": "hd-new", "url": path, "poll_s": 1},
                          scope="admin")
        self.assertEqual(r.status, 200, r)
        wait_until(lambda: inbox(self.srv, "hd-new")["started"], what="a first good poll")
        deliver(path, env, fixtures()[:2])
        wait_until(lambda: len(messages(self.srv, "hd-new")) == 2, what="its first messages")

    def test_6_parent_from_references(self):
        """Without In-Reply-To the parent is the last of References, not the
        thread's root."""
        path = os.path.join(self.tmp, "rf")
        env = make_inbox(path, name="rf")
        eml = os.path.join(self.tmp, "rf.eml")
        with open(eml, "w") as f:
            f.write("From: Rev Two <rev@example.org>\nTo: linux-mm@kvack.org\n"
                    "Subject: Re: [PATCH 2/3] mm: add b\n"
                    "Date: Fri, 9 Jan 2026 10:00:00 +0000\n"
                    "Message-ID: <rf-1@example.org>\n"
                    "References: <sa-v1-0@example.org>\n <sa-v1-2@example.org>\n\n"
                    "Looks good.\n")
        deliver(path, env, [eml])
        r = self.srv.post("/api/v1/inboxes", {"name": "rf", "url": path, "poll_s": 1,
                                               "since": "2000-01-01"}, scope="admin")
        self.assertEqual(r.status, 200, r)
        ms = wait_until(lambda: messages(self.srv, "rf") or None, what="the reply")
        self.assertEqual((ms[0]["message_id"], ms[0]["in_reply_to"]),
                         ("rf-1@example.org", "sa-v1-2@example.org"))

    def test_7_ids_past_32_bits(self):
        """The poll lock takes any inbox id (a bigint key, no cast to integer)."""
        self.srv.psql("SELECT setval('inboxes_id_seq', 3000000000)")
        path = os.path.join(self.tmp, "big")
        env = make_inbox(path, name="big")
        deliver(path, env, fixtures()[:2])
        r = self.srv.post("/api/v1/inboxes", {"name": "big", "url": path, "poll_s": 1,
                                               "since": "2000-01-01"}, scope="admin")
        self.assertEqual(r.status, 200, r)
        self.assertGreater(r.json()["id"], 2 ** 31)
        wait_until(lambda: len(messages(self.srv, "big")) == 2, what="2 messages")
        self.assertIsNone(inbox(self.srv, "big")["poll_error"])


def series(srv, name):
    r = srv.get("/api/v1/inboxes/%s/series" % name, scope="read")
    assert r.status == 200, r
    return {x["anchor"]: x for x in r.json()}


PLAN = {"name": "lm-mm", "tree": "demo", "branches": ["master"], "enabled": False,
        "testcases": [{"testcase": "small-allocs", "params": {"nr_task": 1}}],
        "kconfigs": ["x86_64-defconfig"], "compilers": ["gcc-12"], "targets": ["x86_64"],
        "repeat": 2}


class TreeAndPlan:
    """A server of its own (data_dir under cls.tmp) with tree demo (one commit,
    cls.base) and plan lm-mm; register() adds an inbox tested by that plan."""

    @classmethod
    def serve(cls, conf_extra="", env=None):
        conf = os.path.join(cls.tmp, "server.conf")
        with open(conf, "w") as f:
            f.write("data_dir = %s\npoll_tick_ms = 100\nauto_bisect = 0\n"
                    "detect_enabled = 0\n%s" % (os.path.join(cls.tmp, "data"), conf_extra))
        cls.srv = Server(extra_args=["--config", conf], env=env)
        repo = os.path.join(cls.tmp, "linux")
        cls.base = inboxtree.make_base(repo)
        r = cls.srv.post("/api/v1/trees", {"name": "demo", "url": repo, "branches": ["master"]},
                         scope="admin")
        assert r.status == 200, r
        wait_until(lambda: [t for t in cls.srv.get("/api/v1/trees").json()
                            if t["name"] == "demo" and t["commits"] >= 1], what="mirror")
        r = cls.srv.post("/api/v1/plans", PLAN, scope="admin")
        assert r.status in (200, 201), r

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        subprocess.run(["rm", "-rf", "--", cls.tmp], timeout=60)
        assert rc == 0, "server exited %d" % rc

    def register(self, name, path, **kw):
        body = {"name": name, "url": path, "poll_s": 1, "plan": "lm-mm",
                "lists": ["linux-mm@kvack.org"], "paths": ["mm.c", "mm/"],
                "since": "2000-01-01"}
        body.update(kw)
        r = self.srv.post("/api/v1/inboxes", body, scope="admin")
        self.assertEqual(r.status, 200, r)


class InboxSeries(TreeAndPlan, unittest.TestCase):
    """Series assembly: each fixture's end state, the A/B request of each
    tested series (label: its anchor's Message-ID; the patches b4 made, with
    the review's tags), a RESEND not tested twice, vN linked to v(N-1)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="regtrack-inboxs-")
        cls.serve()

    def test_1_end_states(self):
        path = os.path.join(self.tmp, "lm")
        env = make_inbox(path)
        fs = fixtures()
        deliver(path, env, [fs[0], fs[1], fs[3]])  # the cover, 1/3 and 3/3: 2/3 is late
        self.register("lm", path)
        s = wait_until(lambda: series(self.srv, "lm").get("sa-v1-0@example.org"),
                       what="series v1")
        time.sleep(3)  # a few polls: it waits for its part 2
        s = series(self.srv, "lm")["sa-v1-0@example.org"]
        self.assertEqual((s["state"], s["parts"], s["total"], s["cover"], s["version"]),
                         ("waiting", 2, 3, True, 1))
        # the review of 2/3 before 2/3 itself: the series' mbox has its tags (b4)
        deliver(path, env, [fs[4], fs[2]] + fs[5:])
        want = {"sa-v1-0@example.org": "queued", "sa-v2-0@example.org": "queued",
                "tidy-1@example.org": "queued", "tidy-2@example.org": "duplicate",
                "noapply-1@example.org": "not-applying", "doc-1@example.org": "filtered"}
        got = wait_until(lambda: (lambda x: x if {a: v["state"] for a, v in x.items()} == want
                                  else None)(series(self.srv, "lm")), timeout=120,
                         what="every series in its end state")
        v1, v2 = got["sa-v1-0@example.org"], got["sa-v2-0@example.org"]
        self.assertEqual((v1["parts"], v1["base"], v2["previous_id"], v1["previous_id"]),
                         (3, self.base, v1["id"], None))
        # the cover letter names the series (it came before patch 1), not patch 1
        self.assertEqual((v1["title"], v2["title"], got["tidy-1@example.org"]["title"]),
                         ("mm: faster small allocs", "mm: faster small allocs", "mm: tidy x"))
        self.assertEqual(got["tidy-2@example.org"]["duplicate_of"], got["tidy-1@example.org"]["id"])
        self.assertTrue(got["tidy-2@example.org"]["resend"])
        self.assertIn("git am", got["noapply-1@example.org"]["reason"])
        self.assertIn("Documentation/mm/small-allocs.rst",
                      got["doc-1@example.org"]["reason"])
        self.assertNotEqual(v1["patch_ids"], v2["patch_ids"])
        self.assertEqual(len(v1["patch_ids"].split(",")), 3)
        # each tested series is one request by the plan, labelled with its Message-ID
        reqs = {q["label"]: q for q in self.srv.get("/api/v1/requests?limit=100").json()}
        self.assertEqual(set(reqs), {"<sa-v1-0@example.org>", "<sa-v2-0@example.org>",
                                     "<tidy-1@example.org>"})
        self.assertEqual(reqs["<sa-v1-0@example.org>"]["id"], v1["request_id"])
        mbox = self.srv.get("/api/v1/requests/%d/mbox" % v1["request_id"], scope="read").body
        self.assertEqual(mbox.count("\ndiff --git a/mm.c b/mm.c"), 3)
        self.assertIn("Reviewed-by: Rev Iewer <rev@example.org>", mbox)
        # stored resolving as POST /api/v1/requests stores one; the resolver queues it
        q = wait_until(lambda: (lambda x: x if x["state"] != "resolving" else None)(
            self.srv.get("/api/v1/requests/%d" % v1["request_id"]).json()), what="resolved")
        self.assertEqual((q["base"]["sha"], q["state"]), (self.base, "queued"))
        # no series of the review, and none more on later polls
        time.sleep(2)
        self.assertEqual(set(series(self.srv, "lm")), set(want))
        self.assertEqual(int(self.srv.psql("SELECT count(*) FROM requests")), 3)

    def test_2_incomplete_at_the_deadline(self):
        path = os.path.join(self.tmp, "li")
        env = make_inbox(path, name="li")
        deliver(path, env, fixtures(["sa-v1-cover", "sa-v1-1"]))
        self.register("li", path, parts_wait_s=2)
        s = wait_until(lambda: (lambda x: x if x and x["state"] != "waiting" else None)(
            series(self.srv, "li").get("sa-v1-0@example.org")), timeout=60, what="deadline")
        self.assertEqual((s["state"], s["parts"], s["request_id"]), ("incomplete", 1, None))


    def test_4_failure_that_may_pass_backs_off(self):
        """A check that fails for a reason that may pass (here the plan's branch
        is not in the mirror) keeps the series waiting, tried again after a
        backoff doubling per try, and ends it failed after the last try."""
        plan = dict(PLAN, name="lm-nob", branches=["nobranch"])
        r = self.srv.post("/api/v1/plans", plan, scope="admin")
        self.assertIn(r.status, (200, 201), r)
        path = os.path.join(self.tmp, "lb")
        env = make_inbox(path, name="lb")
        deliver(path, env, [f for f in fixtures() if f.endswith("10-tidy.eml")])
        self.register("lb", path, plan="lm-nob")
        s = wait_until(lambda: (lambda x: x if x and x["attempts"] >= 2 else None)(
            series(self.srv, "lb").get("tidy-1@example.org")), timeout=60, what="2 tries")
        self.assertEqual(s["state"], "waiting")
        self.assertIn("nobranch", s["reason"])
        self.assertIsNotNone(s["retry_at"])
        # 6 tries, 1+2+4+8+16 s apart with poll_s 1: not one a poll
        t0 = time.time()
        s = wait_until(lambda: (lambda x: x if x["state"] != "waiting" else None)(
            series(self.srv, "lb")["tidy-1@example.org"]), timeout=120, what="failed")
        self.assertEqual((s["state"], s["attempts"], s["request_id"]), ("failed", 6, None))
        self.assertIn("nobranch", s["reason"])
        self.assertGreater(time.time() - t0, 15)

    def test_5_maintainers_entries(self):
        """An inbox's filter may name MAINTAINERS entries: a series is tested when it
        touches one of their F: patterns (none of their X:), as the MAINTAINERS of
        the plan's branch head says."""
        repo = os.path.join(self.tmp, "linux-m")
        inboxtree.make_base(repo)
        with open(os.path.join(repo, "MAINTAINERS"), "w") as f:
            f.write("List of maintainers\n\n\tF: *Files* (prose, no entry)\n\n"
                    "MM SMALL ALLOCS\nL:\tlinux-mm@kvack.org\nF:\tmm.c\n"
                    "F:\tDocumentation/\nX:\tDocumentation/mm/\n")
        inboxtree.git(repo, "add", "MAINTAINERS")
        inboxtree.git(repo, "commit", "-q", "-m", "MAINTAINERS", date="2026-01-02T00:00:00Z")
        r = self.srv.post("/api/v1/trees", {"name": "demo-m", "url": repo,
                                             "branches": ["master"]}, scope="admin")
        self.assertEqual(r.status, 200, r)
        wait_until(lambda: [t for t in self.srv.get("/api/v1/trees").json()
                            if t["name"] == "demo-m" and t["commits"] >= 1], what="mirror")
        r = self.srv.post("/api/v1/plans", dict(PLAN, name="lm-maint", tree="demo-m"),
                          scope="admin")
        self.assertIn(r.status, (200, 201), r)
        path = os.path.join(self.tmp, "lmt")
        env = make_inbox(path, name="lmt")
        deliver(path, env, [f for f in fixtures() if f.endswith(("10-tidy.eml", "13-doc.eml"))])
        self.register("lmt", path, plan="lm-maint", paths=[], maintainers=["mm small allocs"])
        got = wait_until(lambda: (lambda x: x if len(x) == 2 and all(
            v["state"] != "waiting" for v in x.values()) else None)(series(self.srv, "lmt")),
            timeout=60, what="2 series decided")
        self.assertEqual(got["tidy-1@example.org"]["state"], "queued")
        self.assertEqual(got["doc-1@example.org"]["state"], "filtered")
        self.assertIn("MAINTAINERS", got["doc-1@example.org"]["reason"])
        i = [x for x in self.srv.get("/api/v1/inboxes", scope="read").json()
             if x["name"] == "lmt"][0]
        self.assertEqual(i["maintainers"], ["mm small allocs"])

    def test_6_latin1_patch_as_sent(self):
        """A patch sent 8-bit in Latin-1 is shown scrubbed, but b4 reads its bytes as
        sent: the request's patches say what the author wrote."""
        path = os.path.join(self.tmp, "l1")
        env = make_inbox(path, name="l1")
        eml = os.path.join(self.tmp, "latin1.eml")
        with open(eml, "wb") as f:
            f.write(b"From: Dev One <dev@example.org>\nTo: linux-mm@kvack.org\n"
                    b"Subject: [PATCH] mm: latin x\nDate: Thu, 8 Jan 2026 11:00:00 +0000\n"
                    b"Message-ID: <latin1-1@example.org>\nMIME-Version: 1.0\n"
                    b"Content-Type: text/plain; charset=ISO-8859-1\n"
                    b"Content-Transfer-Encoding: 8bit\n\nA caf\xe9 comment.\n\n"
                    b"Signed-off-by: Dev One <dev@example.org>\n---\n mm.c | 2 +-\n"
                    b" 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"
                    b"diff --git a/mm.c b/mm.c\n--- a/mm.c\n+++ b/mm.c\n@@ -1 +1 @@\n"
                    b"-int x;\n+int x; /* caf\xe9 */\n-- \n2.39.2\n")
        deliver(path, env, [eml])
        self.register("l1", path)
        s = wait_until(lambda: (lambda x: x if x and x["state"] != "waiting" else None)(
            series(self.srv, "l1").get("latin1-1@example.org")), timeout=60, what="decided")
        self.assertEqual(s["state"], "queued", s)
        mbox = self.srv.get("/api/v1/requests/%d/mbox" % s["request_id"], scope="read").body
        self.assertIn("+int x; /* caf\u00e9 */", mbox)

    def test_3_server_killed_mid_poll(self):
        """A server killed (SIGKILL) while it reads an inbox and checks its series:
        after a restart every message is stored once, every series ends in its
        state, and each tested series has one request."""
        before = int(self.srv.psql("SELECT count(*) FROM requests"))
        path = os.path.join(self.tmp, "lk")
        env = make_inbox(path, name="lk")
        deliver(path, env, fixtures())
        self.register("lk", path)
        wait_until(lambda: self.srv.psql(
            "SELECT count(*) FROM inbox_messages m JOIN inboxes i ON i.id = m.inbox_id "
            "WHERE i.name = 'lk'") not in ("", "0"), timeout=60, what="a first message")
        port = int(self.srv.addr.rsplit(":", 1)[1])
        self.srv.stop(sig=signal.SIGKILL)
        self.srv.start(port)
        want = {"sa-v1-0@example.org": "queued", "sa-v2-0@example.org": "queued",
                "tidy-1@example.org": "queued", "tidy-2@example.org": "duplicate",
                "noapply-1@example.org": "not-applying", "doc-1@example.org": "filtered"}
        wait_until(lambda: {a: v["state"] for a, v in series(self.srv, "lk").items()} == want,
                   timeout=180, what="every series after the restart")
        self.assertEqual(len(messages(self.srv, "lk")), len(ALL))
        self.assertEqual(inbox(self.srv, "lk")["epochs"][0]["messages"], len(ALL))
        time.sleep(2)
        self.assertEqual(int(self.srv.psql("SELECT count(*) FROM requests")) - before, 3)


class InboxReplies(unittest.TestCase):
    """Each tested series gets exactly one reply in its thread, from the
    real mailer through a real SMTP server: In-Reply-To/References its cover
    letter (or its patch), To its author, Cc the list (cc_list), the
    robot's form, Reported-by/Closes for a regression; none for no change,
    the Documentation-only series, the one that does not apply and the
    RESEND of a tested patch."""

    @classmethod
    def setUpClass(cls):
        from smtpsink import SmtpSink
        from fakes import MACHINE
        cls.machine = dict(MACHINE, hostname="x1")
        cls.sink = SmtpSink()
        cls.sink.start()
        cls.tmp = tempfile.mkdtemp(prefix="regtrack-inboxr-")
        conf = os.path.join(cls.tmp, "server.conf")
        with open(conf, "w") as f:
            f.write("data_dir = %s\npoll_tick_ms = 100\nauto_bisect = 0\ndetect_enabled = 0\n"
                    "mail_poll_ms = 100\nsmtp_url = %s\nsmtp_starttls = none\n"
                    "mail_from = regtrack bot <regtrack@example.org>\n"
                    "public_url = https://perf.example.org/\nmail_retry_max_s = 1\n"
                    % (os.path.join(cls.tmp, "data"), cls.sink.url))
        cls.srv = Server(extra_args=["--config", conf])
        repo = os.path.join(cls.tmp, "linux")
        cls.base = inboxtree.make_base(repo)
        r = cls.srv.post("/api/v1/trees", {"name": "demo", "url": repo, "branches": ["master"]},
                         scope="admin")
        assert r.status == 200, r
        wait_until(lambda: [t for t in cls.srv.get("/api/v1/trees").json()
                            if t["name"] == "demo" and t["commits"] >= 1], what="mirror")
        r = cls.srv.post("/api/v1/plans", dict(PLAN, repeat=6), scope="admin")
        assert r.status in (200, 201), r
        r = cls.srv.post("/api/v1/workers/register",
                         dict(cls.machine, capabilities=["qemu-x86_64"], fingerprint={}),
                         scope="worker")
        assert r.status == 200, r
        cls.mid = r.json()["machine_id"]

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        cls.sink.stop()
        subprocess.run(["rm", "-rf", "--", cls.tmp], timeout=60)
        assert rc == 0, "server exited %d" % rc

    def work(self, change):
        """Leases and completes every job there is; change(label) is the head's
        factor of the request labelled so (1.0: no change)."""
        from harness import result_doc
        labels = {}
        while True:
            r = self.srv.post("/api/v1/jobs/lease", {"machine_id": self.mid, "wait_s": 0},
                              scope="worker")
            if r.status != 200:
                return
            job = r.json()["job"]
            rid = job["request"]
            if rid not in labels:
                labels[rid] = self.srv.get("/api/v1/requests/%d" % rid).json()["label"]
            head = job["side"] == "head"
            f = change(labels[rid]) if head else 1.0
            docs = [dict(result_doc("ab" * 20 if head else job["commit"],
                                    testcase=job["testcase"], job_id=job["id"],
                                    params=job["params"], kconfig=job["kconfig"],
                                    compiler=job["compiler"], tree="demo", machine=self.machine,
                                    metrics={"small-allocs.throughput": [1000.0 * f + i % 3]}),
                         **({"patch_id": "fb" * 20, "base_commit": job["commit"]}
                            if head else {}))
                    for i in range(job["repeat"])]
            r = self.srv.post("/api/v1/jobs/%d/complete" % job["id"],
                              {"machine_id": self.mid, "status": "ok", "log_tail": "ok\n",
                               "results": docs}, scope="worker")
            self.assertEqual(r.status, 200, r)

    def test_replies_in_thread(self):
        path = os.path.join(self.tmp, "lm")
        env = make_inbox(path)
        deliver(path, env, fixtures())
        r = self.srv.post("/api/v1/inboxes", {"name": "lm", "url": path, "poll_s": 1,
                                               "plan": "lm-mm", "cc_list": True,
                                               "since": "2000-01-01",
                                               "lists": ["linux-mm@kvack.org"],
                                               "paths": ["mm.c", "mm/"]}, scope="admin")
        self.assertEqual(r.status, 200, r)
        queued = ["sa-v1-0@example.org", "sa-v2-0@example.org", "tidy-1@example.org"]
        wait_until(lambda: all(series(self.srv, "lm").get(a, {}).get("state") == "queued"
                               for a in queued), timeout=120, what="3 series queued")
        # their requests are stored resolving (as POST /api/v1/requests stores one): the
        # resolver queues their jobs
        wait_until(lambda: all(
            self.srv.get("/api/v1/requests/%d" % series(self.srv, "lm")[a]["request_id"])
            .json()["state"] == "queued" for a in queued), timeout=60, what="3 requests queued")
        factors = {"<sa-v1-0@example.org>": 1.12, "<sa-v2-0@example.org>": 0.88,
                   "<tidy-1@example.org>": 1.0}
        self.work(lambda label: factors[label])
        want = {"sa-v1-0@example.org": ("replied", "improvement"),
                "sa-v2-0@example.org": ("replied", "regression"),
                "tidy-1@example.org": ("tested", "no-change"),
                "tidy-2@example.org": ("duplicate", None),
                "noapply-1@example.org": ("not-applying", None),
                "doc-1@example.org": ("filtered", None)}
        got = wait_until(lambda: (lambda x: x if {a: (v["state"], v["verdict"])
                                                  for a, v in x.items()} == want else None)(
            series(self.srv, "lm")), timeout=120, what="series tested")
        msgs = self.sink.wait_for(2)
        time.sleep(3)  # later polls and mailer passes send nothing more
        self.assertEqual(len(self.sink.messages), 2)
        by = {m["msg"]["In-Reply-To"]: m for m in self.sink.messages}
        self.assertEqual(set(by), {"<sa-v1-0@example.org>", "<sa-v2-0@example.org>"})
        for anchor, verdict in (("sa-v1-0@example.org", "improvement"),
                                ("sa-v2-0@example.org", "regression")):
            m = by["<%s>" % anchor]
            msg = m["msg"]
            self.assertEqual(msg["References"], "<%s>" % anchor)
            self.assertEqual(msg["To"], "dev@example.org")
            self.assertEqual(msg["Cc"], "linux-mm@kvack.org")
            self.assertEqual(sorted(m["rcpt_tos"]), ["dev@example.org", "linux-mm@kvack.org"])
            self.assertTrue(msg["Subject"].startswith("Re: [PATCH"), msg["Subject"])
            self.assertIn("mm: faster small allocs", msg["Subject"])
            body = msg.get_content().replace("\r\n", "\n")
            rid = got[anchor]["request_id"]
            self.assertIn("https://perf.example.org/requests/%d" % rid, body)
            self.assertIn("small-allocs.throughput", body)
            self.assertIn(verdict, body)
            # the first sentence names the series by its title (the cover letter's
            # subject), not by patch 1's subject; the patch line keeps patch 1's
            self.assertRegex(body, r'\nwe noticed a [-+][0-9.]+%% %s of small-allocs.throughput '
                                   r'on \S+ with your patch series "mm: faster small allocs"\.\n'
                             % verdict)
            self.assertIn('\npatch:     "[PATCH%s 1/3] mm: add a" (3 patch(es)'
                          % (" v2" if anchor.startswith("sa-v2") else ""), body)
            self.assertEqual(got[anchor]["reply_outbox_id"] is not None, True)
            if verdict == "regression":
                self.assertIn("| Reported-by: regtrack <regtrack@example.org>\n"
                              "| Closes: https://perf.example.org/requests/%d\n" % rid, body)
            else:
                self.assertNotIn("Reported-by", body)
        self.assertTrue(by["<sa-v2-0@example.org>"]["msg"]["Subject"].startswith(
            "Re: [PATCH v2 0/3]"))
        self.assertEqual(int(self.srv.psql("SELECT count(*) FROM outbox WHERE kind = 'inbox'")),
                         2)
        del msgs


if __name__ == "__main__":
    unittest.main()


FAKE_GIT = """#!/bin/bash
# the real git, except: a tree mirror's `fetch` waits while %(d)s/stall-fetch exists
# (its pid in fetch.pid), `cat-file blob`
# waits while %(d)s/stall-cat exists (its pid in cat.pid) and fails while fail-cat exists
d=%(d)s
if [[ " $* " == *"/mirrors/"*" fetch "* ]]; then
	while [[ -e $d/stall-fetch ]]; do echo $$ > $d/fetch.pid; sleep 0.1; done
fi
if [[ " $* " == *" cat-file blob "* ]]; then
	while [[ -e $d/stall-cat ]]; do echo $$ > $d/cat.pid; sleep 0.1; done
	if [[ -e $d/fail-cat ]]; then echo "fatal: not a valid object name (fake)" >&2; exit 128; fi
fi
exec /usr/bin/git "$@"
"""
FAKE_B4 = """#!/bin/bash
# the real b4, except that it hangs (its pid in b4.pid) while %(d)s/stall-b4 exists
d=%(d)s
if [[ -e $d/stall-b4 ]]; then echo $$ > $d/b4.pid; exec sleep 600; fi
exec /usr/bin/b4 "$@"
"""


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie of a killed child is gone for this purpose
    with open("/proc/%d/stat" % pid) as f:
        return f.read().split(") ", 1)[1][0] != "Z"


class InboxFaults(TreeAndPlan, unittest.TestCase):
    """The paths a real list rarely takes, made to happen: git and b4 are the
    real ones behind wrappers on the server's PATH that hang or fail while a
    flag file exists. b4 timing out (the series waits, tried again, failed
    after the tries), a message git cannot read now (not passed over), a poll
    that lost its lock to another server across a reconnect (writes nothing),
    a shutdown while b4 runs (the child killed, the server out at once), and
    the request of a series stored resolving like POST /api/v1/requests's
    (the inbox is not held by a stalled fetch of the plan's tree)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="regtrack-inboxf-")
        cls.flags = os.path.join(cls.tmp, "flags")
        fake = os.path.join(cls.tmp, "fakebin")
        os.makedirs(cls.flags)
        os.makedirs(fake)
        for name, text in (("git", FAKE_GIT), ("b4", FAKE_B4)):
            with open(os.path.join(fake, name), "w") as f:
                f.write(text % {"d": cls.flags})
            os.chmod(os.path.join(fake, name), 0o755)
        cls.serve("git_timeout_s = 5\nresolve_timeout_s = 120\n",
                  env={"PATH": fake + ":" + os.environ["PATH"]})

    @classmethod
    def tearDownClass(cls):
        for f in os.listdir(cls.flags):
            os.unlink(os.path.join(cls.flags, f))
        super().tearDownClass()

    def flag(self, name, on=True):
        p = os.path.join(self.flags, name)
        if on:
            open(p, "w").close()
        elif os.path.exists(p):
            os.unlink(p)

    def pid(self, name):
        """the pid a wrapper wrote into flags/name (waited for)"""
        def read():
            try:
                with open(os.path.join(self.flags, name)) as f:
                    return int(f.read().strip() or 0)
            except FileNotFoundError:
                return 0
        return wait_until(read, timeout=60, what=name)

    def test_1_b4_timing_out(self):
        """b4 past git_timeout_s (5 s): killed, the series waits and is tried again after
        the backoff (1, 2, 4, 8, 16 s with poll_s 1), then failed after its sixth try."""
        path = os.path.join(self.tmp, "lt")
        env = make_inbox(path, name="lt")
        self.flag("stall-b4")
        deliver(path, env, fixtures(["10-tidy"]))
        self.register("lt", path)
        s = wait_until(lambda: (lambda x: x if x and x["attempts"] >= 2 else None)(
            series(self.srv, "lt").get("tidy-1@example.org")), timeout=60, what="2 tries")
        self.assertEqual((s["state"], s["request_id"]), ("waiting", None))
        self.assertIn("b4", s["reason"])
        self.assertIn("timed out", s["reason"])
        self.assertIsNotNone(s["retry_at"])
        s = wait_until(lambda: (lambda x: x if x["state"] != "waiting" else None)(
            series(self.srv, "lt")["tidy-1@example.org"]), timeout=150, what="failed")
        self.assertEqual((s["state"], s["attempts"], s["request_id"]), ("failed", 6, None))
        self.assertIn("timed out", s["reason"])
        # each hung b4 was killed at its timeout: none left behind
        self.assertFalse(alive(self.pid("b4.pid")))
        self.flag("stall-b4", False)

    def test_2_message_unreadable_now(self):
        """`git cat-file` failing on a message's blob (its commit reads): the message is
        not passed over; the poll fails with git's error and the next one reads it."""
        path = os.path.join(self.tmp, "lc")
        env = make_inbox(path, name="lc")
        deliver(path, env, fixtures(["01-sa"]))
        self.register("lc", path)
        wait_until(lambda: len(messages(self.srv, "lc")) == 1, what="the first message")
        self.flag("fail-cat")
        deliver(path, env, fixtures(["02-sa", "03-sa"]))
        i = wait_until(lambda: (lambda x: x if x["poll_error"] else None)(
            inbox(self.srv, "lc")), what="the poll's error")
        self.assertIn("not a valid object name (fake)", i["poll_error"])
        time.sleep(2)  # more polls fail the same way: nothing read, nothing passed over
        self.assertEqual(len(messages(self.srv, "lc")), 1)
        self.flag("fail-cat", False)
        ms = wait_until(lambda: (lambda m: m if len(m) == 3 else None)(messages(self.srv, "lc")),
                        what="the two messages")
        self.assertEqual([m["message_id"] for m in ms],
                         ["sa-v1-0@example.org", "sa-v1-1@example.org", "sa-v1-2@example.org"])
        wait_until(lambda: inbox(self.srv, "lc")["poll_error"] is None, what="error cleared")

    def test_3_lock_lost_across_a_reconnect(self):
        """A poll whose database session ends mid-poll (its advisory lock with it) while
        another server takes the inbox: it writes nothing more; the other's release lets
        the next poll read every message once."""
        path = os.path.join(self.tmp, "ll")
        env = make_inbox(path, name="ll")
        deliver(path, env, fixtures(["01-sa"]))
        self.register("ll", path)
        wait_until(lambda: len(messages(self.srv, "ll")) == 1, what="the first message")
        iid = inbox(self.srv, "ll")["id"]
        self.flag("stall-cat")
        deliver(path, env, fixtures(["02-sa", "03-sa"]))
        self.pid("cat.pid")  # the poll is reading message 2, its lock held
        self.srv.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
                      "datname = current_database() AND pid <> pg_backend_pid()")
        other = subprocess.Popen([PG_LOCAL, "psql", "-X", "-tAq", "-d", self.srv.dbname],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 env=self.srv.cluster.env, text=True)
        try:
            other.stdin.write("SELECT pg_advisory_lock((17033::bigint << 32) # %d);\n"
                              "SELECT 'held';\n" % iid)
            other.stdin.flush()
            self.assertEqual(other.stdout.readline().strip(), "")
            self.assertEqual(other.stdout.readline().strip(), "held")
            self.flag("stall-cat", False)
            time.sleep(4)  # the poll goes on after the reconnect: it must not write
            self.assertEqual(len(messages(self.srv, "ll")), 1)
        finally:
            other.stdin.close()
            other.wait(timeout=60)
            other.stdout.close()
        ms = wait_until(lambda: (lambda m: m if len(m) == 3 else None)(messages(self.srv, "ll")),
                        what="the two messages")
        self.assertEqual(len({m["message_id"] for m in ms}), 3)
        time.sleep(2)
        self.assertEqual(int(self.srv.psql(
            "SELECT count(*) FROM inbox_messages WHERE inbox_id = %d" % iid)), 3)

    def test_4_shutdown_kills_b4(self):
        """A server stopped (SIGTERM) while b4 runs kills it and exits at once; the series,
        left waiting, is checked by the restarted server."""
        path = os.path.join(self.tmp, "ls")
        env = make_inbox(path, name="ls")
        self.flag("stall-b4")
        pidf = os.path.join(self.flags, "b4.pid")
        if os.path.exists(pidf):
            os.unlink(pidf)
        deliver(path, env, fixtures(["12-noapply"]))
        self.register("ls", path)
        pid = self.pid("b4.pid")
        t0 = time.monotonic()
        self.assertTrue(alive(pid))
        port = int(self.srv.addr.rsplit(":", 1)[1])
        self.assertEqual(self.srv.stop(), 0)
        # out before b4's own timeout (5 s after it started) would have killed it
        self.assertLess(time.monotonic() - t0, 4)
        self.assertFalse(alive(pid))
        self.flag("stall-b4", False)
        self.srv.start(port)
        s = wait_until(lambda: (lambda x: x if x and x["state"] != "waiting" else None)(
            series(self.srv, "ls").get("noapply-1@example.org")), timeout=60, what="decided")
        self.assertEqual(s["state"], "not-applying")

    def test_5_request_resolved_in_the_background(self):
        """A series' request is stored resolving, as POST /api/v1/requests stores one:
        a fetch of the plan's tree that stalls (another request's unknown ref) holds
        the resolver, not the inbox; the series is queued meanwhile, its request
        queued once the fetch ends."""
        self.flag("stall-fetch")
        r = self.srv.post("/api/v1/requests", {"plan": "lm-mm", "base": "refs/heads/nosuch",
                                                "head": "master"}, scope="submit")
        self.assertEqual(r.status, 202, r)
        stalled = r.json()["id"]
        try:
            self.pid("fetch.pid")
            path = os.path.join(self.tmp, "lr")
            env = make_inbox(path, name="lr")
            deliver(path, env, fixtures(["10-tidy"]))
            self.register("lr", path)
            s = wait_until(lambda: (lambda x: x if x and x["state"] != "waiting" else None)(
                series(self.srv, "lr").get("tidy-1@example.org")), timeout=60, what="decided")
            self.assertEqual(s["state"], "queued")
            q = self.srv.get("/api/v1/requests/%d" % s["request_id"]).json()
            self.assertEqual((q["state"], q["label"]), ("resolving", "<tidy-1@example.org>"))
        finally:
            self.flag("stall-fetch", False)
        q = wait_until(lambda: (lambda x: x if x["state"] != "resolving" else None)(
            self.srv.get("/api/v1/requests/%d" % s["request_id"]).json()), timeout=60,
            what="resolved")
        self.assertEqual((q["state"], q["base"]["sha"]), ("queued", self.base))
        self.assertEqual(self.srv.get("/api/v1/requests/%d" % stalled).json()["state"], "failed")
