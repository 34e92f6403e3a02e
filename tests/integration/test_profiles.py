"""Profiles, server side: result documents with monitors and a
profile posted over HTTP (stored with the run in one transaction, refused
whole when too large or malformed, a half-sent upload stores nothing), GET
/api/v1/runs/{id}/profile, monitors separating series and comparisons,
monitors as job / plan / bisect / request params and in the lease reply,
and the profile diffs with their numbers for known inputs: of two commits,
of a bisect's first bad commit vs its parent (its profile round) and of an
A/B request's head vs base."""
import json
import os
import socket
import sys
import threading
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import result_doc, sha, wait_until  # noqa: E402
from fakes import (MACHINE, FakeWorker, git, git_init, stop_tree_server,  # noqa: E402
                   tree_server, wait_bisect_end)

METRIC = "small-allocs.throughput"
N_COMMITS = 8    # c0 .. c8
CULPRIT = 5      # c5 is the first slow commit (and the first to call demo_delay)
MAX_PROFILE = 4 << 20


def make_tree(path):
    git_init(path)
    shas = []
    for i in range(N_COMMITS + 1):
        git(path, "commit", "-q", "--allow-empty", "-m", "mm: change %d" % i,
            date="2026-01-01T00:00:%02dZ" % i)
        shas.append(git(path, "rev-parse", "HEAD"))
    return shas


def setUpModule():
    global tmp, repo, shas, srv
    tmp, repo, shas, srv = tree_server("regtrack-profiles-", make_tree,
                                    "detect_enabled = 0\nbody_timeout_s = 3\n"
                                    "profile_diff_max_mb = 1\nprofile_diff_cache_mb = 1\n")
    r = srv.post("/api/v1/trees", {"name": "demo", "url": repo, "branches": ["master"]},
                 scope="admin")
    assert r.status == 200, r
    wait_until(lambda: [t for t in srv.get("/api/v1/trees").json()
                        if t["name"] == "demo" and t["commits"] >= N_COMMITS + 1], what="mirror")


def tearDownModule():
    stop_tree_server(srv, tmp)


def profiled(commit, folded, testcase="prof-store", monitors=("perf-profile",), **kw):
    samples = sum(int(x.rsplit(" ", 1)[1]) for x in folded.splitlines())
    return result_doc(commit, testcase=testcase, metrics=kw.pop("metrics", {METRIC: [1.0]}),
                      monitors=list(monitors),
                      profile={"event": "cpu-clock", "samples": samples, "folded": folded}, **kw)


def count(sql):
    return int(srv.psql(sql))


