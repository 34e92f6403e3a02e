"""Who used the server: the access log (one line per request, never the
token) and the tokens (regtrack-server token create | list | revoke)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server  # noqa: E402


class AccessLog(unittest.TestCase):
    """access_log = 1: one line per request, never the token; off by default."""

    def log_since(self, srv, start):
        with open(srv.log.name, errors="replace") as f:
            f.seek(start)
            return f.read()

    def test_off_by_default(self):
        srv = Server()
        try:
            start = srv.log.tell()
            self.assertEqual(srv.get("/api/v1/jobs", scope="read").status, 200)
            self.assertNotIn(" access ", self.log_since(srv, start))
        finally:
            srv.stop()

    def test_one_line_per_request(self):
        srv = Server(extra_args=["--access-log", "1"])
        try:
            name = "fh-log-reader"
            tok = srv.token("read", name)
            start = srv.log.tell()
            r = srv.get("/api/v1/jobs", token=tok)
            self.assertEqual(r.status, 200)
            self.assertEqual(srv.post("/api/v1/jobs", {"commit": "x"}, token=tok).status, 403)
            self.assertIn(srv.get("/api/v1/jobs/%0a9", token=tok).status, (400, 404))
            srv.get("/healthz")
            # the access log is written after the reply is sent: under load
            # (2 cores, a CI run beside other work) that can take seconds
            time_wait = __import__("time")
            deadline = time_wait.monotonic() + 30
            while True:
                text = self.log_since(srv, start)
                if text.count(" access ") >= 4 or time_wait.monotonic() > deadline:
                    break
                time_wait.sleep(0.1)
            lines = [l.split(" access ", 1)[1] for l in text.splitlines() if " access " in l]
            self.assertEqual(len(lines), 4, text)
            f = lines[0].split()
            self.assertEqual((f[0], f[1], f[2], f[5]), ("GET", "/api/v1/jobs", "200", name), lines)
            self.assertGreater(int(f[3]), 0)
            self.assertGreaterEqual(float(f[4]), 0)
            self.assertEqual(lines[1].split()[:3] + lines[1].split()[5:], ["POST", "/api/v1/jobs", "403", name])
            # a newline in the path is %0A again: no forged line
            self.assertRegex(lines[2], r"^GET /api/v1/jobs/%0A9 40[04] ", lines[2])
            self.assertTrue(lines[3].startswith("GET /healthz 200 ") and lines[3].endswith(" -"),
                            lines[3])
            self.assertNotIn(tok.split("_", 2)[2], text)
            self.assertNotIn(tok, text)
        finally:
            srv.stop()


class Tokens(unittest.TestCase):
    """regtrack-server token create | list | revoke, as the README's token section."""

    @classmethod
    def setUpClass(cls):
        cls.srv = Server()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def test_list_duplicate_revoke(self):
        srv = self.srv
        tok = srv.cli("token", "create", "--scope", "admin", "--name", "fh-me").stdout.strip()
        self.assertRegex(tok, r"^rt_\d+_")
        # a duplicate name: one line naming the name, no PostgreSQL wording
        out = srv.cli("token", "create", "--scope", "read", "--name", "fh-me", check=False)
        self.assertEqual(out.returncode, 1, out)
        self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)
        self.assertIn("a token named 'fh-me' exists", out.stderr)
        for pg in ("duplicate key", "constraint", "23505", "already exists"):
            self.assertNotIn(pg, out.stderr + out.stdout)
        # list: every token, its scope and state, never a secret
        out = srv.cli("token", "list")
        lines = out.stdout.splitlines()
        self.assertEqual(lines[0].split()[:4], ["ID", "NAME", "SCOPE", "STATE"], out.stdout)
        me = [l for l in lines if " fh-me " in l]
        self.assertEqual(len(me), 1, out.stdout)
        self.assertEqual(me[0].split()[2:4], ["admin", "live"], me)
        self.assertNotIn(tok.split("_", 2)[2], out.stdout)
        # revoke says what it revoked; the token then gets 401
        out = srv.cli("token", "revoke", "fh-me")
        self.assertIn("revoked token 'fh-me' (id %s, scope admin, created " % tok.split("_")[1],
                      out.stdout)
        self.assertEqual(srv.get("/api/v1/subscriptions", token=tok).status, 401)
        self.assertEqual([l.split()[3] for l in srv.cli("token", "list").stdout.splitlines()
                          if " fh-me " in l], ["revoked"])
        out = srv.cli("token", "revoke", "fh-me", check=False)
        self.assertEqual(out.returncode, 1)
        self.assertIn("token 'fh-me' (id %s) was revoked already" % tok.split("_")[1],
                      out.stderr)
        out = srv.cli("token", "revoke", "fh-nobody", check=False)
        self.assertEqual(out.returncode, 1)
        self.assertIn("no token of that name", out.stderr)


if __name__ == "__main__":
    unittest.main()
