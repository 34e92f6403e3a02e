"""Bad input in a result document (POST /api/v1/results and the results[]
of POST /api/v1/jobs/{id}/complete) gets a 4xx whose error.detail names the
field, never a 500 with PostgreSQL's text, and stores nothing: integers
past their column's range, a job_id that names no job, dates that are not
calendar dates, numbers past int64 anywhere in a body, a document whose
commit or testcase is not its job's.
"""
import json
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc, sha  # noqa: E402

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1

srv = None


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


def machine(**kw):
    m = {"hostname": "val-1", "arch": "x86_64", "cpu_model": "test cpu", "nr_cpus": 2,
         "memory_mb": 4096, "tbox_group": "vm-2p"}
    m.update(kw)
    return m


def nr_runs():
    return int(srv.psql("SELECT count(*) FROM runs"))


class Case(unittest.TestCase):

    def refused(self, r, status, detail, code="invalid_field"):
        """r is an error document of status naming detail; the server
        said nothing of SQL."""
        self.assertEqual(r.status, status, r)
        err = r.json()["error"]
        self.assertEqual((err["code"], err["detail"]), (code, detail), r)
        self.assertNotIn("db_error", r.body)

    def post(self, doc):
        return srv.post("/api/v1/results", doc, scope="submit")


class IntegerRanges(Case):

    def test_nr_cpus_past_int32_refused_and_nothing_stored(self):
        before = nr_runs()
        for v in (INT32_MAX + 1, 2**40, INT64_MAX, -1):
            doc = result_doc(sha("1"), machine=machine(hostname="big-%d" % v, nr_cpus=v))
            self.refused(self.post(doc), 400, "machine.nr_cpus")
            self.assertIn("[0, 2147483647]", self.post(doc).json()["error"]["message"])
        self.assertEqual(nr_runs(), before)
        self.assertEqual(srv.psql("SELECT count(*) FROM machines WHERE hostname LIKE 'big-%'"),
                         "0")

    def test_column_limits_themselves_stored(self):
        doc = result_doc(sha("2"), machine=machine(hostname="edge", nr_cpus=INT32_MAX,
                                                   memory_mb=INT64_MAX))
        r = self.post(doc)
        self.assertEqual(r.status, 201, r)
        self.assertEqual(srv.psql("SELECT nr_cpus || ' ' || memory_mb FROM machines "
                                  "WHERE hostname = 'edge'"),
                         "%d %d" % (INT32_MAX, INT64_MAX))

    def test_memory_mb_negative_refused(self):
        doc = result_doc(sha("2"), machine=machine(memory_mb=-5))
        self.refused(self.post(doc), 400, "machine.memory_mb")


class JobId(Case):

    def test_unknown_job_is_404_naming_job_id(self):
        before = nr_runs()
        for job in (987654, INT64_MAX):
            r = self.post(result_doc(sha("3"), job_id=job))
            self.refused(r, 404, "job_id", code="not_found")
            self.assertIn("no job %d" % job, r.json()["error"]["message"])
        self.assertEqual(nr_runs(), before)
        self.assertEqual(srv.psql("SELECT count(*) FROM commits WHERE sha = '%s'" % sha("3")),
                         "0")

    def test_job_id_zero_refused(self):
        self.refused(self.post(result_doc(sha("3"), job_id=0)), 400, "job_id")