class Store(unittest.TestCase):
    def test_stored_row_and_profile_endpoint(self):
        folded = "small-allocs;entry_SYSCALL_64;do_mmap 7\nsmall-allocs;[unknown] 3\n"
        doc = profiled(sha("a1"), folded, monitors=["perf-stat", "perf-profile", "perf-stat"])
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 201, r)
        row = srv.psql("SELECT p.event, p.samples, p.folded = %s, s.monitors, "
                       "pg_column_compression(p.folded) IS NOT DISTINCT FROM NULL "
                       "FROM run_profiles p JOIN runs r ON r.id = p.run_id "
                       "JOIN setups s ON s.id = r.setup_id WHERE r.run_id = '%s'"
                       % ("$f$" + folded + "$f$", doc["run_id"]))
        # short text stays inline (no compression below TOAST's threshold)
        self.assertEqual(row, "cpu-clock|10|t|perf-profile,perf-stat|t")
        r = srv.get("/api/v1/runs/%s/profile" % doc["run_id"])
        self.assertEqual(r.status, 200, r)
        self.assertTrue(r.headers["Content-Type"].startswith("text/plain"))
        self.assertEqual(r.body, folded)
        run = srv.get("/api/v1/runs/%s" % doc["run_id"]).json()
        self.assertEqual((run["monitors"], run["has_profile"]), (["perf-profile", "perf-stat"], True))
        # the same document again: nothing new, the same profile
        self.assertEqual(srv.post("/api/v1/results", doc, scope="submit").status, 200)
        self.assertEqual(count("SELECT count(*) FROM run_profiles p JOIN runs r ON r.id = "
                               "p.run_id WHERE r.run_id = '%s'" % doc["run_id"]), 1)

    def test_large_profile_is_compressed(self):
        # 4 MiB would be the bound; 600 KB of repetitive stacks is TOASTed and compressed
        lines = ["small-allocs;entry_SYSCALL_64;__x64_sys_mmap;do_mmap;mmap_region;f%d %d"
                 % (i, i + 1) for i in range(10000)]
        folded = "\n".join(lines) + "\n"
        doc = profiled(sha("a2"), folded)
        self.assertEqual(srv.post("/api/v1/results", doc, scope="submit").status, 201)
        method, stored = srv.psql(
            "SELECT pg_column_compression(p.folded), pg_column_size(p.folded) FROM run_profiles p "
            "JOIN runs r ON r.id = p.run_id WHERE r.run_id = '%s'" % doc["run_id"]).split("|")
        want = "lz4" if srv.psql("SELECT 'lz4' = ANY (enumvals) FROM pg_settings "
                                 "WHERE name = 'default_toast_compression'") == "t" else "pglz"
        self.assertEqual(method, want)
        self.assertLess(int(stored), len(folded) / 3)
        self.assertEqual(srv.get("/api/v1/runs/%s/profile" % doc["run_id"]).body, folded)

    def test_404s(self):
        doc = result_doc(sha("a3"), testcase="prof-store")
        self.assertEqual(srv.post("/api/v1/results", doc, scope="submit").status, 201)
        run = srv.get("/api/v1/runs/%s" % doc["run_id"]).json()
        self.assertEqual((run["monitors"], run["has_profile"]), ([], False))
        r = srv.get("/api/v1/runs/%s/profile" % doc["run_id"])
        self.assertEqual(r.status, 404, r)
        self.assertEqual(r.json()["error"]["detail"], "run_id")
        self.assertIn("has no profile", r.json()["error"]["message"])
        r = srv.get("/api/v1/runs/%s/profile" % uuid.uuid4())
        self.assertEqual(r.status, 404, r)
        self.assertIn("no run", r.json()["error"]["message"])
        r = srv.get("/api/v1/runs/not-a-uuid/profile")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "run_id"))

    def test_too_large_refused_nothing_stored(self):
        before = count("SELECT count(*) FROM runs")
        big = "a;" + "x" * (MAX_PROFILE - 3) + " 1"   # MAX_PROFILE + 1 bytes
        self.assertEqual(len(big), MAX_PROFILE + 1)
        doc = profiled(sha("a4"), big)
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 413, r)
        err = r.json()["error"]
        self.assertEqual((err["code"], err["detail"]), ("too_large", "profile.folded"))
        self.assertIn("RESULTDOC_MAX_PROFILE_BYTES = 4194304", err["message"])
        self.assertEqual(count("SELECT count(*) FROM runs"), before)
        self.assertEqual(count("SELECT count(*) FROM runs WHERE run_id = '%s'" % doc["run_id"]), 0)
        # exactly at the bound: taken
        doc = profiled(sha("a4"), big[:1] + big[2:])
        self.assertEqual(srv.post("/api/v1/results", doc, scope="submit").status, 201)

    def test_bad_profiles_name_the_field(self):
        before = count("SELECT count(*) FROM runs")
        cases = [
            (profiled(sha("a5"), "a;;b 3\n"), "profile.folded", "line 1: an empty frame"),
            (profiled(sha("a5"), "a;b 3\nc 0\n"), "profile.folded",
             "line 2: the sample count must be in [1, 10^15]"),
            (profiled(sha("a5"), "a 3", monitors=["perf-stat"]), "monitors", None),
            (profiled(sha("a5"), "a 3", monitors=["perf-profile", "perf-top"]), "monitors[1]",
             None),
            (result_doc(sha("a5"), monitors="perf-profile"), "monitors", None),
            (result_doc(sha("a5"), monitors=["perf-profile"], profile={"event": "cpu-clock",
                                                                       "samples": 1}),
             "profile.folded", None),
        ]
        for doc, detail, message in cases:
            r = srv.post("/api/v1/results", doc, scope="submit")
            self.assertEqual(r.status, 400, (detail, r))
            self.assertEqual(r.json()["error"]["detail"], detail)
            if message:
                self.assertEqual(r.json()["error"]["message"], message)
        self.assertEqual(count("SELECT count(*) FROM runs"), before)

    def test_half_sent_upload_stores_nothing(self):
        doc = profiled(sha("a6"), "a;b 5\n" * 1 + "c 1\n")
        body = json.dumps(doc).encode()
        host, port = srv.addr.rsplit(":", 1)
        s = socket.create_connection((host, int(port)), timeout=10)
        s.sendall(("POST /api/v1/results HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                   "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                   % (srv.tokens["submit"], len(body))).encode() + body[:len(body) // 2])
        # the client gives up half way. libmicrohttpd (edge-triggered epoll) may not read the
        # end that came with the data; the body deadline (body_timeout_s = 3 here) shuts such
        # a connection down: wait until only this /metrics request is in flight
        s.close()
        wait_until(lambda: "regtrack_http_in_flight 1\n" in srv.get("/metrics").body,
                   timeout=30, what="the half-sent request to be dropped")
        # the server is still there, and neither the run nor its profile was stored
        self.assertEqual(srv.get("/healthz").status, 200)
        self.assertEqual(count("SELECT count(*) FROM runs WHERE run_id = '%s'" % doc["run_id"]), 0)
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(srv.get("/api/v1/runs/%s/profile" % doc["run_id"]).body, "a;b 5\nc 1\n")


class Separate(unittest.TestCase):
    """Monitors are part of the setup: profiled runs never share a series or a
    comparison with unprofiled ones."""

    @classmethod
    def setUpClass(cls):
        cls.plain, cls.prof = [], []
        for c, v in ((sha("b1"), 100.0), (sha("b2"), 90.0)):
            for i in range(3):
                d = result_doc(c, testcase="prof-sep", metrics={METRIC: [v + i]})
                assert srv.post("/api/v1/results", d, scope="submit").status == 201
                cls.plain.append(d["run_id"])
                d = profiled(c, "prof-sep;do_mmap %d\n" % (i + 1), testcase="prof-sep",
                             metrics={METRIC: [v - 50 + i]})
                assert srv.post("/api/v1/results", d, scope="submit").status == 201
                cls.prof.append(d["run_id"])

    def test_series(self):
        r = srv.get("/api/v1/series?testcase=prof-sep&metric=%s" % METRIC)
        self.assertEqual(r.status, 200, r)
        series = r.json()["series"]
        self.assertEqual(sorted(json.dumps(s["setup"]["monitors"]) for s in series),
                         ['["perf-profile"]', '[]'])
        for s in series:
            ids = set(s["points"]["run_id"])
            self.assertEqual(ids, set(self.prof if s["setup"]["monitors"] else self.plain))
        only = srv.get("/api/v1/series?testcase=prof-sep&metric=%s&monitors=perf-profile"
                       % METRIC).json()["series"]
        self.assertEqual(len(only), 1)
        self.assertEqual(set(only[0]["points"]["run_id"]), set(self.prof))
        self.assertEqual(sorted(only[0]["points"]["value"]), [40.0, 41.0, 42.0, 50.0, 51.0, 52.0])
        none = srv.get("/api/v1/series?testcase=prof-sep&metric=%s&monitors=none"
                       % METRIC).json()
        self.assertEqual([s["setup"]["monitors"] for s in none["series"]], [[]])
        r = srv.get("/api/v1/series?testcase=prof-sep&metric=%s&monitors=perf-trace" % METRIC)
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "monitors"))

    def test_compare(self):
        r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=prof-sep" % (sha("b1"), sha("b2")))
        self.assertEqual(r.status, 200, r)
        c = r.json()
        self.assertEqual(len(c["setups"]), 2)
        mon = {s["id"]: s["monitors"] for s in c["setups"]}
        rows = [x for x in c["rows"] if x["metric"] == METRIC]
        self.assertEqual(len(rows), 2)
        for row in rows:
            # three runs a side in each: never six (the two kinds mixed)
            self.assertEqual(row["n"], [3, 3])
            self.assertEqual(row["mean"], [51.0, 41.0] if mon[row["setup_id"]] else [101.0, 91.0])
        r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=prof-sep&monitors=perf-profile"
                    % (sha("b1"), sha("b2")))
        self.assertEqual([s["monitors"] for s in r.json()["setups"]], [["perf-profile"]])


