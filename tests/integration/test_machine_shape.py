"""A job's machine shape (lib/vmspec.h: measure, accel, vcpus, pin,
hugepages, numa) is one setup however it is spelled.

A command line's k=v gives "pin": "true" and "vcpus": "2", the API
"pin": true, a plan "pin": 1; the server stores the one form (pin a
boolean, vcpus and a numa node count integers) wherever params enter:
results (so three spellings are one setup and one series), jobs, plans,
A/B requests, bisects and the series filter's params=; a value that means
what leaving the key out means (pin false, hugepages "none", measure
"wallclock") is left out, and a filter naming it still finds a setup stored
with it. The case's own params are its own: "nr_task": "4" stays text."""
import json
import os
import sys
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import resolved, result_doc, sha, wait_until  # noqa: E402
from fakes import git, git_init, stop_tree_server, tree_server  # noqa: E402

METRIC = "small-allocs.throughput"
SHAPE = {"nr_task": "4", "accel": "tcg", "pin": True, "vcpus": 2, "numa": 1}


def make_tree(path):
    git_init(path)
    with open(os.path.join(path, "mm.c"), "w") as f:
        f.write("int x;\n")
    git(path, "add", "mm.c")
    git(path, "commit", "-q", "-m", "mm: base", date="2026-01-01T00:00:00Z")
    c0 = git(path, "rev-parse", "HEAD")
    git(path, "commit", "-q", "--allow-empty", "-m", "mm: head", date="2026-01-01T00:01:00Z")
    return {"c0": c0, "c1": git(path, "rev-parse", "HEAD")}


