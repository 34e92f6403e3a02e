"""Patches from a list (issue 33): a real public-inbox v2 archive made by
public-inbox-init and public-inbox-mda from the fixtures
(tests/fixtures/inbox), followed by path and over HTTP
(public-inbox-httpd on loopback, as lore serves it). The poller stores
each message once, keeps its place per epoch, and shows an unreachable
inbox's error on the inbox while the others go on."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, wait_until  # noqa: E402
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
                                               "lists": ["linux-mm@kvack.org"]}, scope="admin")
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
            r = self.srv.post("/api/v1/inboxes", {"name": "lh", "url": url, "poll_s": 1},
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
                            ({"name": "x", "url": "/x", "colour": 1}, "colour")):
            r = self.srv.post("/api/v1/inboxes", body, scope="admin")
            self.assertEqual(r.status, 400, (body, r))
            self.assertEqual(r.json()["error"]["detail"], field, body)
        r = self.srv.post("/api/v1/inboxes", {"name": "x", "url": "/x"}, scope="submit")
        self.assertEqual(r.status, 403, r)

    def test_4_missing_path(self):
        r = self.srv.post("/api/v1/inboxes", {"name": "gone", "url": "/nonexistent/inbox",
                                               "poll_s": 1}, scope="admin")
        self.assertEqual(r.status, 200, r)
        i = wait_until(lambda: (lambda x: x if x["poll_error"] else None)(
            inbox(self.srv, "gone")), what="poll error")
        self.assertIn("no epoch 0", i["poll_error"])


if __name__ == "__main__":
    unittest.main()