def run_folded(work, slow, idle=10):
    return "bench;work %d\nbench;main_loop;slow %d\nbench;idle %d\n" % (work, slow, idle)


class Diff(unittest.TestCase):
    """GET /api/v1/profile-diff: 5 base and 5 head runs of known stacks."""

    @classmethod
    def setUpClass(cls):
        cls.base, cls.head = sha("c1"), sha("c2")
        for i in range(5):
            # base: work 80+i, slow 10, idle 10; head: work 60+i, slow 30, idle 10
            for c, folded in ((cls.base, run_folded(80 + i, 10)),
                              (cls.head, run_folded(60 + i, 30))):
                d = profiled(c, folded, testcase="prof-diff")
                assert srv.post("/api/v1/results", d, scope="submit").status == 201
        # an unprofiled run of the same commits is not a side's run
        d = result_doc(cls.base, testcase="prof-diff")
        assert srv.post("/api/v1/results", d, scope="submit").status == 201

    def test_numbers(self):
        q = ("/api/v1/profile-diff?base=%s&head=%s&testcase=prof-diff&folded=1"
             % (self.base, self.head))
        r = srv.get(q, scope="read")
        self.assertEqual(r.status, 200, r)
        d = r.json()
        base_total = sum(80 + i + 20 for i in range(5))      # 510
        head_total = sum(60 + i + 40 for i in range(5))      # 510
        # work: small-allocs.throughput 1.0 a run, no runtime param (1 s)
        self.assertEqual(d["base"], {"commit": self.base, "runs": 5, "samples": base_total,
                                     "work": 5.0})
        self.assertEqual(d["head"], {"commit": self.head, "runs": 5, "samples": head_total,
                                     "work": 5.0})
        self.assertEqual(d["event"], "cpu-clock")
        self.assertEqual(d["significance"]["test"], "mann-whitney")
        self.assertEqual(d["significance"]["alpha"], 0.01)
        self.assertEqual(d["significance"]["status"], "ok")
        self.assertAlmostEqual(d["significance"]["min_p"], 2 / 252)
        by = {s["symbol"]: s for s in d["symbols"]}
        self.assertEqual(set(by), {"bench", "work", "main_loop", "slow", "idle"})
        # |children_change| descending: work -19.6 (then slow, main_loop +19.6 by |self|, name)
        self.assertEqual([s["symbol"] for s in d["symbols"]],
                         ["slow", "work", "main_loop", "bench", "idle"])
        slow = by["slow"]
        self.assertAlmostEqual(slow["base_children_pct"], 100 * 50 / 510)
        self.assertAlmostEqual(slow["head_children_pct"], 100 * 150 / 510)
        self.assertAlmostEqual(slow["children_change"], 100 * 100 / 510)
        self.assertAlmostEqual(slow["base_self_pct"], 100 * 50 / 510)
        self.assertAlmostEqual(slow["self_change"], 100 * 100 / 510)
        self.assertAlmostEqual(slow["p"], 2 / 252)
        self.assertTrue(slow["significant"])
        ml = by["main_loop"]
        self.assertAlmostEqual(ml["children_change"], 100 * 100 / 510)
        self.assertEqual((ml["base_self_pct"], ml["head_self_pct"]), (0, 0))
        self.assertAlmostEqual(by["work"]["children_change"], -100 * 100 / 510)
        self.assertEqual((by["bench"]["children_change"], by["bench"]["p"]), (0, 1))
        self.assertFalse(by["bench"]["significant"])
        # idle: 10 of each run on both sides, per-run shares differ a little: not significant
        self.assertFalse(by["idle"]["significant"])
        # each side's runs merged: counts summed, stacks sorted
        self.assertEqual(d["folded"]["base"],
                         "bench;idle 50\nbench;main_loop;slow 50\nbench;work %d\n"
                         % sum(80 + i for i in range(5)))
        self.assertEqual(d["folded"]["head"].splitlines()[1], "bench;main_loop;slow 150")

    def test_diff_over_too_much_text_refused(self):
        """A diff reads at most profile_diff_max_mb of folded stacks (1 MiB here): four
        diffs over 21 stored 4 MiB profiles took 9.5 GB."""
        big = "".join("bench;frame_%05d;leaf %d\n" % (i, 1 + i % 7) for i in range(26000))
        self.assertGreater(len(big), 600 * 1024)
        a, b = sha("e1"), sha("e2")
        for c in (a, b):
            r = srv.post("/api/v1/results", profiled(c, big, testcase="prof-big"),
                         scope="submit")
            self.assertEqual(r.status, 201, r)
        r = srv.get("/api/v1/profile-diff?base=%s&head=%s&testcase=prof-big" % (a, b))
        self.assertEqual((r.status, r.json()["error"]["code"], r.json()["error"]["detail"]),
                         (413, "too_large", "runs"), r)
        self.assertIn("profile_diff_max_mb (1)", r.json()["error"]["message"])

    def test_limit_filters_and_errors(self):
        q = "/api/v1/profile-diff?base=%s&head=%s&testcase=prof-diff" % (self.base, self.head)
        d = srv.get(q + "&limit=2").json()
        self.assertEqual([s["symbol"] for s in d["symbols"]], ["slow", "work"])
        self.assertEqual(d["nr_symbols"], 5)
        self.assertNotIn("folded", d)
        # setup filters: no profiled runs of another testcase or without monitors
        d = srv.get(q.replace("prof-diff", "prof-none")).json()
        self.assertEqual((d["base"]["runs"], d["head"]["runs"], d["symbols"]), (0, 0, []))
        self.assertEqual(d["significance"]["status"], "need-more-runs")
        d = srv.get(q + "&monitors=none").json()
        self.assertEqual(d["base"]["runs"], 0)
        d = srv.get(q + "&monitors=perf-profile").json()
        self.assertEqual(d["base"]["runs"], 5)
        for args, status, detail in (("&limit=0", 400, "limit"), ("&folded=yes", 400, "folded"),
                                     ("&alpha=1", 400, "alpha"), ("&monitors=x", 400, "monitors"),
                                     ("&mode=cycles", 400, "mode")):
            r = srv.get(q + args)
            self.assertEqual((r.status, r.json()["error"]["detail"]), (status, detail), args)
        r = srv.get("/api/v1/profile-diff?head=%s" % self.head)
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "base"))
        r = srv.get("/api/v1/profile-diff?base=%s&head=%s" % (sha("c1"), sha("ee")))
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "head"))

    def test_too_few_runs(self):
        for c, folded in ((sha("c3"), run_folded(80, 10)), (sha("c4"), run_folded(60, 30))):
            for _ in range(2):
                d = profiled(c, folded, testcase="prof-few")
                self.assertEqual(srv.post("/api/v1/results", d, scope="submit").status, 201)
        d = srv.get("/api/v1/profile-diff?base=%s&head=%s&testcase=prof-few"
                    % (sha("c3"), sha("c4"))).json()
        self.assertEqual(d["significance"]["status"], "need-more-runs")
        self.assertAlmostEqual(d["significance"]["min_p"], 2 / 6)
        self.assertEqual(d["symbols"][0]["symbol"], "slow")
        self.assertIsNone(d["symbols"][0]["p"])
        self.assertFalse(d["symbols"][0]["significant"])