class Typos(Case):
    """A misspelt field is refused and named, never run with the default."""

    def test_job_typos_refused_and_nothing_queued(self):
        before = srv.psql("SELECT count(*) FROM jobs")
        base = {"commit": sha("e"), "kconfig": "host", "testcase": "small-allocs",
                "params": {"nr_task": 1}}
        for typo in ("repat", "tbox_grop", "paramz"):
            r = srv.post("/api/v1/jobs", dict(base, **{typo: 3}), scope="submit")
            self.refused(r, 400, typo)
            self.assertIn("unknown field '%s' (known: tree, commit" % typo,
                          r.json()["error"]["message"])
        self.assertEqual(srv.psql("SELECT count(*) FROM jobs"), before)
        r = srv.post("/api/v1/jobs", dict(base, repeat=3), scope="submit")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(srv.psql("SELECT repeat FROM jobs WHERE id = %d" % r.json()["id"]), "3")

    def test_machine_params_checked_at_submit(self):
        """The params that shape the guest (lib/vmspec.h) are checked before
        anything is stored, each bad one named; good ones go on to the next
        check (here: no such tree)."""
        before = srv.psql("SELECT count(*) FROM jobs")
        base = {"tree": "nosuch", "commit": sha("e"), "kconfig": "x86_64-defconfig",
                "testcase": "small-allocs"}
        for params, field, words in (
                ({"vcpus": 0}, "params.vcpus", "'vcpus' is a whole number 1..1024"),
                ({"vcpus": "many"}, "params.vcpus", "1..1024"),
                ({"accel": "xen"}, "params.accel", "\"kvm\", \"tcg\" or \"kexec\""),
                ({"pin": "yes"}, "params.pin", "true or false"),
                ({"hugepages": "4K"}, "params.hugepages", "\"2M\", \"1G\" or \"none\""),
                ({"numa": "all"}, "params.numa", "\"host\" or a node count 1..64"),
                ({"vcpus": 2, "numa": 4}, "params.numa", "at most 'vcpus' nodes"),
                ({"measure": "icount", "vcpus": 4}, "params.vcpus", "icount runs one vCPU"),
                ({"measure": "icount", "accel": "kvm"}, "params.accel", "icount is TCG's")):
            r = srv.post("/api/v1/jobs", dict(base, params=params), scope="submit")
            self.refused(r, 400, field)
            self.assertIn(words, r.json()["error"]["message"])
        # host mode has no guest to shape
        r = srv.post("/api/v1/jobs", {"commit": sha("e"), "kconfig": "host",
                                      "testcase": "small-allocs", "params": {"pin": True}},
                     scope="submit")
        self.refused(r, 400, "params.pin")
        # nor instructions to count: icount is qemu's (an A/B request's 400 "measure" too)
        r = srv.post("/api/v1/jobs", {"commit": sha("e"), "kconfig": "host",
                                      "testcase": "small-allocs",
                                      "params": {"measure": "icount"}}, scope="submit")
        self.refused(r, 400, "params.measure")
        self.assertIn("needs qemu", r.json()["error"]["message"])
        self.assertEqual(srv.psql("SELECT count(*) FROM jobs"), before)
        good = {"accel": "kvm", "vcpus": 16, "pin": True, "hugepages": "2M", "numa": "host"}
        r = srv.post("/api/v1/jobs", dict(base, params=good), scope="submit")
        self.refused(r, 404, "tree", code="not_found")

    def test_request_typos_refused_naming_the_field(self):
        body = {"tree": "none", "base": "master", "head": "topic", "targets": ["x86_64"],
                "testcases": [{"testcase": "small-allocs", "params": {}}]}
        self.refused(srv.post("/api/v1/requests", dict(body, repat=3), scope="submit"), 400,
                     "repat")
        tcs = [{"testcase": "small-allocs", "paramz": {"nr_task": 2}}]
        self.refused(srv.post("/api/v1/requests", dict(body, testcases=tcs), scope="submit"),
                     400, "testcases.paramz")
        # spelt right, the same body goes on to the next check (no such tree)
        r = srv.post("/api/v1/requests", body, scope="submit")
        self.refused(r, 404, "tree", code="not_found")

    def test_result_machine_typo_refused_and_nothing_stored(self):
        before = nr_runs()
        m = machine(hostname="typo-1")
        m["tbox_grop"] = m.pop("tbox_group")
        self.refused(self.post(result_doc(sha("e"), machine=m)), 400, "machine.tbox_grop")
        self.assertEqual(nr_runs(), before)
        self.assertEqual(srv.psql("SELECT count(*) FROM machines WHERE hostname = 'typo-1'"),
                         "0")


class Dates(Case):

    BAD = [
        "0000-01-01T00:00:00Z",        # year 0: PostgreSQL refuses it
        "2026-02-30T00:00:00Z",
        "2023-02-29T00:00:00Z",        # not a leap year
        "1900-02-29T00:00:00Z",        # divisible by 100, not by 400
        "2026-04-31T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-00-10T00:00:00Z",
        "2026-01-00T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T23:60:00Z",
        "2026-01-01T23:59:61Z",
        "2016-12-31T23:59:60.5Z",      # leap second with a fraction: PostgreSQL refuses it
        "2026-01-01T00:00:00+25:00",
        "2026-01-01T00:00:00+16:00",   # PostgreSQL: time zone displacement out of range
        "2026-01-01T00:00:00-23:59",
        "2026-01-01T00:00:00+05:60",
    ]
    GOOD = [
        "2024-02-29T12:00:00Z",
        "2000-02-29T00:00:00.123456789+15:59",
        "2016-12-31T23:59:60Z",
        "0001-01-01T00:00:00+15:00",
        "9999-12-31T23:59:59-15:59",
        "2026-06-30 08:00:00z",
    ]

    def test_impossible_dates_refused_naming_the_field(self):
        before = nr_runs()
        for field in ("commit_time", "started_at"):
            for s in self.BAD:
                r = self.post(result_doc(sha("4"), **{field: s}))
                self.refused(r, 400, field)
        self.assertEqual(nr_runs(), before)

    def test_edge_dates_stored(self):
        for i, s in enumerate(self.GOOD):
            commit = sha("%x" % (i + 5))
            r = self.post(result_doc(commit, commit_time=s, started_at=s))
            self.assertEqual(r.status, 201, (s, r))
            got = srv.psql("SELECT c.commit_time = '%s'::timestamptz AND r.started_at = c.commit_time "
                           "FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '%s'"
                           % (s, commit))
            self.assertEqual(got, "t", s)


