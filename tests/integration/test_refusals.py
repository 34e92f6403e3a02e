"""Refusals: on the headers before a byte of the body
is read, one Content-Length, header deadlines, unknown fields bounded,
no 500 (and no PostgreSQL text) for input the documentation allows, one
params rule for results, jobs and bisects, machines bound to the worker
token that registered them, and the small ones (dashboard files only,
tree names, api_tokens.last_used).
"""
import json
import os
import random
import re
import socket
import string
import sys
import tempfile
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, raw_exchange as raw, result_doc, sha, wait_until  # noqa: E402

PG_WORDS = ("index", "constraint", "violates", "postgres", "btree", "ERROR:", "setups_",
            "machines_")


def noise(n, seed=1):
    """n bytes of incompressible ASCII text (a btree entry cannot hold 2.7 KB of it)."""
    rnd = random.Random(seed)
    return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(n))


def status_of(reply):
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.1 ") else None


def json_of(reply):
    return json.loads(reply.split(b"\r\n\r\n", 1)[1])


def no_pg_text(test, r):
    for w in PG_WORDS:
        test.assertNotIn(w, r.body, r)


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


class RefusedOnHeaders(unittest.TestCase):
    """401/403/413 before the body: the client has sent only the headers of
    a 15 MB upload and gets its answer, then the connection closes."""

    def upload_headers(self, token=None, length=15_000_000, extra=b""):
        h = b"POST /api/v1/results HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        if token:
            h += b"Authorization: Bearer " + token.encode() + b"\r\n"
        return h + b"Content-Length: %d\r\n" % length + extra + b"\r\n"

    def test_no_token_401_before_the_body(self):
        first, out = raw(srv, self.upload_headers(), wait=3)
        self.assertEqual(status_of(out), 401, out[:200])
        self.assertLess(first, 1.0)
        self.assertIn(b"Connection: close", out)
        self.assertEqual(json_of(out)["error"]["code"], "unauthorized")

    def test_bad_token_401_and_wrong_scope_403_before_the_body(self):
        first, out = raw(srv, self.upload_headers("rt_1_" + "x" * 43), wait=3)
        self.assertEqual(status_of(out), 401, out[:200])
        first, out = raw(srv, self.upload_headers(srv.tokens["read"]), wait=3)
        self.assertEqual(status_of(out), 403, out[:200])
        self.assertLess(first, 1.0)

    def test_too_large_413_on_content_length(self):
        first, out = raw(srv, self.upload_headers(srv.tokens["submit"], length=17 << 20),
                         wait=3)
        self.assertEqual(status_of(out), 413, out[:200])
        self.assertLess(first, 1.0)

    def test_unknown_endpoint_refused_before_the_body(self):
        req = (b"POST /api/v1/nothing HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n")
        first, out = raw(srv, req, wait=3)
        self.assertEqual(status_of(out), 404, out[:200])

    def test_two_content_lengths_refused(self):
        body = json.dumps(result_doc(sha("1"))).encode()
        extra = b"Content-Length: %d\r\n" % (len(body) + 1)
        first, out = raw(srv, self.upload_headers(srv.tokens["submit"], len(body), extra) + body,
                         wait=3)
        self.assertEqual(status_of(out), 400, out[:300])
        self.assertEqual(json_of(out)["error"]["detail"], "Content-Length")
        first, out = raw(srv, self.upload_headers(srv.tokens["submit"], len(body),
                                                  b"Transfer-Encoding: chunked\r\n") + body,
                         wait=3)
        self.assertIn(status_of(out), (400, None), out[:300])

    def test_authorized_upload_still_works(self):
        r = srv.post("/api/v1/results", result_doc(sha("2")), scope="submit")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(srv.get("/healthz").status, 200)


