"""The results API on one server: health, reconnect, ingest and idempotency,
bad input, auth, runs, series, compare, the CLI, shutdown."""
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server, raw_exchange, result_doc, sha  # noqa: E402


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


def count_runs():
    return int(srv.psql("SELECT count(*) FROM runs"))


class Health(unittest.TestCase):
    def test_healthz(self):
        r = srv.get("/healthz")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.json(), {"status": "ok", "database": "ok", "replica": "off"})

    def test_lists_from_postgresql_are_compact_like_every_reply(self):
        # json_build_object writes {"id" : 1, ...} and json_agg newlines between
        # elements; the server writes them again like its other replies
        srv.post("/api/v1/results", result_doc(sha("7"), testcase="compact"), scope="submit")
        for path in ("/api/v1/testcases", "/api/v1/machines", "/api/v1/metrics"):
            r = srv.get(path)
            self.assertEqual(r.status, 200, r)
            self.assertTrue(r.body.endswith("\n") and "\n" not in r.body[:-1], (path, r.body[:200]))
            self.assertNotIn('" : ', r.body, path)
            self.assertEqual(r.body[:-1], json.dumps(r.json(), separators=(",", ":"),
                                                     ensure_ascii=False), path)

    def test_prometheus(self):
        r = srv.get("/metrics")
        self.assertEqual(r.status, 200)
        self.assertIn('regtrack_http_requests_total{class="2xx"}', r.body)

    def test_unknown_endpoint_is_json_404(self):
        r = srv.get("/api/v1/nope")
        self.assertEqual(r.status, 404)
        self.assertEqual(r.json()["error"]["code"], "not_found")


