"""A server whose database refuses new connections answers 503
db_unavailable, and no reply carries PostgreSQL's or libpq's words (the
socket path, the database's name, "FATAL"): those go to the server's log.

The database is closed to connections (ALLOW_CONNECTIONS false, which
binds superusers too) and the server's backends are ended, so that each
of its threads must connect again, and cannot.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc, sha, wait_until  # noqa: E402

# what libpq and PostgreSQL write and a reply must not
LEAKS = ("FATAL", "PGSQL", "socket", "connection to server", "accepting connections",
         "postgres", "libpq")


class DatabaseUnavailable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server()
        r = cls.srv.post("/api/v1/results", result_doc(sha("a")), scope="submit")
        assert r.status == 201, r

    @classmethod
    def tearDownClass(cls):
        cls.allow(True)
        assert cls.srv.stop() == 0

    @classmethod
    def allow(cls, yes):
        db = cls.srv.dbname
        cls.srv.cluster.psql("ALTER DATABASE %s ALLOW_CONNECTIONS %s"
                             % (db, "true" if yes else "false"), db="postgres")
        if not yes:
            cls.srv.cluster.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                 "WHERE datname = '%s'" % db, db="postgres")

    def test_replies_name_no_database_detail(self):
        srv = self.srv
        self.allow(False)
        asks = [("GET", "/api/v1/quality", None, None),
                ("GET", "/api/v1/regressions", None, None),
                ("POST", "/api/v1/plans/p/backtest", {}, "admin"),
                ("POST", "/api/v1/regressions/1/invalid", {"reason": "noise"}, "admin")]
        messages = set()
        # several rounds: each of the server's threads meets the closed database
        for _ in range(6):
            for method, path, body, scope in asks:
                r = srv.request(method, path, body=body, scope=scope)
                self.assertEqual(r.status, 503, (path, r))
                err = r.json()["error"]
                self.assertEqual(err["code"], "db_unavailable", (path, r))
                for word in LEAKS + (srv.dbname,):
                    self.assertNotIn(word, r.body, (path, r))
                messages.add(err["message"])
        # the connection that could not be made, as the reply says it
        self.assertIn("cannot connect to the database (logged)", messages)
        # ... and the reason, whole, in one line of the log
        with open(srv.log.name, encoding="utf-8", errors="replace") as f:
            lines = [x for x in f if "is not currently accepting connections" in x]
        self.assertTrue(lines)
        self.assertIn(' error db: cannot connect to the database: ', lines[0])
        self.assertIn('FATAL: database "%s" is not currently accepting connections'
                      % srv.dbname, lines[0])

        self.allow(True)
        wait_until(lambda: srv.get("/api/v1/quality").status == 200, timeout=30,
                   what="the server back on its database")
        r = srv.post("/api/v1/results", result_doc(sha("b")), scope="submit")
        self.assertEqual(r.status, 201, r)


if __name__ == "__main__":
    unittest.main()