class Deadlines(unittest.TestCase):
    """A header line every second never makes a connection idle; the header
    deadline (header_timeout_s = 2 here) closes it anyway."""

    @classmethod
    def setUpClass(cls):
        cls.conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
        cls.conf.write("header_timeout_s = 2\nbody_timeout_s = 3\nmax_connections = 16\n")
        cls.conf.close()
        cls.srv = Server(extra_args=["--config", cls.conf.name])

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        os.unlink(cls.conf.name)

    def drip(self, head, line, seconds):
        host, port = self.srv.addr.rsplit(":", 1)
        c = socket.create_connection((host, int(port)))
        c.settimeout(1)
        t0 = time.monotonic()
        c.sendall(head)
        closed = None
        try:
            while time.monotonic() - t0 < seconds:
                try:
                    c.sendall(line)
                except (BrokenPipeError, ConnectionResetError):
                    closed = time.monotonic() - t0
                    break
                try:
                    if c.recv(4096) == b"":
                        closed = time.monotonic() - t0
                        break
                except socket.timeout:
                    pass
                except ConnectionResetError:
                    closed = time.monotonic() - t0
                    break
        finally:
            c.close()
        return closed

    def test_slow_headers_closed_at_the_deadline(self):
        closed = self.drip(b"GET /healthz HTTP/1.1\r\nHost: t\r\n", b"X-Drip: 1\r\n", 10)
        self.assertIsNotNone(closed, "a header every second kept the connection open 10 s")
        self.assertLess(closed, 5)

    def test_slow_body_closed_at_the_deadline(self):
        head = (b"POST /api/v1/results HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " +
                self.srv.tokens["submit"].encode() + b"\r\nContent-Length: 100000\r\n\r\n")
        closed = self.drip(head, b" ", 12)
        self.assertIsNotNone(closed, "a byte of body every second kept the connection 12 s")
        self.assertLess(closed, 7)

    def test_full_server_answers_503_json(self):
        # max_connections = 16: the 17th connection's request gets 503 at once
        host, port = self.srv.addr.rsplit(":", 1)
        idle = [socket.create_connection((host, int(port))) for _ in range(20)]
        try:
            time.sleep(0.3)
            first, out = raw(self.srv, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", wait=3)
            self.assertEqual(status_of(out), 503, out[:300])
            self.assertLess(first, 1.0)
            self.assertEqual(json_of(out)["error"]["code"], "overloaded")
            # when to ask again
            self.assertIn(b"\r\nRetry-After: 2\r\n", out.split(b"\r\n\r\n", 1)[0] + b"\r\n")
        finally:
            for so in idle:
                so.close()
        time.sleep(0.5)
        self.assertEqual(self.srv.get("/healthz").status, 200)

    def test_server_answers_after(self):
        self.assertEqual(self.srv.get("/healthz").status, 200)


class UnknownFieldsBounded(unittest.TestCase):
    def test_big_unknown_array_413_naming_it(self):
        doc = result_doc(sha("3"), junk=[0] * 200_000)
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 413, r)
        self.assertEqual(r.json()["error"]["detail"], "junk")

    def test_big_unknown_string_413(self):
        doc = result_doc(sha("3"), note="x" * 4096, blob="y" * (2 << 20))
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 413, r)
        self.assertEqual(r.json()["error"]["detail"], "blob")

    def test_body_of_millions_of_values_refused_before_parsing(self):
        body = b'{"run_id":"%s","x":[' % str(uuid.uuid4()).encode() + b"0," * 3_000_000 + b"0]}"
        t0 = time.monotonic()
        r = srv.request("POST", "/api/v1/results", raw=body, scope="submit")
        self.assertEqual(r.status, 413, r)
        self.assertLess(time.monotonic() - t0, 5)

    def test_extra_within_the_limits_served_as_stored(self):
        extra = {"note": "n" * 1000, "nested": {"a": [[1, 2.5, "x"]], "b": None},
                 "list": list(range(5000))}
        doc = result_doc(sha("4"), **extra)
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 201, r)
        got = srv.get("/api/v1/runs/" + doc["run_id"])
        self.assertEqual(got.status, 200)
        self.assertEqual(got.json()["extra"], extra)
        self.assertEqual(got.json()["run_id"], doc["run_id"])
        self.assertEqual(got.json()["params"], doc["params"])


