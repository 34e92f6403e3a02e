"""HEAD is GET without the body (RFC 9110 section 9.3.2): every GET route,
and the dashboard's files, answer a HEAD with what the GET gets (status,
Content-Type, Content-Length) and no body; the token and the query
arguments are checked as for the GET; a route without a GET still refuses
HEAD with 405.
"""
import os
import socket
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc, sha  # noqa: E402
from test_auth_matrix import concrete, route_table  # noqa: E402

srv = None


def setUpModule():
    global srv
    srv = Server()
    r = srv.post("/api/v1/results", result_doc(sha("d1")), scope="submit")
    assert r.status == 201, r


def tearDownModule():
    srv.stop()


def raw(method, path, token=None):
    """(status, headers with lower-case names, body bytes) of one request on
    its own connection, read to its close: a body sent after a HEAD's
    headers shows here, where an HTTP client would drop it."""
    host, port = srv.addr.rsplit(":", 1)
    req = "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n" % (method, path, srv.addr)
    if token:
        req += "Authorization: Bearer %s\r\n" % token
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall((req + "\r\n").encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return int(lines[0].split()[1]), headers, body


class Head(unittest.TestCase):

    def same_as_get(self, path, token=None, same_length=True):
        """same_length=False: the reply tells the request apart (counters,
        a message that names the method); its length is only checked set"""
        gs, gh, gbody = raw("GET", path, token)
        hs, hh, hbody = raw("HEAD", path, token)
        self.assertEqual(hs, gs, (path, hh))
        self.assertEqual(hh.get("content-type"), gh.get("content-type"), path)
        self.assertEqual(hbody, b"", path)
        # GET's length, sent by the GET as Content-Length (not chunked)
        self.assertEqual(gh.get("content-length"), str(len(gbody)), path)
        if same_length:
            self.assertEqual(hh.get("content-length"), str(len(gbody)), path)
        else:
            self.assertGreater(int(hh.get("content-length")), 0, path)
        return gs, gbody

    def test_api_get_routes(self):
        read = srv.tokens["read"]
        status, body = self.same_as_get("/healthz")
        self.assertEqual(status, 200)
        status, body = self.same_as_get("/api/v1/openapi.json")
        self.assertEqual(status, 200)
        self.assertGreater(len(body), 10000)
        status, body = self.same_as_get("/api/v1/runs", read)
        self.assertEqual(status, 200)
        self.assertIn(sha("d1").encode(), body)
        status, _ = self.same_as_get("/api/v1/regressions?state=new", read)
        self.assertEqual(status, 200)
        status, _ = self.same_as_get("/metrics", same_length=False)
        self.assertEqual(status, 200)

    def test_dashboard_file(self):
        status, body = self.same_as_get("/")
        self.assertEqual(status, 200)
        self.assertIn(b"<html", body.lower())

    def test_refusals_as_for_get(self):
        # an unknown query argument: 400 as the GET, its body left out
        status, _ = self.same_as_get("/api/v1/runs?nope=1", srv.tokens["read"])
        self.assertEqual(status, 400)
        # an admin-only GET without a token: 401; with a read token: 403
        status, _ = self.same_as_get("/api/v1/outbox")
        self.assertEqual(status, 401)
        status, _ = self.same_as_get("/api/v1/outbox", srv.tokens["read"],
                                     same_length=False)
        self.assertEqual(status, 403)
        status, _ = self.same_as_get("/api/v1/regressions/999999", srv.tokens["read"])
        self.assertEqual(status, 404)
        status, _ = self.same_as_get("/api/v1/nothing")
        self.assertEqual(status, 404)

    def test_every_get_route(self):
        # each GET of the route table: HEAD gets its status, with a token and without
        gets = [p for m, p in route_table() if m == "GET"]
        self.assertGreater(len(gets), 30)
        for pattern in gets:
            for token in (srv.tokens["admin"], None):
                gs, gh, _ = raw("GET", concrete(pattern), token)
                hs, hh, hbody = raw("HEAD", concrete(pattern), token)
                self.assertEqual((hs, hh.get("content-type"), hbody),
                                 (gs, gh.get("content-type"), b""), (pattern, token))

    def test_no_get_no_head(self):
        status, headers, body = raw("HEAD", "/api/v1/results", srv.tokens["submit"])
        self.assertEqual(status, 405)
        self.assertEqual(body, b"")

    def test_through_the_client(self):
        r = srv.request("HEAD", "/api/v1/runs", scope="read")
        self.assertEqual((r.status, r.body), (200, ""))
        self.assertEqual(r.headers.get("Content-Type"), "application/json")


if __name__ == "__main__":
    unittest.main()