class Reconnect(unittest.TestCase):
    """The server's pooled connections after their backends ended (what a
    PostgreSQL restart does to them): every request still answers."""

    def test_requests_after_backends_were_terminated(self):
        from concurrent.futures import ThreadPoolExecutor
        s = Server()
        try:
            def burst(tag, n=32):
                docs = [result_doc(sha("e"), testcase="reconnect",
                                   metrics={"reconnect.x": [float(i)]}) for i in range(n)]
                with ThreadPoolExecutor(8) as ex:
                    posts = list(ex.map(lambda d: s.post("/api/v1/results", d, scope="submit"),
                                        docs))
                    gets = list(ex.map(lambda _: s.get("/api/v1/testcases"), range(n)))
                return [(tag, r.status) for r in posts + gets + [s.get("/healthz")]]

            self.assertEqual([x for x in burst("warm") if x[1] not in (200, 201)], [])
            n = int(s.psql("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                           "current_database() AND pid <> pg_backend_pid()"))
            self.assertGreaterEqual(n, 2)
            s.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                   "current_database() AND pid <> pg_backend_pid()")
            self.assertEqual([x for x in burst("after") if x[1] not in (200, 201)], [])
            self.assertEqual(s.psql("SELECT count(*) FROM runs"), "64")
        finally:
            s.stop()


class Ingest(unittest.TestCase):
    def test_store_and_read_back_exact_values(self):
        doc = result_doc(sha("1"), metrics={"vm-scalability.throughput": [12345678.5, 12000000],
                                            "perf-stat.ps.cycles": [1e9]},
                         kernel_release="6.1.0-test")
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json(), {"run_id": doc["run_id"], "created": True,
                                    "metrics": 2, "values": 3, "values_kept": "raw"})
        got = srv.get("/api/v1/runs/" + doc["run_id"]).json()
        self.assertEqual(got["metrics"], {"vm-scalability.throughput": [12345678.5, 12000000],
                                          "perf-stat.ps.cycles": [1e9]})
        self.assertEqual(got["commit"], sha("1"))
        self.assertEqual(got["params"], {"test": "small-allocs", "nr_task": "100%"})
        self.assertEqual(got["tbox_group"], "vm-2p")
        self.assertEqual(got["extra"], {"kernel_release": "6.1.0-test"})
        # the rows in the tables
        self.assertEqual(srv.psql(
            "SELECT array_to_string(v.vals, ',') FROM run_values v JOIN metrics m ON m.id = v.metric_id "
            "JOIN runs r ON r.id = v.run_id WHERE r.run_id = '%s' AND m.name = "
            "'vm-scalability.throughput'" % doc["run_id"]), "12345678.5,12000000")
        self.assertEqual(srv.psql("SELECT higher_is_better FROM metrics WHERE name = "
                                  "'vm-scalability.throughput'"), "t")

    def test_same_run_id_twice_is_stored_once(self):
        doc = result_doc(sha("2"))
        before = count_runs()
        self.assertEqual(srv.post("/api/v1/results", doc, scope="submit").status, 201)
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json(), {"run_id": doc["run_id"], "created": False,
                                    "metrics": 1, "values": 1, "values_kept": "raw"})
        self.assertEqual(count_runs(), before + 1)
        # same id, different content: 409 and nothing changes
        doc2 = dict(doc, metrics={"vm-scalability.throughput": [2.0]})
        r = srv.post("/api/v1/results", doc2, scope="submit")
        self.assertEqual(r.status, 409, r)
        self.assertEqual(r.json()["error"]["detail"], "run_id")
        self.assertEqual(count_runs(), before + 1)
        got = srv.get("/api/v1/runs/" + doc["run_id"]).json()
        self.assertEqual(got["metrics"], {"vm-scalability.throughput": [1.0]})

    def test_same_numbers_written_differently_are_the_same_document(self):
        doc = result_doc(sha("8"), testcase="canon", metrics={"canon.x": [1, 2]})
        self.assertEqual(srv.post("/api/v1/results", doc, scope="submit").status, 201)
        # [1.0, 2.0] is the same JSON as [1, 2]; an upper-case run_id the same uuid
        for same in (dict(doc, metrics={"canon.x": [1.0, 2.0]}),
                     dict(doc, run_id=doc["run_id"].upper()),
                     dict(doc, duration_s=12.50)):
            r = srv.post("/api/v1/results", same, scope="submit")
            self.assertEqual(r.status, 200, (same, r))
            self.assertFalse(r.json()["created"])
        r = srv.post("/api/v1/results", dict(doc, metrics={"canon.x": [1, 3]}), scope="submit")
        self.assertEqual(r.status, 409, r)

    def test_run_stored_with_the_earlier_hash_still_matches(self):
        import hashlib
        doc = result_doc(sha("9"), testcase="canon2", metrics={"canon.y": [3, 4]})
        self.assertEqual(srv.post("/api/v1/results", doc, scope="submit").status, 201)
        # what the server stored before numbers were normalised: the document as
        # parsed, keys sorted, compact (no control characters here: jansson's
        # escapes and Python's agree)
        legacy = hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":"),
                                           ensure_ascii=False).encode()).hexdigest()
        srv.psql("UPDATE runs SET doc_sha256 = decode('%s', 'hex') WHERE run_id = '%s'"
                 % (legacy, doc["run_id"]))
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 200, r)
        r = srv.post("/api/v1/results", dict(doc, metrics={"canon.y": [3, 5]}), scope="submit")
        self.assertEqual(r.status, 409, r)

    def test_recent_runs_newest_first(self):
        docs = [result_doc(sha("8"), testcase="recent-%d" % i, metrics={"recent.x": [float(i)]},
                           commit_subject="mm: recent %d" % i) for i in range(3)]
        for d in docs:
            self.assertEqual(srv.post("/api/v1/results", d, scope="submit").status, 201)
        r = srv.get("/api/v1/runs?limit=2")
        self.assertEqual(r.status, 200, r)
        got = r.json()
        self.assertEqual([x["run_id"] for x in got], [docs[2]["run_id"], docs[1]["run_id"]])
        self.assertEqual((got[0]["testcase"], got[0]["commit"], got[0]["subject"], got[0]["metrics"]),
                         ("recent-2", sha("8"), "mm: recent 0", 1))
        self.assertEqual(srv.get("/api/v1/runs?limit=0").json()["error"]["detail"], "limit")
        self.assertEqual(srv.get("/api/v1/runs?state=x").json()["error"]["detail"], "state")

    def test_unknown_testcase_is_created(self):
        doc = result_doc(sha("3"), testcase="brand-new-case", metrics={"brand-new-case.x": [1]})
        self.assertEqual(srv.post("/api/v1/results", doc, scope="submit").status, 201)
        names = [t["name"] for t in srv.get("/api/v1/testcases").json()]
        self.assertIn("brand-new-case", names)

    def test_large_document_5000_metrics(self):
        metrics = {"bench.m%04d" % i: [float(i), i + 0.5, i + 0.25] for i in range(5000)}
        doc = result_doc(sha("4"), metrics=metrics)
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["values"], 15000)
        got = srv.get("/api/v1/runs/" + doc["run_id"]).json()
        self.assertEqual(got["metrics"]["bench.m4999"], [4999.0, 4999.5, 4999.25])