def metric(name):
    """a sample of /metrics, by its full name with labels"""
    for line in srv.get("/metrics").body.splitlines():
        if line.startswith(name + " "):
            return int(line.rsplit(" ", 1)[1])
    raise AssertionError("no %s in /metrics" % name)


def many_stacks(n, salt):
    """n stacks bench;frame_NNNNN;leaf with counts 1 + (i + salt) % 7"""
    return "".join("bench;frame_%05d;leaf %d\n" % (i, 1 + (i + salt) % 7) for i in range(n))


class DiffCache(unittest.TestCase):
    """Issue 35 item 3: a diff is computed once, then served from the reply cache
    (profile_diff_cache_mb = 1 here) until its runs change; folded=1 needs a token,
    folded=top is the public, trimmed form the dashboard draws."""

    def diff(self, base, head, testcase, args="", **kw):
        return srv.get("/api/v1/profile-diff?base=%s&head=%s&testcase=%s%s"
                       % (base, head, testcase, args), **kw)

    def post(self, commit, folded, testcase):
        r = srv.post("/api/v1/results", profiled(commit, folded, testcase=testcase),
                     scope="submit")
        self.assertEqual(r.status, 201, r)

    def test_second_diff_is_a_hit_and_an_upload_is_not_served_stale(self):
        base, head = sha("f1"), sha("f2")
        self.post(base, run_folded(80, 10), "prof-cache")
        self.post(head, run_folded(60, 30), "prof-cache")
        hits, misses = (metric('regtrack_profile_diff_cache_total{result="%s"}' % x)
                        for x in ("hit", "miss"))
        first = self.diff(base, head, "prof-cache")
        self.assertEqual((first.status, first.headers["X-Regtrack-Cache"]), (200, "miss"))
        second = self.diff(base, head, "prof-cache")
        self.assertEqual((second.status, second.headers["X-Regtrack-Cache"]), (200, "hit"))
        self.assertEqual(second.body, first.body)
        self.assertEqual(second.json()["head"]["runs"], 1)
        self.assertEqual(metric('regtrack_profile_diff_cache_total{result="hit"}'), hits + 1)
        self.assertEqual(metric('regtrack_profile_diff_cache_total{result="miss"}'),
                         misses + 1)
        # other options are another reply
        r = self.diff(base, head, "prof-cache", "&limit=2")
        self.assertEqual((r.headers["X-Regtrack-Cache"], len(r.json()["symbols"])), ("miss", 2))
        # a new run of the head: computed again, with it
        self.post(head, run_folded(50, 40), "prof-cache")
        third = self.diff(base, head, "prof-cache")
        self.assertEqual((third.status, third.headers["X-Regtrack-Cache"]), (200, "miss"))
        self.assertEqual((third.json()["head"]["runs"], third.json()["head"]["samples"]),
                         (2, 100 + 100))
        self.assertEqual(self.diff(base, head, "prof-cache").headers["X-Regtrack-Cache"],
                         "hit")

    def test_folded_needs_a_token_top_does_not(self):
        base, head = sha("f3"), sha("f4")
        self.post(base, many_stacks(3000, 0), "prof-top")
        self.post(head, many_stacks(3000, 3), "prof-top")
        r = self.diff(base, head, "prof-top", "&folded=1")
        self.assertEqual(r.status, 401, r)
        err = r.json()["error"]
        self.assertEqual((err["code"], err["detail"]), ("unauthorized", "folded"))
        self.assertIn("folded=top", err["message"])
        r = self.diff(base, head, "prof-top", "&folded=1", scope="read")
        self.assertEqual(r.status, 200, r)
        full = r.json()["folded"]
        self.assertEqual(full["base"], many_stacks(3000, 0))
        self.assertEqual((full["base_stacks"], full["head_stacks"], full["top"]),
                         (3000, 3000, None))
        # anyone: the 2,000 largest stacks a side, the other 1,000 as one line
        r = self.diff(base, head, "prof-top", "&folded=top")
        self.assertEqual(r.status, 200, r)
        top = r.json()["folded"]
        self.assertEqual((top["base_stacks"], top["head_stacks"], top["top"]),
                         (3000, 3000, 2000))
        lines = top["base"].splitlines()
        self.assertEqual(len(lines), 2001)
        counts = {i: 1 + i % 7 for i in range(3000)}
        kept = sorted(counts, key=lambda i: (-counts[i], "bench;frame_%05d;leaf" % i))[:2000]
        other = sum(counts.values()) - sum(counts[i] for i in kept)
        self.assertEqual(lines[0], "[other stacks] %d" % other)
        self.assertEqual(lines[1:], sorted("bench;frame_%05d;leaf %d" % (i, counts[i])
                                           for i in kept))
        # the figures are those of every stack
        self.assertEqual(r.json()["symbols"], self.diff(base, head, "prof-top",
                                                        "&folded=1", scope="read")
                         .json()["symbols"])
        self.assertEqual(r.json()["base"]["samples"], sum(counts.values()))

    def test_the_byte_bound_holds(self):
        """two folded=1 replies of ~650 KB: the 1 MiB cache keeps one"""
        pairs = ((sha("f5"), sha("f6")), (sha("f7"), sha("f8")))
        for k, (a, b) in enumerate(pairs):
            self.post(a, many_stacks(12000, k), "prof-bound-%d" % k)
            self.post(b, many_stacks(12000, k + 1), "prof-bound-%d" % k)
        evicted = metric("regtrack_profile_diff_cache_evictions_total")
        sizes = []
        for k, (a, b) in enumerate(pairs):
            r = self.diff(a, b, "prof-bound-%d" % k, "&folded=1", scope="read")
            self.assertEqual((r.status, r.headers["X-Regtrack-Cache"]), (200, "miss"))
            sizes.append(len(r.body.encode()))
            self.assertLessEqual(metric("regtrack_profile_diff_cache_bytes"), 1 << 20)
        self.assertGreater(sizes[0] + sizes[1], 1 << 20)
        self.assertGreaterEqual(metric("regtrack_profile_diff_cache_evictions_total"),
                                evicted + 1)
        # the newer stays, the older was given up for it
        (a0, b0), (a1, b1) = pairs
        r = self.diff(a1, b1, "prof-bound-1", "&folded=1", scope="read")
        self.assertEqual(r.headers["X-Regtrack-Cache"], "hit")
        r = self.diff(a0, b0, "prof-bound-0", "&folded=1", scope="read")
        self.assertEqual(r.headers["X-Regtrack-Cache"], "miss")
        self.assertLessEqual(metric("regtrack_profile_diff_cache_bytes"), 1 << 20)