class NoServerErrorForValidInput(unittest.TestCase):
    def test_long_random_params_stored(self):
        doc = result_doc(sha("5"), params={"p": noise(2800), "q": noise(1200, 2)})
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 201, r)
        got = srv.get("/api/v1/runs/" + doc["run_id"]).json()
        self.assertEqual(got["params"], doc["params"])
        # the same params again find the same setup
        doc2 = result_doc(sha("5"), params=doc["params"])
        self.assertEqual(srv.post("/api/v1/results", doc2, scope="submit").status, 201)
        self.assertEqual(srv.psql("SELECT count(DISTINCT setup_id) FROM runs WHERE run_id IN "
                                  "('%s', '%s')" % (doc["run_id"], doc2["run_id"])), "1")

    def test_long_machine_fields_400_naming_the_field(self):
        for field in ("hostname", "arch"):
            doc = result_doc(sha("6"))
            doc["machine"] = dict(doc["machine"], **{field: noise(2800, 3)})
            r = srv.post("/api/v1/results", doc, scope="submit")
            self.assertEqual(r.status, 400, (field, r))
            self.assertEqual(r.json()["error"]["detail"], "machine." + field)
            no_pg_text(self, r)

    def test_database_text_never_replied(self):
        # a conflict the handlers do not foresee: the reply is generic
        for path, body, scope in (("/api/v1/workers/register",
                                   {"hostname": "h" * 255, "arch": "a" * 32,
                                    "tbox_group": "t" * 128, "capabilities": ["host"]},
                                   "worker"),):
            r = srv.post(path, body, scope=scope)
            self.assertLess(r.status, 500, r)
            no_pg_text(self, r)


class ParamsRule(unittest.TestCase):
    BAD = [({"": 1}, "params."), ({"k": "v" * 5000}, "params.k"),
           ({"k": {"nested": 1}}, "params.k"), ({"k": [1]}, "params.k"),
           ({"k": None}, "params.k")]

    def test_results(self):
        for params, detail in self.BAD:
            r = srv.post("/api/v1/results", result_doc(sha("7"), params=params), scope="submit")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, detail), r)

    def test_jobs(self):
        base = {"commit": sha("7"), "kconfig": "host", "testcase": "small-allocs"}
        for params, detail in self.BAD:
            r = srv.post("/api/v1/jobs", dict(base, params=params), scope="submit")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, detail), r)
        r = srv.post("/api/v1/jobs", dict(base, params={"nr_task": 1}), scope="submit")
        self.assertEqual(r.status, 201, r)

    def test_bisects(self):
        base = {"tree": "nope", "good": sha("a"), "bad": sha("b"), "testcase": "t",
                "kconfig": "x86_64-defconfig", "metric": "t.m"}
        for params, detail in self.BAD:
            r = srv.post("/api/v1/bisects", dict(base, params=params), scope="submit")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, detail), r)