class BadInput(unittest.TestCase):
    def reject(self, raw, status, code, detail=None, scope="submit"):
        before = count_runs()
        if isinstance(raw, dict):
            raw = json.dumps(raw).encode()
        r = srv.request("POST", "/api/v1/results", raw=raw, scope=scope)
        self.assertEqual(r.status, status, r)
        err = r.json()["error"]
        self.assertEqual(err["code"], code, r)
        if detail is not None:
            self.assertEqual(err["detail"], detail, r)
        self.assertTrue(err["message"])
        self.assertEqual(count_runs(), before, "a rejected document stored something")
        return err

    def test_malformed_json(self):
        self.reject(b'{"run_id": ', 400, "invalid_json")
        # \u0000 in a string: what the body holds, not the parser's flag
        doc = json.dumps(result_doc(sha("5"))).replace('"tbox_group": "', '"tbox_group": "\\u0000')
        self.assertIn("\\u0000", doc)
        err = self.reject(doc.encode(), 400, "invalid_json")
        self.assertIn("a string holds \\u0000 (a NUL character), which no field takes",
                      err["message"])
        self.assertNotIn("JSON_ALLOW_NUL", err["message"])

    def test_nan_and_infinity_literals(self):
        doc = json.dumps(result_doc(sha("5"))).replace("[1.0]", "[NaN]").encode()
        self.reject(doc, 400, "invalid_json")
        doc = json.dumps(result_doc(sha("5"))).replace("[1.0]", "[Infinity]").encode()
        self.reject(doc, 400, "invalid_json")
        # valid JSON syntax, but past what a double holds: named by its path
        doc = json.dumps(result_doc(sha("5"))).replace("[1.0]", "[1e999]").encode()
        self.reject(doc, 400, "invalid_field", "metrics.vm-scalability.throughput[0]")

    def test_strings_as_values(self):
        self.reject(result_doc(sha("5"), metrics={"a.b": [1, "2"]}), 400, "invalid_field",
                    "metrics.a.b[1]")

    def test_scalar_instead_of_array(self):
        self.reject(result_doc(sha("5"), metrics={"a.b": 3}), 400, "invalid_field", "metrics.a.b")

    def test_wrong_types(self):
        self.reject(result_doc(sha("5"), metrics="x"), 400, "invalid_field", "metrics")
        self.reject(result_doc(sha("5"), testcase=7), 400, "invalid_field", "testcase")
        self.reject(result_doc(sha("5"), duration_s="long"), 400, "invalid_field", "duration_s")
        self.reject(result_doc(sha("5"), machine={"nr_cpus": "two"}), 400, "invalid_field",
                    "machine.nr_cpus")
        self.reject(result_doc(sha("5"), params={"nested": {"a": 1}}), 400, "invalid_field",
                    "params.nested")
        self.reject(result_doc(sha("5"), job_id=-1), 400, "invalid_field", "job_id")
        self.reject(result_doc(sha("5"), started_at="yesterday"), 400, "invalid_field",
                    "started_at")
        self.reject(b"[1, 2]", 400, "invalid_field")

    def test_missing_required_fields(self):
        for field in ("run_id", "commit", "testcase", "metrics"):
            doc = result_doc(sha("5"))
            del doc[field]
            self.reject(doc, 400, "missing_field", field)

    def test_commit_not_40_hex(self):
        self.reject(result_doc("abc123"), 400, "invalid_field", "commit")
        self.reject(result_doc("g" * 40), 400, "invalid_field", "commit")
        self.reject(result_doc("A" * 40), 400, "invalid_field", "commit")

    def test_bad_run_id(self):
        self.reject(result_doc(sha("5"), run_id="not-a-uuid"), 400, "invalid_field", "run_id")

    def test_empty_metrics_object(self):
        self.reject(result_doc(sha("5"), metrics={}), 400, "invalid_field", "metrics")
        self.reject(result_doc(sha("5"), metrics={"a.b": []}), 400, "invalid_field", "metrics.a.b")

    def test_20mb_body_is_413(self):
        # refused on its Content-Length before a byte of the body is read
        #: the client sends the headers only and reads the reply
        before = count_runs()
        _, reply = raw_exchange(srv, b"POST /api/v1/results HTTP/1.1\r\nHost: t\r\n"
                                b"Authorization: Bearer " + srv.tokens["submit"].encode() +
                                b"\r\nContent-Length: %d\r\n\r\n" % ((20 << 20) + 14), wait=10)
        head, _, body = reply.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 413"), reply[:200])
        err = json.loads(body)["error"]
        self.assertEqual((err["code"], err["detail"]), ("too_large", "body"))
        self.assertIn("16777216", err["message"])
        self.assertEqual(count_runs(), before)

    def test_duplicate_keys(self):
        self.reject(b'{"commit": "a", "commit": "b"}', 400, "invalid_json")


