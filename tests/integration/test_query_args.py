"""Query arguments are what docs/openapi.json says each endpoint takes: an
unknown or misspelt one (`series?...&setup=24`) is a 400 naming it, not a
filter silently ignored that returns every series, and so is one given twice; every documented one
passes that gate; a caller without a token learns nothing (401 first); and
every argument a handler reads is in the document (else the gate would
refuse it).
"""
import json
import os
import re
import sys
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc, sha  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(TOP, "docs", "openapi.json")) as f:
    SPEC = json.load(f)

srv = None


def setUpModule():
    global srv
    srv = Server()
    r = srv.post("/api/v1/results", result_doc(sha("a1")), scope="submit")
    assert r.status == 201, r


def tearDownModule():
    srv.stop()


def query_names(path, method="get"):
    item = SPEC["paths"][path]
    names = []
    for p in item.get("parameters", []) + item[method].get("parameters", []):
        if p.get("in") == "query":
            names.append(p["name"])
    return names


def concrete(path):
    """the path with each {name} a value of the right shape"""
    return re.sub(r"\{sha256\}", "0" * 64, re.sub(r"\{(?!sha256)[a-z_]+\}", "1", path))


class UnknownArgument(unittest.TestCase):

    def test_series_setup_is_refused_not_ignored(self):
        r = srv.get("/api/v1/series?testcase=vm-scalability&metric=vm-scalability.throughput"
                    "&setup=24", scope="read")
        self.assertEqual(r.status, 400, r)
        err = r.json()["error"]
        self.assertEqual((err["code"], err["detail"]), ("invalid_field", "setup"))
        self.assertIn("unknown query argument 'setup'", err["message"])
        # the message lists what the endpoint takes, from the document
        self.assertIn("testcase, metric, params", err["message"])
        # without it, the same filter reads the series
        r = srv.get("/api/v1/series?testcase=vm-scalability&metric=vm-scalability.throughput",
                    scope="read")
        self.assertEqual(r.status, 200, r)

    def test_every_get_endpoint_refuses_an_unknown_argument(self):
        for path, item in SPEC["paths"].items():
            if "get" not in item:
                continue
            with self.subTest(path=path):
                r = srv.get(concrete(path) + "?no_such_arg=1", scope="admin")
                self.assertEqual(r.status, 400, r)
                err = r.json()["error"]
                self.assertEqual(err["detail"], "no_such_arg", r)
                self.assertIn("unknown query argument", err["message"])

    def test_an_argument_given_twice_is_refused(self):
        # rq_arg() reads the first value: the second was silently dropped
        r = srv.get("/api/v1/regressions?state=invalid&state=new", scope="read")
        self.assertEqual(r.status, 400, r)
        self.assertEqual(r.json()["error"]["detail"], "state")
        self.assertEqual(r.json()["error"]["message"],
                         "query argument 'state' is given more than once")

    def test_an_endpoint_without_arguments_says_so(self):
        r = srv.get("/api/v1/machines?limit=5", scope="read")
        self.assertEqual(r.status, 400, r)
        self.assertEqual(r.json()["error"]["message"],
                         "unknown query argument 'limit': this endpoint takes none")

    def test_documented_arguments_pass_the_gate(self):
        """a value may be refused for itself, never as an unknown argument"""
        checked = 0
        for path, item in SPEC["paths"].items():
            if "get" not in item:
                continue
            for name in query_names(path):
                with self.subTest(path=path, arg=name):
                    r = srv.get(concrete(path) + "?" + urllib.parse.urlencode({name: "1"}),
                                scope="admin")
                    self.assertNotIn("unknown query argument", r.body, r)
                    checked += 1
        self.assertGreater(checked, 50)

    def test_no_token_is_refused_before_the_arguments(self):
        r = srv.get("/api/v1/subscriptions?no_such_arg=1")
        self.assertEqual(r.status, 401, r)
        self.assertNotIn("no_such_arg", r.body)


class HandlersReadOnlyDocumentedArguments(unittest.TestCase):

    def test_every_argument_read_is_documented(self):
        documented = set()
        for path, item in SPEC["paths"].items():
            for m, op in item.items():
                if m != "parameters":
                    documented.update(query_names(path, m))
        read = set()
        api = os.path.join(TOP, "server", "api")
        for name in os.listdir(api):
            if name.endswith(".c"):
                with open(os.path.join(api, name)) as f:
                    read.update(re.findall(r'rq_arg\(rq, "([a-z_]+)"\)', f.read()))
        self.assertGreater(len(read), 20)
        self.assertEqual(read - documented, set())


if __name__ == "__main__":
    unittest.main()