class DiffsAtOnce(unittest.TestCase):
    def test_past_profile_diff_max_503_overloaded(self):
        """At most profile_diff_max (2 here) diffs are computed at once: eight started
        together over 2 x 12,000 stacks (each its own limit=, so none is a kept reply)
        give 503 overloaded to those past it (four diffs at once took
        9.5 GB)."""
        a, b = sha("f9"), sha("fa")
        for c, salt in ((a, 0), (b, 1)):
            r = srv.post("/api/v1/results", profiled(c, many_stacks(12000, salt),
                                                     testcase="prof-at-once"), scope="submit")
            self.assertEqual(r.status, 201, r)
        start = threading.Barrier(8)
        got = []

        def diff(k):
            start.wait()
            r = srv.get("/api/v1/profile-diff?base=%s&head=%s&testcase=prof-at-once"
                        "&folded=1&limit=%d" % (a, b, 10 + k), scope="read")
            got.append((r.status, r.json()["error"]["detail"] if r.status != 200 else None,
                        r.headers.get("Retry-After")))
        threads = [threading.Thread(target=diff, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.assertEqual(len(got), 8)
        self.assertEqual(set(got) - {(200, None, None)}, {(503, "profile-diff", "2")}, got)
        self.assertGreaterEqual(got.count((200, None, None)), 2, got)


class DiffPerSetup(unittest.TestCase):
    """GET /api/v1/profile-diff of commits profiled on x86_64 and arm64: one
    diff is of one setup (both arches' stacks were merged into one
    graph, each symbol of one arch at 0 % in half the runs)."""

    ARM = {"hostname": "arm-1", "arch": "aarch64", "cpu_model": "neoverse", "nr_cpus": 2,
           "memory_mb": 4096, "tbox_group": "qemu-arm64"}

    @classmethod
    def setUpClass(cls):
        cls.base, cls.head = sha("d1"), sha("d2")
        for i in range(5):
            for c, x86, arm in ((cls.base, "bench;x86_work %d\n", "bench;arm_work %d\n"),
                                (cls.head, "bench;x86_work %d\nbench;x86_slow 40\n",
                                 "bench;arm_work %d\n")):
                assert srv.post("/api/v1/results", profiled(c, x86 % (80 + i), testcase="prof-arch"),
                                scope="submit").status == 201
                assert srv.post("/api/v1/results", profiled(
                    c, arm % (50 + i), testcase="prof-arch", kconfig="arm64-defconfig",
                    machine=cls.ARM), scope="submit").status == 201
        ids = srv.psql("SELECT s.kconfig || '=' || s.id FROM setups s JOIN testcases t "
                       "ON t.id = s.testcase_id WHERE t.name = 'prof-arch' ORDER BY s.id")
        cls.setup = dict(x.split("=") for x in ids.split())

    def test_several_setups_need_one(self):
        q = "/api/v1/profile-diff?base=%s&head=%s&testcase=prof-arch" % (self.base, self.head)
        r = srv.get(q)
        self.assertEqual(r.status, 400, r)
        err = r.json()["error"]
        self.assertEqual((err["code"], err["detail"]), ("missing_field", "setup"))
        x86, arm = self.setup["x86_64-defconfig"], self.setup["arm64-defconfig"]
        self.assertIn("profiled in 2 setups: give setup=ID, one of %s: x86_64-defconfig, vm-2p, "
                      % x86, err["message"])
        self.assertIn("; %s: arm64-defconfig, qemu-arm64, " % arm, err["message"])
        # one setup: its runs only, the setup named in the reply
        d = srv.get(q + "&setup=%s" % x86).json()
        self.assertEqual((d["base"]["runs"], d["head"]["runs"]), (5, 5))
        self.assertEqual((d["setup"]["id"], d["setup"]["kconfig"], d["setup"]["tbox_group"]),
                         (int(x86), "x86_64-defconfig", "vm-2p"))
        syms = {s["symbol"]: s for s in d["symbols"]}
        self.assertEqual(set(syms), {"bench", "x86_work", "x86_slow"})
        self.assertEqual(syms["bench"]["base_children_pct"], 100)
        d = srv.get(q + "&setup=%s" % arm).json()
        self.assertEqual({s["symbol"] for s in d["symbols"]}, {"bench", "arm_work"})
        self.assertEqual(d["setup"]["kconfig"], "arm64-defconfig")
        # the filters that pick one setup do it too
        d = srv.get(q + "&kconfig=arm64-defconfig").json()
        self.assertEqual((d["setup"]["id"], d["base"]["runs"]), (int(arm), 5))
        # a setup with no profiled runs of these commits: an empty diff
        d = srv.get(q + "&setup=999999").json()
        self.assertEqual((d["setup"], d["base"]["runs"], d["symbols"]), (None, 0, []))
        for bad in ("x", "0", "-1", ""):
            r = srv.get(q + "&setup=" + bad)
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "setup"), bad)