class Auth(unittest.TestCase):
    def test_missing_token_is_401(self):
        r = srv.post("/api/v1/results", result_doc(sha("6")))
        self.assertEqual(r.status, 401)
        self.assertEqual(r.json()["error"]["code"], "unauthorized")

    def test_malformed_and_unknown_tokens_are_401(self):
        for tok in ("garbage", "rt_1_short", "rt_999999_" + "A" * 43):
            r = srv.post("/api/v1/results", result_doc(sha("6")), token=tok)
            self.assertEqual(r.status, 401, tok)

    def test_scheme_is_case_insensitive(self):
        # RFC 7235 section 2.1: "bearer" and "BEARER" are the same scheme
        for scheme in ("bearer", "BEARER", "BeArEr"):
            r = srv.post("/api/v1/results", result_doc(sha("6")),
                         headers={"Authorization": "%s %s" % (scheme, srv.tokens["submit"])})
            self.assertIn(r.status, (200, 201), (scheme, r))
        r = srv.post("/api/v1/results", result_doc(sha("6")),
                     headers={"Authorization": "Bearers " + srv.tokens["submit"]})
        self.assertEqual(r.status, 401, r)

    def test_read_token_writing_is_403(self):
        r = srv.post("/api/v1/results", result_doc(sha("6")), scope="read")
        self.assertEqual(r.status, 403)
        self.assertEqual(r.json()["error"]["code"], "forbidden")

    def test_worker_token_may_submit(self):
        r = srv.post("/api/v1/results", result_doc(sha("6")), scope="worker")
        self.assertEqual(r.status, 201, r)

    def test_revoked_token_is_401(self):
        name = "revoke-me-" + uuid.uuid4().hex[:6]
        tok = srv.token("submit", name)
        self.assertEqual(srv.post("/api/v1/results", result_doc(sha("7")), token=tok).status, 201)
        srv.cli("token", "revoke", name)
        r = srv.post("/api/v1/results", result_doc(sha("7")), token=tok)
        self.assertEqual(r.status, 401)
        self.assertIn("revoked", r.json()["error"]["message"])

    def test_tokens_stored_hashed(self):
        tok = srv.token("read", "hash-check")
        secret = tok.split("_", 2)[2]
        self.assertEqual(srv.psql(
            "SELECT count(*) FROM api_tokens WHERE name = 'hash-check' AND "
            "secret_sha256 = sha256('%s'::bytea)" % secret), "1")
        self.assertEqual(srv.psql(
            "SELECT count(*) FROM api_tokens WHERE encode(secret_sha256, 'escape') LIKE '%%%s%%'"
            % secret[:10]), "0")