class BigNumbers(Case):

    def test_integer_literals_past_int64_named_by_path(self):
        cases = [
            ({"metrics": {"m.x": [1, 2, 12345678901234567890]}}, "metrics.m.x[2]"),
            ({"machine": machine(nr_cpus=2**63)}, "machine.nr_cpus"),
            ({"params": {"n": -2**63 - 1}}, "params.n"),
            ({"x": {"y": [0, {"z": 10**30}]}}, "x.y[1].z"),
        ]
        before = nr_runs()
        for extra, path in cases:
            doc = result_doc(sha("c"))
            doc.update(extra)
            r = self.post(doc)
            self.refused(r, 400, path)
            self.assertIn("out of range", r.json()["error"]["message"])
        self.assertEqual(nr_runs(), before)

    def test_numbers_jansson_cannot_hold_named_exactly(self):
        # raw bodies: a real past DBL_MAX, the int64 limit itself ahead of the
        # bad number, keys with escapes, arrays in arrays
        doc = result_doc(sha("c"))
        head = json.dumps(doc)[:-1]
        cases = [
            (', "x": [[1, 2], [3, 1e400]]}', "x[1][1]", "1e400"),
            (', "lim": 9223372036854775807, "a\\"b\\u00e9": {"c": [9223372036854775808]}}',
             'a"b\u00e9.c[0]', "9223372036854775808"),
            (', "a\\"b\\u00e9": {"c": [0, -1E+999]}}', 'a"b\u00e9.c[1]', "-1E+999"),
            (', "e": [{}, [], {"f": "1e999,", "g": [true, null, 18446744073709551616]}]}',
             "e[2].g[2]", "18446744073709551616"),
        ]
        before = nr_runs()
        for tail, path, num in cases:
            r = srv.post("/api/v1/results", raw=(head + tail).encode(), scope="submit")
            self.refused(r, 400, path)
            self.assertIn(num, r.json()["error"]["message"])
        self.assertEqual(nr_runs(), before)

    def test_generated_bodies_name_the_right_path(self):
        # 400 bodies (fixed seed) of nested objects and arrays with tricky
        # keys and strings ('1e999,', brackets, quotes, backslashes), one
        # number jansson cannot hold at a random place: the path the server
        # names is the one the generator put it at
        rnd = random.Random(20261130)
        keys = ["a", "b\"c", "x.y", "\u00e9t\u00e9", "back\\slash", "k1", "[0]", "sp ace"]
        strings = ["1e999,", "]}", "{[", "\"", "\\", "-5", "", "\u2028"]
        bad = ["1e999", "-1E+400", "18446744073709551616", "-9223372036854775809"]

        def gen(depth, path, slot):
            # returns (text, path of the bad number or None); slot[0] counts
            # down the leaves until the bad number
            kind = rnd.choice("oa" if depth < 2 else "oasnlv" if depth < 5 else "snlv")
            if kind in "oa":
                n, parts, found = rnd.randint(0, 4), [], None
                names = rnd.sample(keys, n) if kind == "o" else range(n)
                for k in names:
                    sub = ("%s.%s" % (path, k) if path else k) if kind == "o" \
                        else "%s[%d]" % (path, k)
                    text, p = gen(depth + 1, sub, slot)
                    found = found or p
                    parts.append(json.dumps(k) + ": " + text if kind == "o" else text)
                return ("{%s}" if kind == "o" else "[%s]") % ", ".join(parts), found
            slot[0] -= 1
            if slot[0] == 0:
                return rnd.choice(bad), path
            return {"s": lambda: json.dumps(rnd.choice(strings)),
                    "n": lambda: rnd.choice(["0", "-1.5e3", "9223372036854775807", "2"]),
                    "l": lambda: rnd.choice(["true", "false", "null"]),
                    "v": lambda: "[]"}[kind](), None

        tried = 0
        for _ in range(400):
            slot = [rnd.randint(1, 6)]
            body, path = gen(0, "", slot)
            if path is None or not body.startswith("{"):
                continue
            tried += 1
            r = srv.post("/api/v1/results", raw=body.encode(), scope="submit")
            self.refused(r, 400, path)
        self.assertGreater(tried, 100)

    def test_reals_past_2_63_named_by_path(self):
        # reals stay refused past +-2^63: jsonb gives 1e19 back as an
        # integer literal jansson cannot read (see bad_number in http.c)
        cases = [
            ({"metrics": {"m.y": [1.5, 1e19]}}, "metrics.m.y[1]"),
            ({"machine": machine(nr_cpus=1e19)}, "machine.nr_cpus"),
            ({"params": {"a": "b", "n": -1e308}}, "params.n"),
        ]
        for extra, path in cases:
            doc = result_doc(sha("c"))
            doc.update(extra)
            self.refused(self.post(doc), 400, path)

    def test_other_routes_name_the_path_too(self):
        r = srv.post("/api/v1/jobs", {"commit": sha("a"), "kconfig": "host",
                                      "testcase": "small-allocs", "tbox_group": "b",
                                      "params": {"n": 2**64}}, scope="submit")
        self.refused(r, 400, "params.n")

    def test_int64_limits_pass(self):
        doc = result_doc(sha("d"), x=[INT64_MAX, -2**63], machine=machine(memory_mb=INT64_MAX,
                                                                          hostname="lim"))
        r = self.post(doc)
        self.assertEqual(r.status, 201, r)
        got = srv.get("/api/v1/runs/" + doc["run_id"]).json()
        self.assertEqual(got["extra"], {"x": [INT64_MAX, -2**63]})


