"""The OpenAPI 3 document (docs/openapi.json, served at
/api/v1/openapi.json): every route of server/api/routes.c is in it, and
replies validate against it (Debian's python3-jsonschema): this test's own
requests, and every reply the integration tests that ran before it in the
same run recorded ($REGTRACK_OPENAPI_LOG, set by run.sh).
"""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TOP, Server, result_doc, sha  # noqa: E402

import jsonschema  # noqa: E402  (python3-jsonschema, deploy/install-deps)

with open(os.path.join(TOP, "docs", "openapi.json")) as f:
    DOC = json.load(f)


def routes():
    with open(os.path.join(TOP, "server", "api", "routes.c")) as f:
        text = f.read()
    return re.findall(r'\{\s*"([A-Z]+)",\s*"([^"]+)",\s*\w+,\s*AUTH_\w+'
                      r'(?:\s*\|\s*AUTH_\w+)?(?:,\s*\w+)*\s*\}', text)


def template_re(path):
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")


TEMPLATES = [(template_re(p), p) for p in DOC["paths"]]


def operation(method, path):
    for rx, p in TEMPLATES:
        if rx.match(path) and method.lower() in DOC["paths"][p]:
            return DOC["paths"][p][method.lower()]
    return None


def check(method, path, status, ctype, body):
    """None when the reply fits the document, else what is wrong."""
    if method == "HEAD":
        # the GET's status and content type, without its body (document's info)
        if body:
            return "HEAD %s %d: a body" % (path, status)
        method, body = "GET", None
    op = operation(method, path)
    if op is None:
        if not path.startswith("/api/") or status in (404, 405):
            return None  # dashboard files, unknown endpoints: the error shape below
        return "%s %s is not in the document" % (method, path)
    rs = op["responses"]
    r = rs.get(str(status)) or rs.get("%dXX" % (status // 100))
    if r is None:
        if status < 400:
            return "%s %s: status %d is not documented" % (method, path, status)
        r = rs["default"]
    content = r.get("content")
    if status == 204 and not (body or "").strip():
        return None
    if not content:
        return None if not (body or "").strip() else (
            "%s %s %d: a body where none is documented" % (method, path, status))
    kind = ctype.split(";")[0].strip()
    if kind not in content:
        return "%s %s %d: content type %s, documented %s" % (method, path, status, kind,
                                                               list(content))
    if kind != "application/json" or body is None:
        return None
    schema = content[kind]["schema"]
    try:
        value = json.loads(body)
    except ValueError as e:
        return "%s %s %d: not JSON: %s" % (method, path, status, e)
    v = jsonschema.Draft7Validator(schema, resolver=jsonschema.RefResolver("", DOC))
    err = next(iter(v.iter_errors(value)), None)
    return None if err is None else "%s %s %d: %s" % (method, path, status, err.message[:200])


class Document(unittest.TestCase):
    def test_every_route_documented(self):
        missing = []
        for method, pattern in routes():
            path = pattern.replace("{}", "x")
            if operation(method, path) is None:
                missing.append("%s %s" % (method, pattern))
        self.assertEqual(missing, [])
        self.assertGreater(len(routes()), 30)

    def test_document_is_openapi_3(self):
        self.assertTrue(DOC["openapi"].startswith("3."))
        for p, ops in DOC["paths"].items():
            for m, op in ops.items():
                if m == "parameters":
                    continue
                self.assertIn("default", op["responses"], (m, p))


class Replies(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def fits(self, method, path, **kw):
        r = self.srv.request(method, path, **kw)
        problem = check(method, path.split("?", 1)[0], r.status,
                        r.headers.get("Content-Type", ""), r.body)
        self.assertIsNone(problem, r)
        return r

    def test_served_document_is_the_file(self):
        r = self.fits("GET", "/api/v1/openapi.json")
        self.assertEqual(r.json(), DOC)

    def test_own_requests(self):
        srv = self.srv
        self.fits("GET", "/healthz")
        doc = result_doc(sha("1"))
        self.assertEqual(self.fits("POST", "/api/v1/results", body=doc, scope="submit").status, 201)
        self.fits("POST", "/api/v1/results", body=doc, scope="submit")
        self.fits("POST", "/api/v1/results", body={"x": 1}, scope="submit")
        self.fits("POST", "/api/v1/results", body=doc)
        self.fits("GET", "/api/v1/runs/" + doc["run_id"])
        self.fits("GET", "/api/v1/runs/nope")
        self.fits("GET", "/api/v1/runs")
        self.fits("GET", "/api/v1/machines")
        self.fits("GET", "/api/v1/testcases")
        self.fits("GET", "/api/v1/trees")
        self.fits("GET", "/api/v1/regressions")
        self.fits("GET", "/api/v1/quality")
        self.fits("GET", "/api/v1/quality?days=0")
        self.fits("GET", "/api/v1/bisects")
        self.fits("GET", "/api/v1/jobs")
        r = self.fits("POST", "/api/v1/workers/register", scope="worker",
                      body={"hostname": "oa-1", "arch": "x86_64", "capabilities": ["host"]})
        m = r.json()["machine_id"]
        r = self.fits("POST", "/api/v1/jobs", scope="submit",
                      body={"commit": sha("1"), "kconfig": "host", "testcase": "small-allocs",
                            "tbox_group": "oa-1", "params": {"n": 1}})
        self.fits("POST", "/api/v1/jobs/lease", scope="worker", body={"machine_id": m})
        self.fits("POST", "/api/v1/jobs/lease", scope="worker", body={"machine_id": m})
        self.fits("GET", "/api/v1/jobs/%d" % r.json()["id"])
        self.fits("GET", "/api/v1/nothing")
        self.fits("GET", "/metrics")


def check_recorded(log):
    """Every reply the tier's tests recorded (harness.py, JSON lines) against
    docs/openapi.json: run by run.sh after the tests, so that every test's
    replies are in; no recorded reply at all is a failure, not a pass."""
    problems, n = [], 0
    with open(log) as f:
        for line in f:
            rec = json.loads(line)
            n += 1
            p = check(rec["method"], rec["path"], rec["status"], rec["type"], rec["body"])
            if p and p not in problems:
                problems.append(p)
    print("%d recorded replies checked against docs/openapi.json, %d problems" % (n, len(problems)))
    for p in problems[:20]:
        print("  " + str(p))
    return n > 0 and not problems


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--replies":
        sys.exit(0 if check_recorded(sys.argv[2]) else 1)
    unittest.main()