class Compare(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base, cls.head = sha("c"), sha("d")
        for v in (100, 102, 104):
            srv.post("/api/v1/results", result_doc(cls.base, testcase="cmp", params={},
                     metrics={"cmp.ops": [v], "perf-profile.children.cycles-pp.do_mmap": [10.0]}),
                     scope="submit")
        for v in (90, 91, 95):
            srv.post("/api/v1/results", result_doc(cls.head, testcase="cmp", params={},
                     metrics={"cmp.ops": [v], "perf-profile.children.cycles-pp.do_mmap": [12.5]}),
                     scope="submit")

    def test_three_vs_three_exact_values(self):
        r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=cmp" % (self.base, self.head))
        self.assertEqual(r.status, 200, r)
        rows = {row["metric"]: row for row in r.json()["rows"]}
        ops = rows["cmp.ops"]
        self.assertEqual(ops["n"], [3, 3])
        self.assertAlmostEqual(ops["mean"][0], 102.0, places=12)
        self.assertAlmostEqual(ops["mean"][1], 92.0, places=12)
        # population stddev / mean, as LKP prints it
        self.assertAlmostEqual(ops["stddev_pct"][0], 100 * math.sqrt(8 / 3) / 102, places=9)
        self.assertAlmostEqual(ops["stddev_pct"][1], 100 * math.sqrt(14 / 3) / 92, places=9)
        self.assertAlmostEqual(ops["change_pct"], 100 * (92 - 102) / 102, places=9)
        # 3 vs 3 cannot reach p <= 0.01 with Mann-Whitney: exact p = 2/20
        self.assertAlmostEqual(ops["p_value"], 0.1, places=12)
        self.assertEqual(ops["verdict"], "need-more-runs")
        self.assertIn("q_value", ops)

    def test_prefix_shas_and_metric_filter(self):
        r = srv.get("/api/v1/compare?base=%s&head=%s&metric=perf-profile." % (self.base[:7],
                                                                             self.head[:12]))
        self.assertEqual(r.status, 200, r)
        self.assertEqual([x["metric"] for x in r.json()["rows"]],
                         ["perf-profile.children.cycles-pp.do_mmap"])

    def test_text_format_lkp_layout(self):
        r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=cmp&format=text" %
                    (self.base, self.head))
        self.assertEqual(r.status, 200, r)
        lines = r.body.splitlines()
        self.assertTrue(lines[0].startswith("====="))
        self.assertEqual(lines[1], "compiler/kconfig/tbox_group/testcase:")
        self.assertEqual(lines[2], "  gcc-12/x86_64-defconfig/vm-2p/cmp")
        self.assertIn("         %stddev     %change         %stddev", lines)
        # value(10) ±stddev(6) ' ' change(10) ' ' value(10) ±stddev(6) '  ' metric, as in
        # "    108849 ±  2%     +13.3%     123316        will-it-scale.per_process_ops"
        self.assertIn("     102.0            -9.8%      92.00 \u00b1  2%  cmp.ops", lines)
        # perf-profile rows show the absolute delta, not %change
        self.assertIn("     10.00             +2.5      12.50        "
                      "perf-profile.children.cycles-pp.do_mmap", lines)

    def test_text_names_the_measurement_mode_once(self):
        # icount runs named by a "measure" param (as the demo's) or by "mode" alone
        base, head = sha("ba"), sha("bb")
        for tc, extra in (("cmp-measure", {"params": {"measure": "icount", "nr_task": 1}}),
                          ("cmp-mode", {"mode": "icount", "params": {"nr_task": 1}})):
            for c, v in ((base, 10.0), (head, 12.0)):
                r = srv.post("/api/v1/results", result_doc(c, testcase=tc, metrics={"x.y": [v]},
                                                           **extra), scope="submit")
                self.assertIn(r.status, (200, 201), r)
            r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=%s&format=text" % (base, head, tc))
            self.assertEqual(r.status, 200, r)
            self.assertEqual(r.body.splitlines()[1],
                             "compiler/kconfig/measure/nr_task/tbox_group/testcase:", tc)

    def test_one_value_rows_across_setups(self):
        # every (setup, metric) row holds a single value (one run a side at most,
        # the head's metric not the base's): the merge must make exactly these rows
        base, head = sha("e1"), sha("e2")
        for s in ("1", "2", "3"):
            r = srv.post("/api/v1/results", result_doc(base, testcase="cmp-one", params={"s": s},
                         metrics={"one.a": [1.0], "one.b": [2.0]}), scope="submit")
            self.assertEqual(r.status, 201, r)
        r = srv.post("/api/v1/results", result_doc(head, testcase="cmp-one", params={"s": "1"},
                     metrics={"one.c": [3.0]}), scope="submit")
        self.assertEqual(r.status, 201, r)
        for _ in range(3):  # the same reply each time, whatever the heap held before
            r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=cmp-one" % (base, head))
            self.assertEqual(r.status, 200, r)
            setups = {x["id"]: x["params"]["s"] for x in r.json()["setups"]}
            got = sorted((setups[x["setup_id"]], x["metric"], tuple(x["n"]))
                         for x in r.json()["rows"])
            self.assertEqual(got, [("1", "one.a", (1, 0)), ("1", "one.b", (1, 0)),
                                   ("1", "one.c", (0, 1)), ("2", "one.a", (1, 0)),
                                   ("2", "one.b", (1, 0)), ("3", "one.a", (1, 0)),
                                   ("3", "one.b", (1, 0))])

    def test_bad_arguments(self):
        r = srv.get("/api/v1/compare?base=zz&head=%s" % self.head)
        self.assertEqual(r.status, 400)
        self.assertEqual(r.json()["error"]["detail"], "base")
        r = srv.get("/api/v1/compare?head=%s" % self.head)
        self.assertEqual(r.json()["error"]["code"], "missing_field")
        r = srv.get("/api/v1/compare?base=%s&head=%s" % (sha("9"), self.head))
        self.assertEqual(r.status, 404)
        r = srv.get("/api/v1/compare?base=%s&head=%s&params=notjson" % (self.base, self.head))
        self.assertEqual(r.json()["error"]["detail"], "params")