def register(host):
    r = srv.post("/api/v1/workers/register", {
        "hostname": host, "arch": "x86_64", "tbox_group": "vm-2p", "nr_cpus": 2,
        "memory_mb": 2048, "cpu_model": "test", "capabilities": ["host"],
        "fingerprint": {}}, scope="worker")
    assert r.status == 200, r
    return r.json()["machine_id"]


class JobDocuments(Case):
    """Documents that carry a job_id: POST /api/v1/results and completions."""

    def leased_job(self, commit, host):
        m = register(host)
        r = srv.post("/api/v1/jobs", {"commit": commit, "kconfig": "host",
                                      "testcase": "small-allocs", "tbox_group": "vm-2p",
                                      "params": {"nr_task": 1}}, scope="submit")
        self.assertEqual(r.status, 201, r)
        jid = r.json()["id"]
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 0}, scope="worker")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["job"]["id"], jid)
        return jid, m

    def doc(self, commit, jid, testcase="small-allocs", **kw):
        return result_doc(commit, testcase=testcase, job_id=jid, kconfig="host",
                          params={"nr_task": 1},
                          metrics={"small-allocs.throughput": [1000.0]}, **kw)

    def complete(self, jid, m, docs):
        return srv.post("/api/v1/jobs/%d/complete" % jid,
                        {"machine_id": m, "status": "ok", "results": docs}, scope="worker")

    def runs_of(self, jid):
        return int(srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid))

    def test_completion_names_the_bad_document(self):
        jid, m = self.leased_job(sha("e"), "val-w1")
        docs = [self.doc(sha("e"), jid), self.doc(sha("e"), jid, machine=machine(nr_cpus=2**31))]
        self.refused(self.complete(jid, m, docs), 400, "results[1].machine.nr_cpus")
        docs[1] = self.doc(sha("e"), jid, commit_time="2026-02-30T00:00:00Z")
        self.refused(self.complete(jid, m, docs), 400, "results[1].commit_time")
        docs[1] = self.doc(sha("f"), jid)
        self.refused(self.complete(jid, m, docs), 400, "results[1].commit")
        docs[1] = self.doc(sha("e"), jid, testcase="hackbench")
        self.refused(self.complete(jid, m, docs), 400, "results[1].testcase")
        # nothing stored, the job still leased: the right completion goes through
        self.assertEqual(self.runs_of(jid), 0)
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["state"], "leased")
        docs[1] = self.doc(sha("e"), jid)
        r = self.complete(jid, m, docs)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(self.runs_of(jid), 2)

    def test_posted_result_must_match_its_job(self):
        jid, _ = self.leased_job(sha("b"), "val-w2")

        def post(doc):  # the token whose machine leased the job (test_refusals: others 403)
            return srv.post("/api/v1/results", doc, scope="worker")
        self.refused(post(self.doc(sha("a"), jid)), 400, "commit")
        self.refused(post(self.doc(sha("b"), jid, testcase="hackbench")), 400, "testcase")
        self.assertEqual(self.runs_of(jid), 0)
        r = post(self.doc(sha("b"), jid))
        self.assertEqual(r.status, 201, r)
        self.assertEqual(self.runs_of(jid), 1)


if __name__ == "__main__":
    unittest.main()
