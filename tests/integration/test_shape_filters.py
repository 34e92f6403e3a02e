"""The machine shape (lib/vmspec.h) after its one spelling, where it is read
and posted again: the params= filter of the read endpoints (series,
compare, profile-diff, `regtrack compare --params`) finds a setup stored
in another spelling before the server rewrote it as well as the one
spelling's, and refuses a bad shape as an upload does; a run posted again
in another spelling of its shape is the same run; a results upload of
kconfig host that names a guest's shape is refused as a host job is."""
import hashlib
import json
import os
import subprocess
import sys
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server, result_doc, sha  # noqa: E402

METRIC = "vm-scalability.throughput"
OLD = {"accel": "tcg", "pin": "true", "test": "small-allocs", "vcpus": "2"}
ONE = {"accel": "tcg", "pin": True, "test": "small-allocs", "vcpus": 2}
BASE, HEAD = sha("a1"), sha("a2")


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


def key(params):
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


def post(doc, status=201):
    r = srv.post("/api/v1/results", doc, scope="submit")
    assert r.status == status, (r, doc)
    return r


def quoted(params):
    return urllib.parse.quote(json.dumps(params))


class Filter(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # a setup stored in the spelling of the document, as the server did before it
        # wrote the one spelling: made so by hand, as the tryout did
        for commit, v in ((BASE, 10.0), (HEAD, 11.0)):
            post(result_doc(commit, testcase="sf-old", params=OLD, metrics={METRIC: [v]}))
        cls.old_id = int(srv.psql("SELECT s.id FROM setups s JOIN testcases t "
                                  "ON t.id = s.testcase_id WHERE t.name = 'sf-old'"))
        srv.psql("UPDATE setups SET params = '%s', params_key = '%s' WHERE id = %d"
                 % (key(OLD), key(OLD), cls.old_id))
        # that spelling posted now: the one spelling's setup, a series of its own
        for commit, v in ((BASE, 20.0), (HEAD, 21.0), (HEAD, 22.0)):
            post(result_doc(commit, testcase="sf-old", params=OLD, metrics={METRIC: [v]}))
        cls.one_id = int(srv.psql("SELECT s.id FROM setups s JOIN testcases t "
                                  "ON t.id = s.testcase_id WHERE t.name = 'sf-old' "
                                  "AND s.id <> %d" % cls.old_id))

    def series(self, params):
        r = srv.get("/api/v1/series?testcase=sf-old&metric=%s&params=%s"
                    % (METRIC, quoted(params)))
        self.assertEqual(r.status, 200, r)
        return {s["setup"]["id"]: (s["setup"]["params"], sorted(s["points"]["value"]))
                for s in r.json()["series"]}

    def test_series_finds_the_older_spelling_and_the_one(self):
        self.assertEqual(self.series(OLD), {self.old_id: (OLD, [10.0, 11.0]),
                                            self.one_id: (ONE, [20.0, 21.0, 22.0])})
        # the one spelling, and another spelling no setup has: the one spelling's only
        self.assertEqual(self.series(ONE), {self.one_id: (ONE, [20.0, 21.0, 22.0])})
        self.assertEqual(self.series(dict(ONE, pin=1, vcpus="2")),
                         {self.one_id: (ONE, [20.0, 21.0, 22.0])})
        # the whole params: a part of them is no match
        self.assertEqual(self.series({"test": "small-allocs"}), {})

    def test_compare_and_the_cli_find_both(self):
        r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=sf-old&params=%s"
                    % (BASE, HEAD, quoted(OLD)))
        self.assertEqual(r.status, 200, r)
        self.assertEqual(sorted((s["id"], key(s["params"])) for s in r.json()["setups"]),
                         [(self.old_id, key(OLD)), (self.one_id, key(ONE))])
        env = dict(os.environ, REGTRACK_SERVER=srv.url, REGTRACK_TOKEN=srv.tokens["read"])
        out = subprocess.run([os.path.join(BIN, "regtrack"), "compare", "--base", BASE,
                              "--head", HEAD, "--testcase", "sf-old", "--params",
                              json.dumps(OLD)],
                             env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(sorted(s["id"] for s in json.loads(out.stdout)["setups"]),
                         [self.old_id, self.one_id])
        out = subprocess.run([os.path.join(BIN, "regtrack"), "compare", "--base", BASE,
                              "--head", HEAD, "--testcase", "sf-old", "--params",
                              "pin=yes,test=small-allocs"],
                             env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 2, out)
        self.assertIn("'pin' is true or false", out.stderr)
        self.assertIn("params.pin", out.stderr)

    def test_a_bad_shape_is_refused_naming_the_field(self):
        bad = (({"test": "x", "pin": "yes"}, "params.pin", "'pin' is true or false"),
               ({"test": "x", "vcpus": 0}, "params.vcpus", "'vcpus' is a whole number 1..1024"),
               ({"vcpus": 2, "numa": 4}, "params.numa", "'numa' is at most 'vcpus' nodes"))
        for params, detail, words in bad:
            # the words of an upload of that shape
            r = srv.post("/api/v1/results", result_doc(BASE, testcase="sf-bad", params=params),
                         scope="submit")
            up = r.json()["error"]
            self.assertEqual((r.status, up["detail"]), (400, detail), r)
            self.assertTrue(up["message"].startswith(words), up)
            for path in ("/api/v1/series?testcase=sf-old&metric=%s&params=%s"
                         % (METRIC, quoted(params)),
                         "/api/v1/compare?base=%s&head=%s&params=%s"
                         % (BASE, HEAD, quoted(params)),
                         "/api/v1/profile-diff?base=%s&head=%s&params=%s"
                         % (BASE, HEAD, quoted(params))):
                r = srv.get(path)
                self.assertEqual(r.status, 400, (path, r))
                err = r.json()["error"]
                self.assertEqual((err["code"], err["detail"], err["message"]),
                                 ("invalid_field", detail, up["message"]), path)

    def test_a_setup_stored_with_a_bad_shape_is_still_found_by_it(self):
        # an upload before uploads were checked could store any value: made so by hand
        legacy = {"test": "legacy", "pin": "maybe"}
        post(result_doc(BASE, testcase="sf-legacy", params={"test": "legacy", "pin": True},
                        metrics={METRIC: [7.0]}))
        sid = int(srv.psql("SELECT s.id FROM setups s JOIN testcases t "
                           "ON t.id = s.testcase_id WHERE t.name = 'sf-legacy'"))
        srv.psql("UPDATE setups SET params = '%s', params_key = '%s' WHERE id = %d"
                 % (key(legacy), key(legacy), sid))
        r = srv.get("/api/v1/series?testcase=sf-legacy&metric=%s&params=%s"
                    % (METRIC, quoted(legacy)))
        self.assertEqual(r.status, 200, r)
        self.assertEqual([(s["setup"]["id"], s["points"]["value"]) for s in r.json()["series"]],
                         [(sid, [7.0])])
        # a bad value no setup has is the upload's 400
        r = srv.get("/api/v1/series?testcase=sf-legacy&metric=%s&params=%s"
                    % (METRIC, quoted(dict(legacy, pin="perhaps"))))
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "params.pin"), r)