class Series(unittest.TestCase):
    def test_order_by_commit_time(self):
        commits = [(sha("e"), "2026-01-03T00:00:00Z", 3.0), (sha("f"), "2026-01-01T00:00:00Z", 1.0),
                   (sha("0"), "2026-01-02T00:00:00Z", 2.0)]
        for c, t, v in commits:
            for rep in range(2):
                srv.post("/api/v1/results", result_doc(c, testcase="ser", commit_time=t,
                         commit_subject="mm: change %s" % c[:4],
                         metrics={"ser.latency_ms": [v + rep, v + rep + 1]}), scope="submit")
        r = srv.get("/api/v1/series?testcase=ser&metric=ser.latency_ms")
        self.assertEqual(r.status, 200, r)
        s = r.json()["series"]
        self.assertEqual(len(s), 1)
        self.assertEqual([c["sha"] for c in s[0]["commits"]], [sha("f"), sha("0"), sha("e")])
        self.assertEqual(s[0]["commits"][0]["subject"], "mm: change ffff")
        self.assertEqual(s[0]["points"]["commit"], [0, 0, 1, 1, 2, 2])
        self.assertEqual(s[0]["points"]["value"], [1.5, 2.5, 2.5, 3.5, 3.5, 4.5])
        self.assertEqual(s[0]["setup"]["testcase"], "ser")

    def test_requires_testcase_and_metric(self):
        r = srv.get("/api/v1/series?metric=x")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "testcase"))


