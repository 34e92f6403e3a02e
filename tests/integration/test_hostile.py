"""Hostile input through every field that reaches the database, a
page or a mail: HTML and script, SQL, NUL bytes, invalid UTF-8, 1 MB
strings, deeply nested JSON, huge numbers, duplicate keys. Each gets a
clean 4xx error document, or is stored and comes back byte-identical
through the API; the server stays up throughout. Mail headers: tree,
branch, testcase and metric names with CR/LF cannot add a header.
"""
import http.client
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, raw_exchange, result_doc, sha  # noqa: E402

HTML = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&amp;"
SQL = "x'); DROP TABLE runs; --"
CRLF = "a\r\nBcc: evil@example.org\r\n\r\nbody"
UNICODE = "\u202e\u2028\u2029\ufeff\U0001f600 \u00e9"
STRINGS = [HTML, SQL, CRLF, UNICODE, "\\u0000", "%00", "${jndi:x}", "a" * 4096]
BIG = "x" * (1 << 20)

# Every route that takes a body, with one valid-looking body.
BODY_ROUTES = [
    ("POST", "/api/v1/results"), ("PUT", "/api/v1/metrics/hostile.m"),
    ("POST", "/api/v1/trees"), ("POST", "/api/v1/jobs"), ("POST", "/api/v1/jobs/lease"),
    ("POST", "/api/v1/jobs/1/heartbeat"), ("POST", "/api/v1/jobs/1/complete"),
    ("POST", "/api/v1/workers/register"), ("PATCH", "/api/v1/regressions/1"),
    ("POST", "/api/v1/bisects"), ("POST", "/api/v1/subscriptions"),
    ("POST", "/api/v1/regressions/1/report"),
]

# Raw bodies that are not acceptable JSON for any route.
RAW = {
    "nested-arrays": b"[" * 100000,
    "nested-objects": b'{"a":' * 100000,
    "nested-in-doc": b'{"run_id": ' + b"[" * 100000,
    "nul-byte": b'{"a": "x\x00y"}',
    "nul-escape": b'{"a": "x\\u0000y"}',
    "invalid-utf8": b'{"a": "\xff\xfe\xc0\xaf"}',
    "invalid-utf8-key": b'{"\xed\xa0\x80": 1}',
    "lone-surrogate": b'{"a": "\\ud800"}',
    "huge-real": b'{"a": 1e999}',
    "huge-int": b'{"a": 123456789012345678901234567890}',
    "duplicate-keys": b'{"a": 1, "a": 2}',
    "not-object": b'"just a string"',
    "truncated": b'{"a": [1, 2',
    "empty": b"",
}


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


def raw_request(method, path, body=b"", admin=True):
    """One request over a fresh connection, bytes as given (http.client
    would refuse some of them)."""
    host, port = srv.addr.split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=60)
    h = {"Content-Type": "application/json"}
    if admin:
        h["Authorization"] = "Bearer " + srv.tokens["admin"]
    c.putrequest(method, path, skip_accept_encoding=True)
    for k, v in h.items():
        c.putheader(k, v)
    c.putheader("Content-Length", str(len(body)))
    c.endheaders(body)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