class Idempotency(unittest.TestCase):
    def test_another_spelling_of_the_shape_is_the_same_run(self):
        doc = result_doc(sha("b1"), testcase="sf-idem", params=dict(OLD, pin="1"))
        post(doc)
        for params in (ONE, dict(ONE, pin=1), dict(OLD, pin="1")):
            r = post(dict(doc, params=params), status=200)
            self.assertFalse(r.json()["created"], r)
        # the case's own params are its own: "small-allocs" and another test differ
        r = srv.post("/api/v1/results", dict(doc, params=dict(ONE, test="big")),
                     scope="submit")
        self.assertEqual(r.status, 409, r)
        self.assertEqual(int(srv.psql("SELECT count(*) FROM runs WHERE run_id = '%s'"
                                      % doc["run_id"])), 1)

    def test_run_stored_with_the_hash_of_its_params_as_posted_still_matches(self):
        doc = result_doc(sha("b2"), testcase="sf-idem", params=dict(OLD, pin="1"),
                         metrics={"sf.y": [3, 4.5]})
        post(doc)

        # the hash a run stored before the shape was rewritten carries: the document
        # as posted, keys sorted, compact, integers as reals (these are exact in
        # both Python's and jansson's writing of reals)
        def reals(v):
            if isinstance(v, bool):
                return v
            if isinstance(v, int):
                return float(v)
            if isinstance(v, dict):
                return {k: reals(x) for k, x in v.items()}
            if isinstance(v, list):
                return [reals(x) for x in v]
            return v
        as_posted = hashlib.sha256(json.dumps(reals(doc), sort_keys=True,
                                              separators=(",", ":")).encode()).hexdigest()
        srv.psql("UPDATE runs SET doc_sha256 = decode('%s', 'hex') WHERE run_id = '%s'"
                 % (as_posted, doc["run_id"]))
        r = post(doc, status=200)
        self.assertFalse(r.json()["created"], r)
        r = srv.post("/api/v1/results", dict(doc, metrics={"sf.y": [3, 5]}), scope="submit")
        self.assertEqual(r.status, 409, r)