class Params(unittest.TestCase):
    """monitors as a job, plan, bisect and request param: validated with the
    field named, stored sorted and deduplicated, in the lease reply."""

    def test_job_and_lease_reply(self):
        r = srv.post("/api/v1/jobs", {"commit": sha("d1"), "kconfig": "host",
                                      "testcase": "prof-job", "tbox_group": "prof-host",
                                      "monitors": ["perf-stat", "perf-profile", "perf-stat"]},
                     scope="submit")
        self.assertEqual(r.status, 201, r)
        jid = r.json()["id"]
        self.assertEqual(srv.psql("SELECT monitors FROM jobs WHERE id = %d" % jid),
                         "perf-profile,perf-stat")
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["monitors"],
                         ["perf-profile", "perf-stat"])
        r = srv.post("/api/v1/workers/register", dict(MACHINE, hostname="prof-host-1",
                                                      tbox_group="prof-host",
                                                      capabilities=["host"], fingerprint={}),
                     scope="worker")
        self.assertEqual(r.status, 200, r)
        m = r.json()["machine_id"]
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 0}, scope="worker")
        self.assertEqual(r.status, 200, r)
        job = r.json()["job"]
        self.assertEqual((job["id"], job["monitors"]), (jid, ["perf-profile", "perf-stat"]))
        # a job without monitors is leased with []
        r = srv.post("/api/v1/jobs", {"commit": sha("d1"), "kconfig": "host",
                                      "testcase": "prof-job", "tbox_group": "prof-host"},
                     scope="submit")
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 0}, scope="worker")
        self.assertEqual(r.json()["job"]["monitors"], [])
        for bad, detail in ((["perf-stat", "perf-x"], "monitors[1]"), ("perf-stat", "monitors"),
                            ([1], "monitors[0]")):
            r = srv.post("/api/v1/jobs", {"commit": sha("d1"), "kconfig": "host",
                                          "testcase": "prof-job", "monitors": bad},
                         scope="submit")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, detail), bad)

    def test_plan(self):
        plan = {"name": "prof-plan", "tree": "demo", "branches": ["master"],
                "testcases": [{"testcase": "small-allocs"}], "kconfigs": ["x86_64-defconfig"],
                "targets": ["x86_64"], "monitors": ["perf-stat", "perf-profile"],
                "enabled": False}
        r = srv.post("/api/v1/plans", plan, scope="admin")
        self.assertIn(r.status, (200, 201), r)
        self.assertEqual(srv.get("/api/v1/plans/prof-plan").json()["monitors"],
                         ["perf-profile", "perf-stat"])
        r = srv.post("/api/v1/plans", dict(plan, name="prof-plan2", monitors=["perf-top"]),
                     scope="admin")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "monitors[0]"))

    def test_bisect_and_request_validation(self):
        r = srv.post("/api/v1/bisects", {"tree": "demo", "good": shas[0], "bad": shas[1],
                                         "testcase": "small-allocs", "kconfig": "x86_64-defconfig",
                                         "metric": METRIC, "monitors": ["perf-profile", "x"]},
                     scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "monitors[1]"))
        r = srv.post("/api/v1/requests", {"tree": "demo", "base": shas[0], "head": shas[1],
                                          "testcases": [{"testcase": "small-allocs"}],
                                          "targets": ["x86_64"], "kconfig": "x86_64-defconfig",
                                          "monitors": {"perf-profile": True}}, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "monitors"))
        r = srv.get("/api/v1/bisects/999999/profile-diff")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "id"))
        r = srv.get("/api/v1/requests/999999/profile-diff")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "id"))


