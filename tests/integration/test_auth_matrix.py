"""Auth matrix: every route of server/api/routes.c x {no token,
malformed, revoked, worker, submit, read, admin}, with public_read on and
off. Exactly the documented combinations pass the auth check (README
"Tokens" and "HTTP API"): a caller refused gets 401 (no, malformed, unknown
or revoked token) or 403 (valid token, wrong scope) and the handler does not
run; an accepted caller gets neither (nor a 5xx). Tokens are stored only as
SHA-256 of their secret and never appear in the database or the server log.
"""
import hashlib
import os
import re
import sys
import tempfile
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TOP, Server, result_doc, sha  # noqa: E402

SCOPES = ("read", "submit", "worker", "admin")
ANYONE = "anyone"  # no token checked at all

# The documented matrix, written from README (scope table and API table),
# not from the code: route -> scopes that may call it. "read+" = any valid
# token (every GET), anonymous too when public_read is on.
READ = ("read+",)
DOCUMENTED = {
    ("GET", "/healthz"): (ANYONE,),
    ("GET", "/metrics"): (ANYONE,),
    ("GET", "/api/v1/openapi.json"): (ANYONE,),
    ("POST", "/api/v1/results"): ("submit", "worker", "admin"),
    ("GET", "/api/v1/runs"): READ,
    ("GET", "/api/v1/runs/{}"): READ,
    ("GET", "/api/v1/series"): READ,
    ("GET", "/api/v1/compare"): READ,
    ("GET", "/api/v1/machines"): READ,
    ("GET", "/api/v1/testcases"): READ,
    ("GET", "/api/v1/metrics"): READ,
    ("PUT", "/api/v1/metrics/{}"): ("admin",),
    ("POST", "/api/v1/trees"): ("admin",),
    ("GET", "/api/v1/trees"): READ,
    ("POST", "/api/v1/trees/{}/poll"): ("submit", "admin"),  # poll now, as a push hook
    ("POST", "/api/v1/plans"): ("admin",),
    ("GET", "/api/v1/plans"): READ,
    ("GET", "/api/v1/plans/{}"): READ,
    ("PUT", "/api/v1/plans/{}"): ("admin",),
    ("DELETE", "/api/v1/plans/{}"): ("admin",),
    ("GET", "/api/v1/plans/{}/pushes"): READ,
    ("POST", "/api/v1/plans/{}/backtest"): ("admin",),  # reads only, but may cost seconds
    ("POST", "/api/v1/jobs"): ("submit", "admin"),
    ("GET", "/api/v1/jobs"): READ,
    ("POST", "/api/v1/jobs/lease"): ("worker", "admin"),
    ("GET", "/api/v1/jobs/{}"): READ,
    ("GET", "/api/v1/jobs/{}/kconfig"): READ,
    ("POST", "/api/v1/jobs/{}/heartbeat"): ("worker", "admin"),
    ("POST", "/api/v1/jobs/{}/complete"): ("worker", "admin"),
    # kernel images by SHA-256: built by one worker, booted by another; not public
    ("GET", "/api/v1/images/{}"): ("worker", "admin"),
    ("PUT", "/api/v1/images/{}"): ("worker", "admin"),
    ("POST", "/api/v1/jobs/{}/cancel"): ("submit", "admin"),
    ("POST", "/api/v1/workers/register"): ("worker", "admin"),
    ("GET", "/api/v1/regressions"): READ,
    ("GET", "/api/v1/regressions/{}"): READ,
    ("PATCH", "/api/v1/regressions/{}"): ("admin",),  # triage
    ("POST", "/api/v1/regressions/{}/invalid"): ("admin",),  # triage: a false alarm
    # the alert-quality ledger: counts of records, read like them
    ("GET", "/api/v1/quality"): READ,
    ("POST", "/api/v1/bisects"): ("submit", "admin"),
    ("GET", "/api/v1/bisects"): READ,
    ("GET", "/api/v1/bisects/{}"): READ,
    ("POST", "/api/v1/bisects/{}/cancel"): ("submit", "admin"),
    # inboxes: what a public list carried, read like the rest; registering one is admin's
    ("GET", "/api/v1/inboxes"): READ,
    ("POST", "/api/v1/inboxes"): ("admin",),
    ("GET", "/api/v1/inboxes/{}/messages"): READ,
    ("GET", "/api/v1/inboxes/{}/series"): READ,
    ("POST", "/api/v1/requests"): ("submit", "admin"),
    ("GET", "/api/v1/requests"): READ,
    ("GET", "/api/v1/requests/{}"): READ,
    ("POST", "/api/v1/requests/{}/cancel"): ("submit", "admin"),
    # a submitted series is not public (README "Security: what is public"): any token
    ("GET", "/api/v1/requests/{}/mbox"): SCOPES,
    # profiles: folded stacks and their diffs are read data
    ("GET", "/api/v1/runs/{}/profile"): READ,
    ("GET", "/api/v1/profile-diff"): READ,
    ("GET", "/api/v1/bisects/{}/profile-diff"): READ,
    ("GET", "/api/v1/requests/{}/profile-diff"): READ,
    # subscriptions and the outbox hold mail addresses: admin only, GET too
    ("POST", "/api/v1/subscriptions"): ("admin",),
    ("GET", "/api/v1/subscriptions"): ("admin",),
    ("DELETE", "/api/v1/subscriptions/{}"): ("admin",),
    ("POST", "/api/v1/regressions/{}/report"): ("admin",),
    ("POST", "/api/v1/regressions/{}/bisect"): ("admin",),
    ("GET", "/api/v1/outbox"): ("admin",),
    # web8 (kconfig diff, report text): the report text without its recipients, and
    # the .config difference between two builds, are read like the rest
    ("GET", "/api/v1/regressions/{}/report"): READ,
    ("GET", "/api/v1/regressions/{}/kconfig-diff"): READ,
    ("GET", "/api/v1/bisects/{}/kconfig-diff"): READ,
    ("GET", "/api/v1/kconfig/diff"): READ,
    # profiles: a run's folded stacks and the profile diffs
    ("GET", "/api/v1/runs/{}/profile"): READ,
    ("GET", "/api/v1/profile-diff"): READ,
    ("GET", "/api/v1/bisects/{}/profile-diff"): READ,
    ("GET", "/api/v1/requests/{}/profile-diff"): READ,
}