class Cli(unittest.TestCase):
    def run_cli(self, *args, token="submit", stdin=None):
        env = dict(os.environ, REGTRACK_SERVER=srv.url, REGTRACK_TOKEN=srv.tokens[token])
        return subprocess.run([os.path.join(BIN, "regtrack")] + list(args), env=env,
                              input=stdin, capture_output=True, text=True, timeout=60)

    def test_submit_files_and_compare(self):
        base, head = sha("a"), sha("b")
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, (c, v) in enumerate([(base, 10.0), (base, 10.2), (head, 12.0), (head, 12.1)]):
                p = os.path.join(d, "r%d.json" % i)
                with open(p, "w") as f:
                    json.dump(result_doc(c, testcase="clitc", metrics={"clitc.lat_ms": [v]}), f)
                paths.append(p)
            r = self.run_cli("submit", *paths)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.count(": stored"), 4)
            r = self.run_cli("submit", paths[0])
            self.assertIn("already stored", r.stdout)
        r = self.run_cli("compare", "--base", base, "--head", head, "--testcase", "clitc")
        self.assertEqual(r.returncode, 0, r.stderr)
        row = json.loads(r.stdout)["rows"][0]
        self.assertEqual((row["metric"], row["n"]), ("clitc.lat_ms", [2, 2]))
        self.assertAlmostEqual(row["mean"][0], 10.1)
        r = self.run_cli("compare", "--base", base, "--head", head, "--testcase", "clitc", "--text")
        self.assertIn("clitc.lat_ms", r.stdout)
        self.assertIn("%stddev     %change", r.stdout)

    def test_compare_gate_with_and_without_text(self):
        base, head = sha("c"), sha("d")
        docs = [result_doc(c, testcase="gatetc", metrics={"will-it-scale.per_process_ops": [v]})
                for c, vs in ((base, range(1000, 1006)), (head, range(900, 906))) for v in vs]
        for d in docs:
            r = srv.post("/api/v1/results", d, scope="submit")
            self.assertIn(r.status, (200, 201), r)
        args = ("compare", "--base", base, "--head", head, "--testcase", "gatetc")
        r = self.run_cli(*args, "--gate")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(json.loads(r.stdout)["rows"][0]["change"], "regression")
        # the text for the log, the verdicts from the JSON: still exit 1
        r = self.run_cli(*args, "--gate", "--text")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("will-it-scale.per_process_ops", r.stdout)
        self.assertIn("%stddev     %change", r.stdout)
        self.assertNotIn('"rows"', r.stdout)
        r = self.run_cli(*args, "--text")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_submit_rejection_exit_code_and_message(self):
        r = self.run_cli("submit", "-", stdin='{"run_id": "x"}')
        self.assertEqual(r.returncode, 2)
        self.assertIn("invalid_field", r.stderr)
        self.assertIn("run_id", r.stderr)
        r = self.run_cli("submit", "-", token="read",
                         stdin=json.dumps(result_doc(sha("a"), testcase="clitc")))
        self.assertEqual(r.returncode, 2)
        self.assertIn("403 forbidden", r.stderr)

    def test_unreachable_server(self):
        env = dict(os.environ, REGTRACK_SERVER="http://127.0.0.1:9")
        r = subprocess.run([os.path.join(BIN, "regtrack"), "compare", "--base", "a" * 40,
                            "--head", "b" * 40], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("failed", r.stderr)


class Shutdown(unittest.TestCase):
    def test_sigterm_exits_cleanly_and_restarts(self):
        other = Server()
        self.assertEqual(other.get("/healthz").status, 200)
        self.assertEqual(other.stop(signal.SIGTERM), 0)


if __name__ == "__main__":
    unittest.main()