class HostMode(unittest.TestCase):
    def test_a_host_result_naming_a_guest_shape_is_refused_like_a_job(self):
        before = int(srv.psql("SELECT count(*) FROM runs"))
        for params, detail in (({"pin": True}, "params.pin"), ({"pin": "true"}, "params.pin"),
                               ({"vcpus": "2"}, "params.vcpus"),
                               ({"accel": "tcg", "numa": 1}, "params.accel"),
                               ({"hugepages": "2M"}, "params.hugepages")):
            r = srv.post("/api/v1/results", result_doc(sha("c1"), testcase="sf-host",
                                                       kconfig="host",
                                                       params=dict(params, test="x")),
                         scope="submit")
            self.assertEqual(r.status, 400, (params, r))
            err = r.json()["error"]
            key_ = detail.split(".")[1]
            self.assertEqual((err["code"], err["detail"], err["message"]),
                             ("invalid_field", detail,
                              "'%s' shapes a qemu guest; kconfig \"host\" runs on the host"
                              % key_), params)
        self.assertEqual(int(srv.psql("SELECT count(*) FROM runs")), before)
        # the case's own params, and measure wallclock (a host run's own), are fine
        post(result_doc(sha("c1"), testcase="sf-host", kconfig="host",
                        params={"test": "x", "nr_task": 2, "measure": "wallclock"}))
        # a guest's shape with a kernel kconfig is as before
        post(result_doc(sha("c1"), testcase="sf-host", params={"test": "x", "pin": True}))

    def test_a_host_result_saying_what_absence_says_is_one_setup(self):
        # pin false and hugepages "none" ask a host for nothing: the run is stored under
        # the setup of the same params without them (one series, as vmspec_canonical says)
        post(result_doc(sha("c2"), testcase="sf-host-abs", kconfig="host",
                        params={"test": "x"}))
        for params in ({"pin": False}, {"pin": "false", "hugepages": "none"}, {"pin": 0}):
            post(result_doc(sha("c2"), testcase="sf-host-abs", kconfig="host",
                            params=dict(params, test="x")))
        self.assertEqual(srv.psql(
            "SELECT count(DISTINCT s.id) || ' ' || count(*) || ' ' || min(s.params_key) "
            "FROM runs r JOIN setups s ON s.id = r.setup_id "
            "JOIN testcases t ON t.id = s.testcase_id WHERE t.name = 'sf-host-abs'"),
            '1 4 {"test":"x"}')

    def test_a_host_result_measured_by_icount_is_refused(self):
        before = int(srv.psql("SELECT count(*) FROM runs"))
        for extra, detail in (({"mode": "icount"}, "mode"),
                              ({"params": {"test": "x", "measure": "icount"}}, "params.measure")):
            doc = dict(result_doc(sha("c1"), testcase="sf-host", kconfig="host",
                                  params={"test": "x"}), **extra)
            r = srv.post("/api/v1/results", doc, scope="submit")
            self.assertEqual(r.status, 400, (extra, r))
            err = r.json()["error"]
            self.assertEqual((err["code"], err["detail"]), ("invalid_field", detail))
            self.assertIn("kconfig \"host\" measures wall-clock time", err["message"])
        self.assertEqual(int(srv.psql("SELECT count(*) FROM runs")), before)

    def test_a_run_whose_mode_contradicts_its_setup_is_refused(self):
        before = int(srv.psql("SELECT count(*) FROM runs"))
        doc = dict(result_doc(sha("c1"), testcase="sf-mode", params={"measure": "icount"}),
                   mode="wallclock")
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertEqual(r.status, 400, r)
        self.assertEqual(r.json()["error"]["detail"], "mode")
        self.assertEqual(r.json()["error"]["message"],
                         "'mode' \"wallclock\" contradicts params.measure \"icount\"")
        self.assertEqual(int(srv.psql("SELECT count(*) FROM runs")), before)


if __name__ == "__main__":
    unittest.main()