def route_table():
    """(method, pattern) of every entry of the route table in server/api/routes.c."""
    with open(os.path.join(TOP, "server", "api", "routes.c")) as f:
        text = f.read()
    return re.findall(r'\{\s*"([A-Z]+)",\s*"([^"]+)",\s*\w+,\s*AUTH_\w+'
                      r'(?:\s*\|\s*AUTH_\w+)?(?:,\s*\w+)*\s*\}', text)


def concrete(pattern):
    # a path parameter that names nothing: the handler answers 404/400 at most
    return pattern.replace("{}", "1", 1).replace("{}", "1")


def token_secret(tok):
    return tok.split("_", 2)[2]


def setUpModule():
    global open_srv, closed_srv, conf
    conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    conf.write("# auth matrix: reads need a token\npublic_read = 0\n")
    conf.close()
    env = {"REGTRACK_ACCESS_LOG": "1"}
    open_srv = Server(env=env)
    closed_srv = Server(extra_args=["--config", conf.name], env=env)
    for s in (open_srv, closed_srv):
        name = "revoked-" + uuid.uuid4().hex[:8]
        s.revoked = s.token("admin", name)
        s.cli("token", "revoke", name)


def tearDownModule():
    open_srv.stop()
    closed_srv.stop()
    os.unlink(conf.name)


def principals(srv):
    """name -> (Authorization header or None, kind) where kind is the refusal
    expected when the route does not accept it: 401 or 'scope'."""
    admin = srv.tokens["admin"]
    admin_id = admin.split("_")[1]
    p = {
        "none": (None, 401),
        "revoked": ("Bearer " + srv.revoked, 401),
        # malformed in several ways, each its own principal
        "malformed-garbage": ("Bearer not-a-token", 401),
        "malformed-scheme": ("Basic " + admin, 401),
        "malformed-noscheme": (admin, 401),
        "malformed-short": ("Bearer " + admin[:-1], 401),
        "malformed-long": ("Bearer " + admin + "A", 401),
        "malformed-noid": ("Bearer rt__" + token_secret(admin), 401),
        "malformed-bigid": ("Bearer rt_99999999999999999999999_" + token_secret(admin), 401),
        "malformed-huge": ("Bearer " + "A" * 6000, 401),
        # well formed, but the secret of another token under the admin id
        "wrong-secret": ("Bearer rt_%s_%s" % (admin_id, token_secret(srv.tokens["read"])), 401),
        "unknown-id": ("Bearer rt_987654_" + token_secret(admin), 401),
    }
    for s in SCOPES:
        p[s] = ("Bearer " + srv.tokens[s], "scope")
    return p


def allowed(doc, who, public_read):
    if ANYONE in doc:
        return True
    if doc == READ:
        if who in SCOPES:
            return True
        return who == "none" and public_read
    return who in doc