class MachinesBoundToTokens(unittest.TestCase):
    def register(self, token, host):
        r = srv.post("/api/v1/workers/register",
                     {"hostname": host, "arch": "x86_64", "tbox_group": "bound-box",
                      "capabilities": ["host"]}, token=token)
        return r

    def test_other_token_cannot_lease_heartbeat_complete_or_reregister(self):
        t1, t2 = srv.token("worker"), srv.token("worker")
        r = self.register(t1, "bound-1")
        self.assertEqual(r.status, 200, r)
        m1 = r.json()["machine_id"]
        # the second token takes the machine over by registering it again: refused
        r = self.register(t2, "bound-1")
        self.assertEqual(r.status, 403, r)
        self.assertEqual(self.register(t1, "bound-1").status, 200)
        r = srv.post("/api/v1/jobs", {"commit": sha("8"), "kconfig": "host",
                                      "testcase": "small-allocs", "tbox_group": "bound-box",
                                      "params": {"n": 1}}, scope="submit")
        self.assertEqual(r.status, 201, r)
        jid = r.json()["id"]
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m1}, token=t2)
        self.assertEqual(r.status, 403, r)
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m1}, token=t1)
        self.assertEqual(r.status, 200, r)
        job = r.json()["job"]
        self.assertEqual(job["id"], jid)
        # the machine id is public (GET /jobs/{id}); another token forges with it
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["machine_id"], m1)
        doc = result_doc(sha("8"), testcase="small-allocs", job_id=jid, params=job["params"],
                         kconfig="host", metrics={"small-allocs.throughput": [1.0]})
        for body in ({"machine_id": m1, "status": "ok", "results": [doc]},
                     {"status": "ok", "results": [doc]}):
            r = srv.post("/api/v1/jobs/%d/complete" % jid, body, token=t2)
            self.assertEqual(r.status, 403, r)
        r = srv.post("/api/v1/jobs/%d/heartbeat" % jid, {"machine_id": m1, "phase": "run"},
                     token=t2)
        self.assertEqual(r.status, 403, r)
        self.assertEqual(srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid), "0")
        r = srv.post("/api/v1/jobs/%d/heartbeat" % jid, {"machine_id": m1, "phase": "run"},
                     token=t1)
        self.assertEqual(r.status, 200, r)
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m1, "status": "ok", "results": [doc]}, token=t1)
        self.assertEqual(r.status, 200, r)

    def test_runs_join_only_jobs_their_token_ran(self):
        """POST /results with a job_id from a token none of whose machines leased the job
        is refused (48 posted runs turned another's A/B verdict)."""
        t1, t2, sub = srv.token("worker"), srv.token("worker"), srv.token("submit")
        r = srv.post("/api/v1/workers/register",
                     {"hostname": "poster-1", "arch": "x86_64", "tbox_group": "poster-box",
                      "capabilities": ["host"]}, token=t1)
        self.assertEqual(r.status, 200, r)
        m1 = r.json()["machine_id"]
        r = srv.post("/api/v1/jobs", {"commit": sha("9"), "kconfig": "host",
                                      "testcase": "small-allocs", "tbox_group": "poster-box",
                                      "params": {"n": 1}}, token=sub)
        self.assertEqual(r.status, 201, r)
        jid = r.json()["id"]

        def doc(v):
            return result_doc(sha("9"), testcase="small-allocs", job_id=jid, params={"n": 1},
                              kconfig="host", metrics={"small-allocs.throughput": [v]})
        # not leased yet: not even its submitter adds runs to it
        for tok in (t1, t2, sub):
            r = srv.post("/api/v1/results", doc(1.0), token=tok)
            self.assertEqual((r.status, r.json()["error"]["detail"]), (403, "job_id"), r)
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m1}, token=t1)
        self.assertEqual((r.status, r.json()["job"]["id"]), (200, jid), r)
        for tok in (t2, sub):
            r = srv.post("/api/v1/results", doc(2.0), token=tok)
            self.assertEqual((r.status, r.json()["error"]["detail"]), (403, "job_id"), r)
            self.assertIn("not leased to a worker of this token", r.json()["error"]["message"])
        self.assertEqual(srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid), "0")
        r = srv.post("/api/v1/results", doc(3.0), token=t1)
        self.assertEqual(r.status, 201, r)
        r = srv.post("/api/v1/results", doc(4.0), scope="admin")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid), "2")
        # a job that does not exist is still a 404, whoever asks
        r = srv.post("/api/v1/results", dict(doc(5.0), job_id=jid + 100000), token=t2)
        self.assertEqual((r.status, r.json()["error"]["code"]), (404, "not_found"), r)


class PosterReadsTheJobOnce(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # no detection: its reads of the series (a job per run) would count here too
        cls.conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
        cls.conf.write("auto_bisect = 0\ndetect_enabled = 0\n")
        cls.conf.close()
        cls.srv = Server(extra_args=["--config", cls.conf.name])

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        os.unlink(cls.conf.name)

    def test_one_read_of_the_job_per_run(self):
        """POST /results with a job_id reads the job once: who may post, its commit and
        testcase in one statement (it was read twice, the second time as the whole lease
        spec with its skip_images)."""
        srv = self.srv
        t1 = srv.token("worker")
        r = srv.post("/api/v1/workers/register",
                     {"hostname": "once-1", "arch": "x86_64", "tbox_group": "once-box",
                      "capabilities": ["host"]}, token=t1)
        self.assertEqual(r.status, 200, r)
        m1 = r.json()["machine_id"]
        r = srv.post("/api/v1/jobs", {"commit": sha("7"), "kconfig": "host",
                                      "testcase": "small-allocs", "tbox_group": "once-box",
                                      "params": {"n": 1}}, scope="submit")
        self.assertEqual(r.status, 201, r)
        jid = r.json()["id"]
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m1}, token=t1)
        self.assertEqual((r.status, r.json()["job"]["id"]), (200, jid), r)

        def stats():
            """reads of a job by its id (jobs_pkey), runs inserted, as the server's
            backends reported them (when idle, at most once a second)"""
            out = srv.psql("SELECT (SELECT idx_scan FROM pg_stat_user_indexes WHERE "
                           "indexrelname = 'jobs_pkey'), (SELECT n_tup_ins FROM "
                           "pg_stat_user_tables WHERE relname = 'runs')")
            return [int(x) for x in out.split("|")]
        time.sleep(2)
        before = stats()
        for i in range(3):
            r = srv.post("/api/v1/results", result_doc(
                sha("7"), testcase="small-allocs", job_id=jid, params={"n": 1},
                kconfig="host", metrics={"small-allocs.throughput": [float(i + 1)]}),
                token=t1)
            self.assertEqual(r.status, 201, r)
        wait_until(lambda: stats()[1] >= before[1] + 3, what="the runs' statistics")
        time.sleep(1.5)
        # per run: the check and two reads of the run's insert (its foreign key among them)
        self.assertEqual(stats()[0] - before[0], 3 * 3)