class Clean4xx(unittest.TestCase):
    def assert_clean_4xx(self, status, data, what):
        self.assertTrue(400 <= status < 500, "%s: %d %r" % (what, status, data[:200]))
        err = json.loads(data)["error"]
        self.assertEqual(set(err), {"code", "message", "detail"}, what)

    def assert_alive(self):
        self.assertEqual(srv.get("/healthz").status, 200)
        self.assertIsNone(srv.proc.poll(), "the server died")

    def test_raw_bodies_on_every_body_route(self):
        for method, path in BODY_ROUTES:
            for name, body in RAW.items():
                status, data = raw_request(method, path, body)
                self.assert_clean_4xx(status, data, "%s %s %s" % (method, path, name))
        self.assert_alive()

    def test_body_past_the_limit_is_413(self):
        # A chunked body has no Content-Length to refuse on the headers (the
        # test_results_api and test_refusals cases): the server reads and
        # drops the whole 1 MiB past its 64 KiB limit, then answers 413. The
        # client sends every byte before it reads, so no early close races it.
        conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
        conf.write("body_limit = 65536\n")
        conf.close()
        small = Server(extra_args=["--config", conf.name])
        try:
            body = b'{"a": "' + BIG.encode() + b'"}'
            chunks = b"".join(b"%x\r\n" % len(body[i:i + 16384]) + body[i:i + 16384] + b"\r\n"
                              for i in range(0, len(body), 16384)) + b"0\r\n\r\n"
            _, reply = raw_exchange(small, b"POST /api/v1/results HTTP/1.1\r\nHost: t\r\n"
                                    b"Content-Type: application/json\r\nConnection: close\r\n"
                                    b"Authorization: Bearer " + small.tokens["admin"].encode() +
                                    b"\r\nTransfer-Encoding: chunked\r\n\r\n", wait=60,
                                    send_after=chunks)
            head, _, data = reply.partition(b"\r\n\r\n")
            self.assertTrue(head.startswith(b"HTTP/1.1 413"), reply[:200])
            err = json.loads(data)["error"]
            self.assertEqual((err["code"], err["detail"]), ("too_large", "body"))
            self.assertIn("65536", err["message"])
            self.assertEqual(small.get("/healthz").status, 200)
        finally:
            small.stop()
            os.unlink(conf.name)

    def test_urls_not_utf8_or_with_nul(self):
        # each of these used to reach PostgreSQL (500) or json_pack (abort:
        # the server died on GET /api/v1/runs/%ff, without a token)
        paths = ["/api/v1/runs/%ff", "/api/v1/jobs/%c0%af", "/api/v1/regressions/%ed%a0%80",
                 "/api/v1/bisects/%f5", "/api/v1/nope%ff", "/api/v1/runs/%00",
                 "/api/v1/series?testcase=%ff&metric=x", "/api/v1/series?testcase=a%00b&metric=x",
                 "/api/v1/series?testcase=a&metric=%fe", "/api/v1/series?te%ffst=1",
                 "/api/v1/series?testcase=a&metric=b&params=%7B%22a%22%3A%22%ff%22%7D",
                 "/api/v1/compare?base=%ff&head=%fe", "/api/v1/jobs?state=%ff",
                 "/api/v1/regressions?state=%ff", "/api/v1/metrics?prefix=%ff",
                 "/web%ff.html", "/%ff"]
        for p in paths:
            for admin in (False, True):
                status, data = raw_request("GET", p, admin=admin)
                self.assert_clean_4xx(status, data, p)
        status, data = raw_request("PUT", "/api/v1/metrics/a%00b", b'{"unit": "ms"}')
        self.assert_clean_4xx(status, data, "metric name with NUL")
        self.assertEqual(srv.psql("SELECT count(*) FROM metrics WHERE name = 'a'"), "0")
        self.assert_alive()

    def test_metric_put_wrong_types_and_unknown_fields(self):
        # a wrong type used to read the freed body while naming the field
        # (ASan: heap-use-after-free, the server died); a misspelt key
        # used to be a 200 that set nothing
        cases = [({"unit": -1}, "unit"), ({"unit": ["ms"]}, "unit"),
                 ({"is_monitor": "yes"}, "is_monitor"),
                 ({"higher_is_better": 1}, "higher_is_better"),
                 ({"unit": "ms", "higher_better": True}, "higher_better")]
        for body, field in cases:
            status, data = raw_request("PUT", "/api/v1/metrics/hostile.types",
                                       json.dumps(body).encode())
            self.assert_clean_4xx(status, data, json.dumps(body))
            err = json.loads(data)["error"]
            self.assertEqual((status, err["code"], err["detail"]), (400, "invalid_field", field))
        self.assertEqual(srv.psql("SELECT count(*) FROM metrics WHERE name = 'hostile.types'"), "0")
        self.assert_alive()

    def test_long_error_text_cut_inside_a_character(self):
        # an error message echoing 2-byte characters is cut to fit: the
        # reply must stay valid JSON (it used to abort the server)
        for n in range(100, 104):
            r = srv.get("/api/v1/nope/" + "%C3%A9" * n)
            self.assertEqual(r.status, 404, r)
            self.assertTrue(r.json()["error"]["message"].startswith("no such endpoint"))
        self.assert_alive()