class Matrix(unittest.TestCase):
    def test_every_route_has_a_documented_row(self):
        table = route_table()
        self.assertGreaterEqual(len(table), 30)
        self.assertEqual(set(table), set(DOCUMENTED),
                         "routes.c and the documented matrix differ: add the new route here")

    def check(self, srv, public_read):
        failures = []
        n = 0
        for method, pattern in route_table():
            doc = DOCUMENTED[(method, pattern)]
            for who, (auth, refusal) in principals(srv).items():
                headers = {"Authorization": auth} if auth else {}
                body = {"machine_id": 987654, "wait_s": 0} if method != "GET" else None
                r = srv.request(method, concrete(pattern), body=body, headers=headers)
                n += 1
                ok = allowed(doc, who, public_read)
                if ok:
                    if r.status in (401, 403) or r.status >= 500:
                        failures.append("%s %s as %s: %d, expected to pass auth (%s)" %
                                        (method, pattern, who, r.status, r.body[:120]))
                    continue
                want = 403 if refusal == "scope" else 401
                code = {401: "unauthorized", 403: "forbidden"}[want]
                if r.status != want or r.json()["error"]["code"] != code:
                    failures.append("%s %s as %s: %d, expected %d (%s)" %
                                    (method, pattern, who, r.status, want, r.body[:120]))
        self.assertEqual(failures, [], "\n".join(failures))
        return n

    def test_matrix_public_read_on(self):
        self.assertGreater(self.check(open_srv, True), 400)

    def test_matrix_public_read_off(self):
        self.assertGreater(self.check(closed_srv, False), 400)

    def test_public_read_off_anonymous_read_refused_reader_served(self):
        r = closed_srv.get("/api/v1/machines")
        self.assertEqual(r.status, 401)
        r = closed_srv.get("/api/v1/machines", scope="read")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(open_srv.get("/api/v1/machines").status, 200)


class RefusedCallsChangeNothing(unittest.TestCase):
    """Valid bodies with the wrong token: the handler must not run at all."""

    def counts(self, srv):
        return srv.psql("SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM trees), "
                        "(SELECT count(*) FROM jobs), (SELECT count(*) FROM machines), "
                        "(SELECT count(*) FROM metrics), (SELECT count(*) FROM subscriptions)")

    def test_writes_with_wrong_scope(self):
        srv = open_srv
        before = self.counts(srv)
        job = {"commit": sha("a"), "kconfig": "host", "testcase": "small-allocs",
               "params": {"nr_task": 1}, "tbox_group": "auth-box"}
        reg = {"hostname": "h", "arch": "x86_64", "tbox_group": "auth-box", "nr_cpus": 1,
               "memory_mb": 1, "cpu_model": "c", "capabilities": ["host"], "fingerprint": {}}
        cases = [
            ("POST", "/api/v1/results", result_doc(sha("a")), ("read",)),
            ("POST", "/api/v1/trees", {"name": "evil", "url": "https://example.org/x.git",
                                       "branches": ["master"]}, ("read", "submit", "worker")),
            ("POST", "/api/v1/jobs", job, ("read", "worker")),
            ("POST", "/api/v1/workers/register", reg, ("read", "submit")),
            ("PUT", "/api/v1/metrics/auth.metric", {"unit": "ms", "higher_is_better": False,
                                                    "is_monitor": False},
             ("read", "submit", "worker")),
            ("POST", "/api/v1/subscriptions", {"email": "x@example.org"},
             ("read", "submit", "worker")),
        ]
        for method, path, body, scopes in cases:
            for who in scopes + ("none", "revoked"):
                tok = srv.revoked if who == "revoked" else srv.tokens.get(who)
                r = srv.request(method, path, body=body, token=tok)
                self.assertIn(r.status, (401, 403), (method, path, who, r))
        self.assertEqual(self.counts(srv), before)
        # the same result document with a right token is stored: the body was valid
        self.assertEqual(srv.post("/api/v1/results", cases[0][2], scope="worker").status, 201)


class TokensStoredHashed(unittest.TestCase):
    def test_only_sha256_of_secret_is_stored(self):
        for srv in (open_srv, closed_srv):
            rows = srv.psql("SELECT id, encode(secret_sha256, 'hex') FROM api_tokens ORDER BY id")
            stored = dict(line.split("|") for line in rows.splitlines())
            dump = srv.psql("SELECT string_agg(t::text, E'\\n') FROM api_tokens t")
            for tok in list(srv.tokens.values()) + [srv.revoked]:
                tid, secret = tok.split("_")[1], token_secret(tok)
                self.assertEqual(len(secret), 43)
                self.assertEqual(stored[tid], hashlib.sha256(secret.encode()).hexdigest())
                self.assertNotIn(secret, dump)
                self.assertNotIn(secret.encode().hex(), dump)

    def test_secret_never_in_server_log(self):
        # every request of the matrix carried tokens; the log has none of them
        for srv in (open_srv, closed_srv):
            srv.get("/api/v1/machines", scope="admin")
            with open(srv.log.name, "rb") as f:
                log = f.read()
            self.assertIn(b"GET /api/v1/machines", log)  # the access log is on
            for tok in list(srv.tokens.values()) + [srv.revoked]:
                self.assertNotIn(token_secret(tok).encode(), log)

    def test_new_token_is_random(self):
        a, b = open_srv.token("read"), open_srv.token("read")
        self.assertNotEqual(token_secret(a), token_secret(b))
        self.assertRegex(a, r"^rt_[0-9]+_[A-Za-z0-9_-]{43}$")


if __name__ == "__main__":
    unittest.main()