class SubmitQuotas(unittest.TestCase):
    """A submit token's jobs stay below submit_priority_max and at most
    submit_queue_max of them wait at once (300 jobs at
    priority 1000 jumped ahead of bisects and requests; 108k queued jobs)."""

    @classmethod
    def setUpClass(cls):
        fd, cls.conf = tempfile.mkstemp(suffix=".conf")
        with os.fdopen(fd, "w") as f:
            f.write("auto_bisect = 0\nsubmit_priority_max = 5\nsubmit_queue_max = 3\n")
        cls.srv = Server(["--config", cls.conf])

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        os.unlink(cls.conf)

    def job(self, token, n, **kw):
        return self.srv.post("/api/v1/jobs", dict({"commit": sha("c"), "kconfig": "host",
                                                   "testcase": "small-allocs",
                                                   "params": {"n": n}}, **kw), token=token)

    def test_priority_ceiling_and_queue_limit(self):
        s = self.srv
        a, b = s.token("submit"), s.token("submit")
        r = self.job(a, 1, priority=6)
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "priority"), r)
        self.assertIn("submit_priority_max (5)", r.json()["error"]["message"])
        ids = [self.job(a, 1, priority=5).json()["id"]]
        ids += [self.job(a, n).json()["id"] for n in (2, 3)]
        self.assertEqual(s.psql("SELECT count(*) FROM jobs WHERE state = 'queued' AND "
                                "id IN (%s)" % ",".join(map(str, ids))), "3")
        r = self.job(a, 4)
        self.assertEqual((r.status, r.json()["error"]["code"], r.json()["error"]["detail"]),
                         (429, "quota_exceeded", "token"), r)
        self.assertIn("3 queued jobs", r.json()["error"]["message"])
        self.assertEqual(s.psql("SELECT count(*) FROM jobs WHERE params->>'n' = '4'"), "0")
        # another token has its own share; an admin token has none
        self.assertEqual(self.job(b, 5).status, 201)
        r = s.post("/api/v1/jobs", {"commit": sha("c"), "kconfig": "host",
                                    "testcase": "small-allocs", "params": {"n": 6},
                                    "priority": 1000}, scope="admin")
        self.assertEqual(r.status, 201, r)
        # a job that leaves the queue frees its place
        self.assertEqual(s.post("/api/v1/jobs/%d/cancel" % ids[0], {}, token=a).status, 200)
        self.assertEqual(self.job(a, 7).status, 201)


class CredentialsInUrls(unittest.TestCase):
    """A tree URL's user:token is needed to fetch, never shown."""

    def test_tree_list_poll_error_and_job_messages_scrubbed(self):
        url = "http://alice:s3cret-tok@127.0.0.1:9/linux.git"
        r = srv.post("/api/v1/trees", {"name": "private", "url": url, "branches": ["master"],
                                       "poll_s": 0}, scope="admin")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(srv.post("/api/v1/trees/private/poll", scope="submit").status, 202)
        deadline = time.time() + 60
        while time.time() < deadline:
            if srv.psql("SELECT poll_error IS NOT NULL FROM trees WHERE name = 'private'") == "t":
                break
            time.sleep(0.2)
        self.assertEqual(srv.psql("SELECT url FROM trees WHERE name = 'private'"), url)
        time.sleep(1.1)  # GET /api/v1/trees is cached for up to a second
        r = srv.get("/api/v1/trees", scope="read")
        self.assertNotIn("s3cret", r.body)
        t = [t for t in r.json() if t["name"] == "private"][0]
        self.assertEqual(t["url"], "http://***@127.0.0.1:9/linux.git")
        self.assertTrue(t["poll_error"], t)
        # what a worker says of a failed fetch, in a message, a log tail, a fail reason
        w = srv.token("worker")
        r = srv.post("/api/v1/workers/register", {"hostname": "scrub-1", "arch": "x86_64",
                                                  "tbox_group": "scrub-box",
                                                  "capabilities": ["host"]}, token=w)
        m = r.json()["machine_id"]
        r = srv.post("/api/v1/jobs", {"commit": sha("d"), "kconfig": "host",
                                      "testcase": "small-allocs", "tbox_group": "scrub-box",
                                      "params": {"n": 1}}, scope="submit")
        jid = r.json()["id"]
        self.assertEqual(srv.post("/api/v1/jobs/lease", {"machine_id": m}, token=w).status, 200)
        said = "fatal: unable to access '%s/': Connection refused" % url
        r = srv.post("/api/v1/jobs/%d/heartbeat" % jid,
                     {"machine_id": m, "phase": "build", "message": said}, token=w)
        self.assertEqual(r.status, 200, r)
        self.assertNotIn("s3cret", srv.get("/api/v1/jobs/%d" % jid, scope="read").body)
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m, "status": "build-failed", "log_tail": said + "\n"},
                     token=w)
        self.assertEqual(r.status, 200, r)
        job = srv.get("/api/v1/jobs/%d" % jid, scope="read")
        self.assertNotIn("s3cret", job.body)
        self.assertIn("http://***@127.0.0.1:9/linux.git", job.json()["log_tail"])
        self.assertEqual(srv.psql("SELECT count(*) FROM jobs WHERE id = %d AND (message LIKE "
                                  "'%%s3cret%%' OR log_tail LIKE '%%s3cret%%' OR fail_reason "
                                  "LIKE '%%s3cret%%' OR phase_history::text LIKE '%%s3cret%%')"
                                  % jid), "0")


