"""A stalled upstream holds up its own tree only.

An HTTP "git server" that accepts and then says nothing stands for an
upstream that stalls; a poll of the tree that names it starts a clone that
hangs. Meanwhile an A/B request on a healthy tree must fetch that tree's
mirror (its head is a commit the mirror does not have yet): with one lock
for every mirror it waited for the stalled clone (minutes); with a lock per
tree it is answered at once."""
import os
import socket
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import resolved, wait_until  # noqa: E402
from fakes import MACHINE, git, git_init, stop_tree_server, tree_server  # noqa: E402


def make_tree(path):
    git_init(path)
    with open(os.path.join(path, "mm.c"), "w") as f:
        f.write("int x;\n")
    git(path, "add", "mm.c")
    git(path, "commit", "-q", "-m", "mm: base", date="2026-01-01T00:00:00Z")
    return {"c0": git(path, "rev-parse", "HEAD")}


class StallServer:
    """Accepts connections, reads what comes, never answers."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.accepted = threading.Event()
        self.conns = []
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        self.sock.settimeout(0.2)
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.conns.append(c)
            self.accepted.set()

    def close(self):
        self.stop = True
        self.thread.join(timeout=5)
        for c in self.conns:
            c.close()
        self.sock.close()


class StalledUpstream(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.tree, cls.srv = tree_server(
            "regtrack-stall-", make_tree, "detect_enabled = 0\nresolve_timeout_s = 5\n")
        srv = cls.srv
        r = srv.post("/api/v1/trees", {"name": "demo", "url": cls.repo,
                                       "branches": ["master"], "poll_s": 0}, scope="admin")
        assert r.status == 200, r
        wait_until(lambda: [t for t in srv.get("/api/v1/trees").json()
                            if t["name"] == "demo" and t["commits"] >= 1], what="mirror")
        r = srv.post("/api/v1/workers/register", dict(
            MACHINE, hostname="stall-w", arch="x86_64", tbox_group="vm-2p",
            capabilities=["qemu-x86_64", "host"], fingerprint={}), scope="worker")
        assert r.status == 200, r
        cls.stall = StallServer()

    @classmethod
    def tearDownClass(cls):
        cls.stall.close()
        stop_tree_server(cls.srv, cls.tmp)

    def test_healthy_tree_answered_while_another_stalls(self):
        srv = self.srv
        url = "http://127.0.0.1:%d/linux.git" % self.stall.port
        r = srv.post("/api/v1/trees", {"name": "stalled", "url": url, "branches": ["master"],
                                       "poll_s": 0}, scope="admin")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(srv.post("/api/v1/trees/stalled/poll", scope="submit").status, 202)
        self.assertTrue(self.stall.accepted.wait(60), "nothing connected to the stall")
        # a head the demo mirror lacks: the request fetches the demo tree
        git(self.repo, "commit", "-q", "--allow-empty", "-m", "mm: head",
            date="2026-01-01T00:01:00Z")
        head = git(self.repo, "rev-parse", "HEAD")
        t0 = time.monotonic()
        r = srv.post("/api/v1/requests", {
            "tree": "demo", "base": self.tree["c0"], "head": head,
            "testcases": [{"testcase": "small-allocs", "params": {"nr_task": 1}}],
            "targets": ["x86_64"], "kconfig": "x86_64-defconfig"}, scope="submit")
        q = resolved(srv, r, timeout=20)
        took = time.monotonic() - t0
        self.assertEqual((q["state"], q["head"]["sha"]), ("queued", head), q)
        # the stalled clone is still hanging (1 KiB/s for 60 s before git gives up)
        self.assertFalse([t for t in srv.get("/api/v1/trees").json()
                          if t["name"] == "stalled" and t["polls"]], "the stall ended early")
        self.assertLess(took, 20, "the request waited %.1f s for another tree's fetch" % took)

    def test_requests_on_a_stalled_tree_accepted_at_once_others_resolved(self):
        """Ten requests naming a tree whose upstream stalls: each accepted at once (202,
        resolving); they once held the deferred pool's threads until git's timeout. A
        request on a healthy tree meanwhile resolves and queues its jobs; the stalled
        ones fail with the fetch's reason once git gives up (resolve_timeout_s)."""
        srv = self.srv
        url = "http://127.0.0.1:%d/other.git" % self.stall.port
        r = srv.post("/api/v1/trees", {"name": "stalled2", "url": url, "branches": ["master"],
                                       "poll_s": 0}, scope="admin")
        self.assertEqual(r.status, 200, r)
        body = {"tree": "stalled2", "base": "master",
                "testcases": [{"testcase": "small-allocs", "params": {"nr_task": 1}}],
                "targets": ["x86_64"], "kconfig": "x86_64-defconfig", "repeat": 1}
        urls = []
        for i in range(10):
            t0 = time.monotonic()
            r = srv.post("/api/v1/requests", dict(body, head="refs/heads/x%d" % i),
                         scope="submit")
            took = time.monotonic() - t0
            self.assertEqual((r.status, r.json()["state"]), (202, "resolving"), r)
            self.assertLess(took, 2, "a request on a stalled tree was answered in %.1f s" % took)
            urls.append(r.json()["url"])
        git(self.repo, "commit", "-q", "--allow-empty", "-m", "mm: head 2",
            date="2026-01-01T00:02:00Z")
        head = git(self.repo, "rev-parse", "HEAD")
        t0 = time.monotonic()
        r = srv.post("/api/v1/requests", dict(body, tree="demo", base=self.tree["c0"],
                                              head=head), scope="submit")
        q = resolved(srv, r, timeout=20)
        self.assertEqual((q["state"], q["head"]["sha"], len(q["jobs"])), ("queued", head, 2), q)
        self.assertLess(time.monotonic() - t0, 10)
        # the resolver gives up after resolve_timeout_s (5 s here; the poll's clone holds
        # the mirror meanwhile): every one fails with the reason
        for u in urls:
            q = wait_until(lambda: [x for x in [srv.get(u, scope="read").json()]
                                    if x["state"] != "resolving"], timeout=60,
                           what="request %s failed" % u)[0]
            self.assertEqual((q["state"], q["jobs"]), ("failed", []), q)
            self.assertIn("fetching tree 'stalled2' failed", q["fail_reason"])


if __name__ == "__main__":
    unittest.main()