def delay_profile(index_of, extra_head=None):
    """Folded stacks of one run: commits at and after the culprit (or the
    request's head) spend ~40 % of the samples in demo_delay under do_mmap."""
    def profile(job, rng):
        i = index_of[job["commit"]]
        n = 100 + rng.randrange(20)
        if i >= CULPRIT or job["commit"] == extra_head:
            return ("small-allocs;do_mmap %d\nsmall-allocs;do_mmap;demo_delay %d\n"
                    "small-allocs;exit_mmap %d\n" % (n, n, n // 2))
        return "small-allocs;do_mmap %d\nsmall-allocs;exit_mmap %d\n" % (n, n // 2)
    return profile


class Flows(unittest.TestCase):
    """A bisect and an A/B request run by fake workers that profile when asked."""

    def workers(self, stop, index_of, extra_head=None, n=2):
        def values(job, rng):
            i = index_of[job["commit"]]
            slow = i >= CULPRIT or job["commit"] == extra_head
            return {METRIC: [(900.0 if slow else 1000.0) + rng.gauss(0, 3)]}
        ws = [FakeWorker(srv, "prof-fake-%s-%d" % (extra_head or "b", i)[:40], stop, values,
                         profile=delay_profile(index_of, extra_head)) for i in range(n)]
        for w in ws:
            w.start()
        return ws

    def test_bisect_profile_round_and_diff(self):
        index_of = {s: i for i, s in enumerate(shas)}
        stop = threading.Event()
        ws = self.workers(stop, index_of)
        try:
            r = srv.post("/api/v1/bisects", {
                "tree": "demo", "good": shas[0], "bad": shas[-1], "testcase": "small-allocs",
                "params": {"test": "small-allocs"}, "kconfig": "x86_64-defconfig",
                "compiler": "gcc-12", "tbox_group": "vm-2p", "metric": METRIC}, scope="submit")
            self.assertEqual(r.status, 201, r)
            bid = r.json()["id"]
            b = wait_bisect_end(srv, bid, 120)
        finally:
            stop.set()
            for w in ws:
                w.join(10)
        self.assertEqual((b["state"], b["outcome"]), ("done", "found"), b.get("reason"))
        self.assertEqual(b["first_bad_commit"]["sha"], shas[CULPRIT])
        self.assertEqual(b["monitors"], ["perf-profile"])
        # the profile round: one job at the first bad commit and one at its parent, with the
        # bisect's monitors; every other job of the bisect unprofiled
        rows = srv.psql("SELECT c.sha, j.repeat FROM jobs j JOIN commits c ON c.id = j.commit_id "
                        "WHERE j.bisect_id = %d AND j.monitors = 'perf-profile' ORDER BY c.sha"
                        % bid).splitlines()
        self.assertEqual(sorted(r.split("|")[0] for r in rows),
                         sorted([shas[CULPRIT - 1], shas[CULPRIT]]))
        self.assertTrue(all(r.split("|")[1] == "5" for r in rows), rows)
        # the runs that decided are unprofiled: the verification's counts are the
        # unprofiled runs of the two commits, and no step sample came from a profiled run
        v = b["verification"]
        self.assertEqual((v["parent"], v["first_bad"]), (shas[CULPRIT - 1], shas[CULPRIT]))
        for sha_, n in zip((v["parent"], v["first_bad"]), v["n"]):
            self.assertEqual(n, count(
                "SELECT count(*) FROM runs r JOIN jobs j ON j.id = r.job_id "
                "JOIN commits c ON c.id = r.commit_id JOIN setups s ON s.id = r.setup_id "
                "WHERE j.bisect_id = %d AND c.sha = '%s' AND s.monitors = ''" % (bid, sha_)))
        self.assertEqual(count("SELECT count(*) FROM runs r JOIN jobs j ON j.id = r.job_id "
                               "JOIN setups s ON s.id = r.setup_id WHERE j.bisect_id = %d "
                               "AND (j.monitors = '') <> (s.monitors = '')" % bid), 0)
        d = srv.get("/api/v1/bisects/%d/profile-diff" % bid).json()
        self.assertEqual(d["base"]["commit"], shas[CULPRIT - 1])
        self.assertEqual(d["head"]["commit"], shas[CULPRIT])
        self.assertEqual((d["base"]["runs"], d["head"]["runs"]), (5, 5))
        top = d["symbols"][0]
        self.assertEqual(top["symbol"], "demo_delay")
        self.assertEqual(top["base_children_pct"], 0)
        self.assertGreater(top["head_children_pct"], 35)
        self.assertAlmostEqual(top["p"], 2 / 252)
        self.assertTrue(top["significant"])

    def test_request_profile_diff(self):
        index_of = {s: i for i, s in enumerate(shas)}
        stop = threading.Event()
        base, head = shas[1], shas[2]
        ws = self.workers(stop, index_of, extra_head=head, n=1)
        try:
            r = srv.post("/api/v1/requests", {
                "tree": "demo", "base": base, "head": head,
                "testcases": [{"testcase": "small-allocs", "params": {"nr_task": 1}}],
                "targets": ["x86_64"], "kconfig": "x86_64-defconfig", "repeat": 6,
                "monitors": ["perf-profile"]}, scope="submit")
            self.assertEqual(r.status, 202, r)
            rid = r.json()["id"]
            q = wait_until(lambda: [x for x in [srv.get("/api/v1/requests/%d" % rid).json()]
                                    if x["state"] in ("done", "failed")], timeout=60,
                           what="request")[0]
        finally:
            stop.set()
            for w in ws:
                w.join(10)
        self.assertEqual(q["state"], "done", q)
        self.assertEqual(count("SELECT count(*) FROM jobs WHERE request_id = %d "
                               "AND monitors <> 'perf-profile'" % rid), 0)
        d = srv.get("/api/v1/requests/%d/profile-diff?target=x86_64" % rid).json()
        self.assertEqual((d["base"]["commit"], d["head"]["commit"]), (base, head))
        self.assertEqual((d["base"]["runs"], d["head"]["runs"]), (6, 6))
        self.assertEqual(d["symbols"][0]["symbol"], "demo_delay")
        self.assertTrue(d["symbols"][0]["significant"])
        d = srv.get("/api/v1/requests/%d/profile-diff?target=arm64" % rid).json()
        self.assertEqual((d["base"]["runs"], d["head"]["runs"]), (0, 0))
        q = "/api/v1/requests/%d/profile-diff?testcase=small-allocs&folded=1" % rid
        self.assertEqual(srv.get(q).status, 401)
        d = srv.get(q, scope="read").json()
        self.assertIn("small-allocs;do_mmap;demo_delay ", d["folded"]["head"])
        self.assertNotIn("demo_delay", d["folded"]["base"])


if __name__ == "__main__":
    unittest.main()


class PerWork(unittest.TestCase):
    """A patch that removes work: base runs clear a page (4 samples
    an operation) and copy it (6), 100 KB/s for 2 s; head only copies, at the
    same cost, twice as fast. copy's share grows 60 % -> 100 % in every run,
    but per unit of work (KB) it is the same: the row says so, and says what
    perf sampled."""

    @classmethod
    def setUpClass(cls):
        cls.base, cls.head = sha("d1"), sha("d2")
        params = {"test": "small-allocs", "nr_task": "100%", "runtime": "2"}
        for i in range(5):
            for c, folded, tput in ((cls.base, "bench;copy %d\nbench;clear 400\n" % (600 + i),
                                     100.0),
                                    (cls.head, "bench;copy %d\n" % (1201 + 2 * i), 200.0)):
                d = profiled(c, folded, testcase="prof-work", params=params,
                             metrics={METRIC: [tput - 1, tput + 1]})
                assert srv.post("/api/v1/results", d, scope="submit").status == 201

    def test_per_work_decides(self):
        q = "/api/v1/profile-diff?base=%s&head=%s&testcase=prof-work" % (self.base, self.head)
        r = srv.get(q)
        self.assertEqual(r.status, 200, r)
        d = r.json()
        self.assertEqual(d["event"], "cpu-clock")
        self.assertEqual(d["work"], {"metric": METRIC, "per_work": True})
        # work = mean throughput (KB/s) x runtime (s): 100 x 2 a base run, 200 x 2 a head run
        self.assertEqual((d["base"]["work"], d["head"]["work"]), (1000.0, 2000.0))
        self.assertEqual(d["significance"]["basis"], "per-work")
        by = {s["symbol"]: s for s in d["symbols"]}
        copy = by["copy"]
        self.assertAlmostEqual(copy["base_children_pct"], 100 * 3010 / 5010)
        self.assertEqual(copy["head_children_pct"], 100)
        self.assertAlmostEqual(copy["p_share"], 2 / 252)        # the share alone: "significant"
        self.assertAlmostEqual(copy["base_children_per_work"], 3010 / 1000)
        self.assertAlmostEqual(copy["head_children_per_work"], 6025 / 2000)
        self.assertAlmostEqual(copy["per_work_change_pct"], 100 * (6.025 / 6.02 - 1))
        self.assertAlmostEqual(copy["p_per_work"], 174 / 252)
        self.assertEqual(copy["p"], copy["p_per_work"])
        self.assertEqual((copy["significant"], copy["verdict"]), (False, "same"))
        clear = by["clear"]
        self.assertEqual((clear["base_children_per_work"], clear["head_children_per_work"]),
                         (2.0, 0))
        self.assertEqual(clear["per_work_change_pct"], -100)
        self.assertEqual((clear["significant"], clear["verdict"]), (True, "different"))

    def test_without_work_the_share_decides(self):
        q = ("/api/v1/profile-diff?base=%s&head=%s&testcase=prof-work&work=no-such.metric"
             % (self.base, self.head))
        d = srv.get(q).json()
        self.assertEqual(d["work"], {"metric": None, "per_work": False})
        self.assertEqual((d["base"]["work"], d["significance"]["basis"]), (None, "share"))
        copy = [s for s in d["symbols"] if s["symbol"] == "copy"][0]
        self.assertIsNone(copy["base_children_per_work"])
        self.assertIsNone(copy["p_per_work"])
        self.assertAlmostEqual(copy["p"], 2 / 252)
        self.assertEqual((copy["significant"], copy["verdict"]), (True, "different"))
        # work= names the metric outright
        d = srv.get(q.replace("no-such.metric", METRIC)).json()
        self.assertEqual(d["significance"]["basis"], "per-work")
        r = srv.get(q.replace("no-such.metric", "a%20b"))
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "work"))