class Small(unittest.TestCase):
    def test_only_dashboard_files(self):
        for path in ("/package.json", "/package-lock.json", "/README.md",
                     "/tools/vendor.mjs", "/node_modules/x/index.js", "/js/../package.json"):
            r = srv.get(path)
            self.assertEqual(r.status, 404, (path, r))
        for path in ("/", "/index.html", "/js/app.js", "/css/app.css"):
            self.assertEqual(srv.get(path).status, 200, path)

    def test_app_routes_whatever_their_last_segment(self):
        """Every page of web/js/app.js's route table is the app's index.html, a dot
        in its last segment or not (/plans/mm.smoke was a 404); a missing file
        under the dashboard's folders is still a 404."""
        app_js = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              "..", "..", "web", "js", "app.js")
        with open(app_js) as f:
            firsts = set(re.findall(r"\{ re: /\^\\/([a-z][a-z-]*)", f.read()))
        self.assertTrue({"plans", "trees", "requests", "regressions"} <= firsts, firsts)
        index = srv.get("/index.html")
        self.assertEqual(index.status, 200, index)
        self.assertIn('<main id="app">', index.body)
        paths = ["/plans/mm.smoke", "/plans/mm.smoke/", "/trees/linux.git"]
        paths += ["/%s/v6.8.rc1" % first for first in sorted(firsts)]
        for path in paths:
            r = srv.get(path)
            self.assertEqual((r.status, r.headers.get("Content-Type"), r.body),
                             (200, "text/html; charset=utf-8", index.body), path)
        for path in ("/js/nope.js", "/css/nope.css", "/vendor/nope.js", "/js/nope",
                     "/js/pages/nope.js", "/favicon.ico"):
            r = srv.get(path)
            self.assertEqual((r.status, r.json()["error"]["code"]), (404, "not_found"), path)
        r = srv.get("/js/app.js")
        self.assertEqual((r.status, r.headers.get("Content-Type")),
                         (200, "text/javascript; charset=utf-8"), r)
        self.assertIn("const routes = [", r.body)

    def test_tree_names_dot_and_dotdot(self):
        for name in (".", ".."):
            r = srv.post("/api/v1/trees", {"name": name, "url": "https://example.org/x.git",
                                           "branches": ["master"]}, scope="admin")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "name"), r)

    def test_last_used_written(self):
        name = "lu-" + uuid.uuid4().hex[:8]
        tok = srv.token("read", name=name)
        self.assertEqual(srv.psql("SELECT last_used IS NULL FROM api_tokens WHERE name = '%s'"
                                  % name), "t")
        self.assertEqual(srv.get("/api/v1/runs", token=tok).status, 200)
        self.assertEqual(srv.psql("SELECT last_used IS NOT NULL FROM api_tokens "
                                  "WHERE name = '%s'" % name), "t")


if __name__ == "__main__":
    unittest.main()