class MachineShape(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.tree, cls.srv = tree_server("regtrack-shape-", make_tree,
                                                           "detect_enabled = 0\n")
        srv = cls.srv
        r = srv.post("/api/v1/trees", {"name": "shape", "url": cls.repo, "branches": ["master"]},
                     scope="admin")
        assert r.status == 200, r
        wait_until(lambda: [t for t in srv.get("/api/v1/trees").json()
                            if t["name"] == "shape" and t["commits"] >= 2], what="mirror")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def post_result(self, commit, params, value, testcase="shape-res"):
        doc = result_doc(commit, testcase=testcase, params=params, tree="shape",
                         metrics={METRIC: [value]})
        r = self.srv.post("/api/v1/results", doc, scope="submit")
        return r, doc

    def test_three_spellings_are_one_setup_and_one_series(self):
        srv = self.srv
        spellings = [dict(SHAPE, pin=True, vcpus=2, numa=1),
                     dict(SHAPE, pin="true", vcpus="2", numa="1"),
                     dict(SHAPE, pin=1, vcpus=2, numa="1")]
        docs = []
        for i, params in enumerate(spellings):
            r, doc = self.post_result(sha("%x" % (i + 1)), params, 100.0 + i)
            self.assertEqual(r.status, 201, r)
            docs.append(doc)
        rows = srv.psql("SELECT s.params_key FROM setups s JOIN testcases t ON t.id = "
                        "s.testcase_id WHERE t.name = 'shape-res'").splitlines()
        self.assertEqual(rows, [json.dumps(SHAPE, sort_keys=True, separators=(",", ":"))])
        r = srv.get("/api/v1/series?testcase=shape-res&metric=" + METRIC)
        self.assertEqual(r.status, 200, r)
        series = r.json()["series"]
        self.assertEqual(len(series), 1, series)
        self.assertEqual(series[0]["setup"]["params"], SHAPE)
        self.assertEqual(sorted(series[0]["points"]["value"]), [100.0, 101.0, 102.0])
        # the filter as a command line spells it finds that series
        q = urllib.parse.quote(json.dumps(dict(SHAPE, pin="true", vcpus="2")))
        r = srv.get("/api/v1/series?testcase=shape-res&metric=%s&params=%s" % (METRIC, q))
        self.assertEqual(r.status, 200, r)
        self.assertEqual([len(s["points"]["value"]) for s in r.json()["series"]], [3])
        # a run reads back the stored form; the document posted again is the same run
        self.assertEqual(srv.get("/api/v1/runs/" + docs[1]["run_id"]).json()["params"], SHAPE)
        r = srv.post("/api/v1/results", docs[1], scope="submit")
        self.assertEqual((r.status, r.json()["created"]), (200, False), r)

    def series(self, testcase, params=None):
        q = "" if params is None else "&params=" + urllib.parse.quote(json.dumps(params))
        r = self.srv.get("/api/v1/series?testcase=%s&metric=%s%s" % (testcase, METRIC, q))
        self.assertEqual(r.status, 200, r)
        return {s["setup"]["id"]: (s["setup"]["params"], sorted(s["points"]["value"]))
                for s in r.json()["series"]}

    def test_an_explicit_default_is_the_setup_without_it(self):
        srv = self.srv
        one = {"nr_task": 4, "vcpus": 4}
        written = [dict(one, pin=False), dict(one),
                   dict(one, pin="0", vcpus="4", hugepages="none", measure="wallclock")]
        docs = []
        for i, params in enumerate(written):
            r, doc = self.post_result(sha("d%x" % i), params, 200.0 + i, testcase="shape-dflt")
            self.assertEqual(r.status, 201, r)
            docs.append(doc)
        rows = srv.psql("SELECT s.params_key FROM setups s JOIN testcases t ON t.id = "
                        "s.testcase_id WHERE t.name = 'shape-dflt'").splitlines()
        self.assertEqual(rows, ['{"nr_task":4,"vcpus":4}'])
        (sid, got), = self.series("shape-dflt").items()
        self.assertEqual(got, (one, [200.0, 201.0, 202.0]))
        # the filter with the default written finds it, as the one without
        self.assertEqual(self.series("shape-dflt", dict(one, pin=False)), {sid: got})
        self.assertEqual(self.series("shape-dflt", dict(one, hugepages="none")), {sid: got})
        self.assertEqual(self.series("shape-dflt", one), {sid: got})
        # the first document posted again without pin is the same run
        r = srv.post("/api/v1/results", dict(docs[0], params=one), scope="submit")
        self.assertEqual((r.status, r.json()["created"]), (200, False), r)
        # a job and a plan store it without the default too
        r = srv.post("/api/v1/jobs", {
            "tree": "shape", "commit": self.tree["c0"], "kconfig": "x86_64-defconfig",
            "testcase": "small-allocs", "params": dict(one, pin="false", measure="wallclock")},
            scope="submit")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(srv.get("/api/v1/jobs/%d" % r.json()["id"]).json()["params"], one)
        srv.post("/api/v1/jobs/%d/cancel" % r.json()["id"], scope="submit")
        r = srv.post("/api/v1/plans", {
            "name": "shape-dflt", "tree": "shape", "branches": ["master"],
            "testcases": [{"testcase": "small-allocs", "params": dict(one, pin=0)}],
            "kconfigs": ["x86_64-defconfig"], "targets": ["x86_64"], "enabled": False},
            scope="admin")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(srv.get("/api/v1/plans/shape-dflt").json()["testcases"][0]["params"],
                         one)

    def test_a_setup_stored_with_an_explicit_default_is_still_found(self):
        srv = self.srv
        old = {"nr_task": 4, "pin": False, "vcpus": 4}
        old_key = json.dumps(old, sort_keys=True, separators=(",", ":"))
        # stored with pin false as the server did before it left defaults out: made so
        # by hand
        r, _ = self.post_result(sha("e1"), old, 10.0, testcase="shape-dflt-old")
        self.assertEqual(r.status, 201, r)
        old_id = int(srv.psql("SELECT s.id FROM setups s JOIN testcases t ON t.id = "
                              "s.testcase_id WHERE t.name = 'shape-dflt-old'"))
        srv.psql("UPDATE setups SET params = '%s', params_key = '%s' WHERE id = %d"
                 % (old_key, old_key, old_id))
        self.assertEqual(self.series("shape-dflt-old", old), {old_id: (old, [10.0])})
        # that shape posted now: the setup without pin, a series of its own
        r, _ = self.post_result(sha("e2"), old, 20.0, testcase="shape-dflt-old")
        self.assertEqual(r.status, 201, r)
        one = {"nr_task": 4, "vcpus": 4}
        new_id = int(srv.psql("SELECT s.id FROM setups s JOIN testcases t ON t.id = "
                              "s.testcase_id WHERE t.name = 'shape-dflt-old' "
                              "AND s.id <> %d" % old_id))
        # the default written finds both; left out, the one spelling's only
        self.assertEqual(self.series("shape-dflt-old", old),
                         {old_id: (old, [10.0]), new_id: (one, [20.0])})
        self.assertEqual(self.series("shape-dflt-old", dict(old, pin="false")),
                         {new_id: (one, [20.0])})
        self.assertEqual(self.series("shape-dflt-old", one), {new_id: (one, [20.0])})

    def test_bad_shape_in_results_is_refused_naming_the_field(self):
        before = self.srv.psql("SELECT count(*) FROM runs")
        for params, detail in (({"pin": "yes"}, "params.pin"),
                               ({"vcpus": "2x"}, "params.vcpus"),
                               ({"numa": "3", "vcpus": "2"}, "params.numa")):
            r, _ = self.post_result(sha("9"), params, 1.0, testcase="shape-bad")
            self.assertEqual(r.status, 400, (params, r))
            err = r.json()["error"]
            self.assertEqual((err["code"], err["detail"]), ("invalid_field", detail), err)
        self.assertEqual(self.srv.psql("SELECT count(*) FROM runs"), before)

    def test_job_stores_the_one_form(self):
        r = self.srv.post("/api/v1/jobs", {
            "tree": "shape", "commit": self.tree["c0"], "kconfig": "x86_64-defconfig",
            "testcase": "small-allocs", "params": dict(SHAPE, pin="true", vcpus="2", numa=1)},
            scope="submit")
        self.assertEqual(r.status, 201, r)
        jid = r.json()["id"]
        self.assertEqual(self.srv.get("/api/v1/jobs/%d" % jid).json()["params"], SHAPE)
        self.assertEqual(self.srv.psql("SELECT params->'pin' FROM jobs WHERE id = %d" % jid),
                         "true")
        self.srv.post("/api/v1/jobs/%d/cancel" % jid, scope="submit")
        r = self.srv.post("/api/v1/jobs", {
            "tree": "shape", "commit": self.tree["c0"], "kconfig": "x86_64-defconfig",
            "testcase": "small-allocs", "params": {"pin": "on"}}, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "params.pin"), r)

    def test_plan_stores_the_one_form(self):
        plan = {"name": "shape-plan", "tree": "shape", "branches": ["master"],
                "testcases": [{"testcase": "small-allocs",
                               "params": dict(SHAPE, pin=1, vcpus="2", numa="1")}],
                "kconfigs": ["x86_64-defconfig"], "targets": ["x86_64"], "enabled": False}
        r = self.srv.post("/api/v1/plans", plan, scope="admin")
        self.assertEqual(r.status, 201, r)
        got = self.srv.get("/api/v1/plans/shape-plan").json()
        self.assertEqual(got["testcases"][0]["params"], SHAPE)
        bad = dict(plan, name="shape-bad",
                   testcases=[{"testcase": "small-allocs", "params": {"pin": "1.0"}}])
        r = self.srv.post("/api/v1/plans", bad, scope="admin")
        self.assertEqual((r.status, r.json()["error"]["detail"]),
                         (400, "testcases[0].params.pin"), r)

    def test_plan_with_host_refuses_a_shaped_testcase(self):
        # kconfig host runs every testcase on the host, as a host job: a shape there
        # is the host job's 400, named by the testcase's index; the same plan
        # without host, or a host plan whose testcase has no shape, is stored
        plan = {"name": "host-shape", "tree": "shape", "branches": ["master"],
                "testcases": [{"testcase": "small-allocs", "params": {"test": "a"}},
                              {"testcase": "small-allocs", "params": {"test": "b", "vcpus": 2}}],
                "kconfigs": ["x86_64-defconfig", "host"], "targets": ["x86_64"],
                "enabled": False}
        r = self.srv.post("/api/v1/plans", plan, scope="admin")
        self.assertEqual((r.status, r.json()["error"]["detail"]),
                         (400, "testcases[1].params.vcpus"), r)
        self.assertIn('kconfig \"host\" runs on the host', r.json()["error"]["message"])
        self.assertEqual(self.srv.get("/api/v1/plans/host-shape").status, 404)
        r = self.srv.post("/api/v1/plans", dict(plan, kconfigs=["x86_64-defconfig"]),
                          scope="admin")
        self.assertEqual(r.status, 201, r)
        r = self.srv.post("/api/v1/plans", dict(plan, name="host-plain", testcases=plan["testcases"][:1]),
                          scope="admin")
        self.assertEqual(r.status, 201, r)

    def test_request_and_bisect_store_the_one_form(self):
        srv = self.srv
        r = srv.post("/api/v1/requests", {
            "tree": "shape", "base": self.tree["c0"], "head": self.tree["c1"], "repeat": 2,
            "targets": ["x86_64"], "kconfig": "x86_64-defconfig",
            "testcases": [{"testcase": "small-allocs",
                           "params": dict(SHAPE, pin="true", vcpus="2", numa="1")}]},
            scope="submit")
        self.assertEqual(r.status, 202, r)
        q = resolved(srv, r)
        self.assertEqual(q["state"], "queued", q)
        self.assertTrue(q["jobs"])
        for j in q["jobs"]:
            self.assertEqual(srv.get("/api/v1/jobs/%d" % j["id"]).json()["params"], SHAPE)
        srv.post("/api/v1/requests/%d/cancel" % q["id"], scope="submit")
        r = srv.post("/api/v1/bisects", {
            "tree": "shape", "good": self.tree["c0"], "bad": self.tree["c1"],
            "testcase": "small-allocs", "params": dict(SHAPE, pin="true", vcpus="2"),
            "kconfig": "x86_64-defconfig", "metric": METRIC}, scope="submit")
        self.assertEqual(r.status, 201, r)
        bid = r.json()["id"]
        self.assertEqual(json.loads(srv.psql("SELECT params FROM bisects WHERE id = %d" % bid)),
                         SHAPE)
        srv.post("/api/v1/bisects/%d/cancel" % bid, scope="submit")

    def test_vcpus_past_the_arch_machine_are_refused_at_submit(self):
        # pc takes 255 vCPUs, virt 512 (vmspec_max_vcpus()): past that a job, an A/B
        # request's testcase, a plan's testcase and a bisect of that arch are a 400
        # naming the field and the machine's most, not jobs every worker fails
        srv = self.srv

        def refused(r, detail, most):
            self.assertEqual(r.status, 400, r)
            err = r.json()["error"]
            self.assertEqual((err["code"], err["detail"]), ("invalid_field", detail), err)
            self.assertIn("at most %d on " % most, err["message"])

        job = {"tree": "shape", "commit": self.tree["c0"], "kconfig": "x86_64-defconfig",
               "testcase": "small-allocs", "params": {"vcpus": 256}}
        refused(srv.post("/api/v1/jobs", job, scope="submit"), "params.vcpus", 255)
        refused(srv.post("/api/v1/jobs", dict(job, params={"vcpus": "1024"}), scope="submit"),
                "params.vcpus", 255)
        refused(srv.post("/api/v1/jobs", dict(job, kconfig="arm64-defconfig",
                                              params={"vcpus": 513}), scope="submit"),
                "params.vcpus", 512)
        for kconfig, n in (("x86_64-defconfig", 255), ("arm64-defconfig", 512)):
            r = srv.post("/api/v1/jobs", dict(job, kconfig=kconfig, params={"vcpus": n}),
                         scope="submit")
            self.assertEqual(r.status, 201, r)
            srv.post("/api/v1/jobs/%d/cancel" % r.json()["id"], scope="submit")
        r = srv.post("/api/v1/requests", {
            "tree": "shape", "base": self.tree["c0"], "head": self.tree["c1"], "repeat": 2,
            "targets": ["arm64", "x86_64"], "kconfig": "x86_64-defconfig",
            "testcases": [{"testcase": "small-allocs", "params": {}},
                          {"testcase": "small-allocs", "params": {"vcpus": "300"}}]},
            scope="submit")
        refused(r, "testcases[1].params.vcpus", 255)
        plan = {"name": "shape-wide", "tree": "shape", "branches": ["master"],
                "testcases": [{"testcase": "small-allocs", "params": {"vcpus": 300}}],
                "kconfigs": ["arm64-defconfig", "x86_64-defconfig"],
                "targets": ["x86_64", "arm64"], "enabled": False}
        refused(srv.post("/api/v1/plans", plan, scope="admin"), "testcases[0].params.vcpus", 255)
        self.assertEqual(srv.get("/api/v1/plans/shape-wide").status, 404)
        r = srv.post("/api/v1/plans", dict(plan, kconfigs=["arm64-defconfig"]), scope="admin")
        self.assertEqual(r.status, 201, r)
        bisect = {"tree": "shape", "good": self.tree["c0"], "bad": self.tree["c1"],
                  "testcase": "small-allocs", "params": {"vcpus": 256},
                  "kconfig": "x86_64-defconfig", "metric": METRIC}
        refused(srv.post("/api/v1/bisects", bisect, scope="submit"), "params.vcpus", 255)
        refused(srv.post("/api/v1/bisects", dict(bisect, kconfig="defconfig", arch="x86_64"),
                         scope="submit"), "params.vcpus", 255)
        self.assertEqual(srv.psql("SELECT count(*) FROM bisects WHERE params->>'vcpus' = '256'"),
                         "0")

    def test_host_bisect_with_a_shape_is_refused_unless_such_a_setup_is_stored(self):
        # a fresh bisect of kconfig host with a guest shape or measure icount is the
        # 400 a host job with them gets; a host setup stored with that shape (the runs
        # of host jobs queued before jobs were checked) is still bisected as stored
        srv = self.srv
        bisect = {"tree": "shape", "good": self.tree["c0"], "bad": self.tree["c1"],
                  "testcase": "shape-host", "kconfig": "host", "metric": METRIC,
                  "tbox_group": "tbox"}
        for params, detail, words in (({"pin": True}, "params.pin", "runs on the host"),
                                      ({"pin": "true", "nr_task": 2}, "params.pin",
                                       "runs on the host"),
                                      ({"measure": "icount"}, "params.measure", "needs qemu")):
            r = srv.post("/api/v1/bisects", dict(bisect, params=params), scope="submit")
            self.assertEqual(r.status, 400, (params, r))
            err = r.json()["error"]
            self.assertEqual((err["code"], err["detail"]), ("invalid_field", detail), err)
            self.assertIn(words, err["message"])
        self.assertEqual(srv.psql("SELECT count(*) FROM bisects b JOIN testcases t ON "
                                  "t.id = b.testcase_id WHERE t.name = 'shape-host'"), "0")
        srv.psql("INSERT INTO testcases (name) VALUES ('shape-host') ON CONFLICT DO NOTHING; "
                 "INSERT INTO setups (testcase_id, params, params_key, kconfig, compiler, "
                 "tbox_group) SELECT id, '{\"pin\": true}', '{\"pin\":true}', 'host', "
                 "'gcc-12', 'tbox' FROM testcases WHERE name = 'shape-host'")
        # that setup, in any spelling of its shape; another shape is still refused
        r = srv.post("/api/v1/bisects", dict(bisect, params={"pin": "true"}), scope="submit")
        self.assertEqual(r.status, 201, r)
        bid = r.json()["id"]
        self.assertEqual(json.loads(srv.psql("SELECT params FROM bisects WHERE id = %d" % bid)),
                         {"pin": True})
        srv.post("/api/v1/bisects/%d/cancel" % bid, scope="submit")
        r = srv.post("/api/v1/bisects", dict(bisect, params={"pin": True, "nr_task": 2}),
                     scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "params.pin"), r)
        r = srv.post("/api/v1/bisects", dict(bisect, params={"nr_task": 2}), scope="submit")
        self.assertEqual(r.status, 201, r)
        srv.post("/api/v1/bisects/%d/cancel" % r.json()["id"], scope="submit")


if __name__ == "__main__":
    unittest.main()