class StoredByteIdentical(unittest.TestCase):
    def post(self, doc):
        return srv.post("/api/v1/results", doc, scope="submit")

    def test_free_text_fields_come_back_identical(self):
        fields = ["tree", "branch", "kconfig", "compiler", "commit_subject"]
        machine = ["hostname", "cpu_model", "tbox_group", "arch"]
        n = 0
        for value in STRINGS:
            for f in fields + ["machine." + m for m in machine]:
                doc = result_doc(sha("%x" % (n % 16)))
                if f.startswith("machine."):
                    doc["machine"] = dict(doc["machine"], **{f[8:]: value})
                else:
                    doc[f] = value
                n += 1
                r = self.post(doc)
                if r.status >= 400:
                    self.assertLess(r.status, 500, (f, value, r))
                    self.assertIn(r.json()["error"]["code"], ("invalid_field", "too_large"))
                    continue
                self.assertEqual(r.status, 201, (f, r))
                got = srv.get("/api/v1/runs/" + doc["run_id"]).json()
                key = f[8:] if f.startswith("machine.") else f
                if key in got:
                    self.assertEqual(got[key], value, (f, got[key]))
        self.assertEqual(srv.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'runs'"), "1")

    def test_params_metrics_and_extras(self):
        for value in STRINGS:
            doc = result_doc(sha("c"), params={"p" + str(len(value)): value, "n": -9.2e18,
                                                "b": True},
                             metrics={"hostile.m": [9.2e18, -1e-308, 0]},
                             note=value, nested={"a": [[[[value]]]]})
            r = self.post(doc)
            self.assertEqual(r.status, 201, r)
            got = srv.get("/api/v1/runs/" + doc["run_id"]).json()
            self.assertEqual(got["params"], doc["params"])
            self.assertEqual(got["metrics"], {"hostile.m": [9.2e18, -1e-308, 0]})
            self.assertEqual(got["extra"], {"note": value, "nested": {"a": [[[[value]]]]}})
            # the series API finds it by the same params
            s = srv.get("/api/v1/series?testcase=vm-scalability&metric=hostile.m&params=" +
                        urlquote(json.dumps(doc["params"])))
            self.assertEqual(s.status, 200, s)
            self.assertIn(doc["run_id"], s.body)

    def test_numbers_past_int64_refused_everywhere(self):
        # PostgreSQL's jsonb prints 1e300 with 301 digits, which jansson
        # cannot read back: params and extra fields used to vanish from
        # GET /runs, and a job with such params could not be leased
        big = [1e19, -1.5e308, 9.3e18]
        for v in big:
            for doc in (result_doc(sha("c"), params={"n": v}), result_doc(sha("c"), x={"y": [v]}),
                        result_doc(sha("c"), metrics={"m.x": [1, v]})):
                r = self.post(doc)
                self.assertEqual(r.status, 400, (v, r))
                self.assertIn("out of range", r.json()["error"]["message"])
            r = srv.post("/api/v1/jobs", {"commit": sha("a"), "kconfig": "host",
                                          "testcase": "small-allocs", "tbox_group": "b",
                                          "params": {"n": v}}, scope="submit")
            self.assertEqual(r.status, 400, (v, r))
        doc = result_doc(sha("c"), params={"n": 9.2e18, "m": 1e-300}, x={"y": -9.2e18})
        self.assertEqual(self.post(doc).status, 201)
        got = srv.get("/api/v1/runs/" + doc["run_id"]).json()
        self.assertEqual(got["params"], {"n": 9.2e18, "m": 1e-300})
        self.assertEqual(got["extra"], {"x": {"y": -9.2e18}})

    def test_one_mb_extra_field_identical(self):
        doc = result_doc(sha("d"), big=BIG)
        self.assertEqual(self.post(doc).status, 201)
        self.assertEqual(srv.get("/api/v1/runs/" + doc["run_id"]).json()["extra"]["big"], BIG)

    def test_one_mb_in_limited_fields_refused(self):
        for f in ("tree", "testcase", "commit_subject", "kconfig"):
            r = self.post(result_doc(sha("e"), **{f: BIG}))
            self.assertIn(r.status, (400, 413), (f, r))
        r = self.post(result_doc(sha("e"), metrics={BIG: [1]}))
        self.assertIn(r.status, (400, 413), r)
        r = self.post(result_doc(sha("e"), params={"k": BIG}))
        self.assertIn(r.status, (201, 400, 413), r)

    def test_metric_names(self):
        # metric names are printable ASCII without spaces: HTML and SQL
        # characters are allowed and must come back as sent
        for name in ("x.<script>alert(1)</script>", "x.'||pg_sleep(10)--", "x.&lt;b&gt;",
                     "x.\"quoted\"", "x.%s%n"):
            doc = result_doc(sha("f"), metrics={name: [2.5]})
            r = self.post(doc)
            self.assertEqual(r.status, 201, (name, r))
            self.assertEqual(srv.get("/api/v1/runs/" + doc["run_id"]).json()["metrics"],
                             {name: [2.5]})
            names = [m["name"] for m in srv.get("/api/v1/metrics").json()]
            self.assertIn(name, names)
        for name in ("x y", "x\r\nBcc: e@x.org", "x\u00e9", "", "x\t"):
            r = self.post(result_doc(sha("f"), metrics={name: [1]}))
            self.assertEqual(r.status, 400, (name, r))

    def test_jobs_and_workers(self):
        base = {"commit": sha("a"), "kconfig": "host", "testcase": "small-allocs",
                "tbox_group": "hostile-box", "params": {"nr_task": 1}}
        for value in STRINGS + [BIG]:
            for f in ("testcase", "tbox_group", "kconfig", "compiler", "tree"):
                r = srv.post("/api/v1/jobs", dict(base, **{f: value}), scope="submit")
                self.assertTrue(r.status in (201, 400, 404, 413), (f, value[:40], r))
            r = srv.post("/api/v1/jobs", dict(base, params={"p": value}), scope="submit")
            if r.status == 201:
                self.assertEqual(srv.get("/api/v1/jobs/%d" % r.json()["id"]).json()["params"],
                                 {"p": value})
            else:
                self.assertIn(r.status, (400, 413), r)
            reg = {"hostname": value, "arch": "x86_64", "tbox_group": "hostile-box",
                   "nr_cpus": 1, "memory_mb": 1, "cpu_model": value,
                   "capabilities": ["host", value], "fingerprint": {"k": value}}
            r = srv.post("/api/v1/workers/register", reg, scope="worker")
            self.assertTrue(r.status in (200, 201, 400, 413), (value[:40], r))
        self.assertEqual(srv.get("/healthz").status, 200)

    def test_trees(self):
        for name, url in ((HTML, "https://example.org/x.git"), ("ok-name", "--upload-pack=x"),
                          ("ok2", "-c core.sshCommand=x"), (SQL, "https://example.org/y.git")):
            r = srv.post("/api/v1/trees", {"name": name, "url": url, "branches": ["master"]},
                         scope="admin")
            self.assertEqual(r.status, 400, (name, url, r))
        r = srv.post("/api/v1/trees", {"name": "t1", "url": "https://example.org/z.git",
                                       "branches": ["--all", "master"]}, scope="admin")
        self.assertEqual(r.status, 400, r)


def urlquote(s):
    from urllib.parse import quote
    return quote(s, safe="")


if __name__ == "__main__":
    unittest.main()
