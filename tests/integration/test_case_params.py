"""Case parameter tables: what the server checks a job, plan or A/B
request against, and says.

- Workers register their cases with each case's parameter table; a job, a
  plan or an A/B request naming a testcase or a param no registered worker
  has is a 400 naming the field, and stores nothing; a fresh server (no
  table registered) accepts with a warning; a job for a tbox_group no
  worker serves is accepted with a warning in the reply and in the job.
- A tool case (stress-ng) registers its table like the built-in cases.
"""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server, sha  # noqa: E402
from fakes import git, git_init, stop_tree_server, tree_server  # noqa: E402

CASES_DIR = os.environ.get("REGTRACK_CASES",
                           os.path.join(os.path.dirname(BIN.rstrip("/")), "..", "..", "bin",
                                        "cases"))


def small_allocs_table():
    """The table the real case prints (worker/cases/casecommon.c --params-json), else a copy."""
    for d in (CASES_DIR, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      "..", "..", "bin", "cases")):
        p = os.path.join(d, os.uname().machine, "small-allocs")
        if os.access(p, os.X_OK):
            out = subprocess.run([p, "--params-json"], capture_output=True, text=True,
                                 timeout=10, check=True)
            return json.loads(out.stdout)
    # worker/cases/small-allocs.c's table
    return {"nr_task": {"type": "tasks", "default": "100%", "min": 1, "max": 4096},
            "runtime": {"type": "double", "default": "1", "min": 0.01, "max": 86400},
            "iterations": {"type": "int", "default": "0", "min": 0, "max": 1e9},
            "source": {"type": "choice", "default": "devzero", "choices": "devzero|anon"},
            "mode": {"type": "choice", "default": "process", "choices": "process|thread"},
            "nr_maps": {"type": "int", "default": "256", "min": 1, "max": 60000},
            "map_kb": {"type": "int", "default": "40", "min": 1, "max": 1048576},
            "warmup": {"type": "int", "default": "1", "min": 0, "max": 1000000}}


def case_table(name):
    """NAME's table as the real case prints it (a tool case has no copy here:
    `make cases` builds it; the test fails without it)."""
    p = os.path.join(CASES_DIR, os.uname().machine, name)
    out = subprocess.run([p, "--params-json"], capture_output=True, text=True, timeout=10,
                         check=True)
    return json.loads(out.stdout)


def register(srv, host, tbox, cases=None, caps=("host",)):
    body = {"hostname": host, "arch": "x86_64", "tbox_group": tbox, "nr_cpus": 2,
            "memory_mb": 2048, "capabilities": list(caps), "fingerprint": {}}
    if cases is not None:
        body["cases"] = cases
    r = srv.post("/api/v1/workers/register", body, scope="worker")
    assert r.status == 200, r
    return r.json()["machine_id"]


def job(srv, **kw):
    body = {"commit": sha("a1"), "kconfig": "host", "testcase": "small-allocs",
            "params": {"nr_task": 1}, "tbox_group": "fh-box"}
    body.update(kw)
    return srv.post("/api/v1/jobs", body, scope="submit")


def make_tree(path):
    git_init(path)
    with open(os.path.join(path, "a.c"), "w") as f:
        f.write("int a;\n")
    git(path, "add", "a.c")
    git(path, "commit", "-q", "-m", "a", date="2026-01-01T00:00:00Z")
    return git(path, "rev-parse", "HEAD")


class FreshServer(unittest.TestCase):
    """No worker registered a table: accepted, with the warnings."""

    @classmethod
    def setUpClass(cls):
        cls.srv = Server()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def test_accepted_with_warnings_in_reply_and_job(self):
        r = job(self.srv, testcase="anything", params={"nr_tasks": 2}, tbox_group="fh-nobody")
        self.assertEqual(r.status, 201, r)
        w = r.json()["warnings"]
        self.assertEqual(len(w), 2, w)
        self.assertIn("no worker has registered its cases yet", w[0])
        self.assertIn("no registered worker serves tbox_group 'fh-nobody'", w[1])
        got = self.srv.get("/api/v1/jobs/%d" % r.json()["id"]).json()
        self.assertEqual(got["warnings"], w)


class Registered(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.head, cls.srv = tree_server("regtrack-fh-", make_tree)
        r = cls.srv.post("/api/v1/trees", {"name": "fh", "url": cls.repo,
                                           "branches": ["master"], "poll_s": 0}, scope="admin")
        assert r.status == 200, r
        cls.table = small_allocs_table()
        register(cls.srv, "fh-w1", "fh-box",
                 {"small-allocs": cls.table, "execl": {"nr_task": {"type": "tasks"}}})
        # a machine that sent no table (an older worker, a CI host) changes nothing
        register(cls.srv, "fh-old", "fh-old")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def jobs(self):
        return int(self.srv.psql("SELECT count(*) FROM jobs"))

    def test_table_is_the_cases_own(self):
        self.assertIn("nr_task", self.table)
        self.assertIn("runtime", self.table)
        m = [m for m in self.srv.get("/api/v1/machines").json() if m["hostname"] == "fh-w1"]
        self.assertEqual(sorted(m[0]["cases"]), ["execl", "small-allocs"], m)

    def test_known_testcase_and_params_accepted_without_warning(self):
        r = job(self.srv, params={"nr_task": 1, "runtime": 0.5, "measure": "wallclock"})
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["warnings"], [])

    def test_unknown_testcase_is_400_naming_it_and_stores_nothing(self):
        before = self.jobs()
        r = job(self.srv, testcase="small-alloc")
        self.assertEqual(r.status, 400, r)
        err = r.json()["error"]
        self.assertEqual(err["detail"], "testcase", err)
        self.assertIn("unknown testcase 'small-alloc'", err["message"])
        self.assertIn("execl, small-allocs", err["message"])
        self.assertEqual(self.jobs(), before)
        # not listed as a testcase either
        names = [t["name"] for t in self.srv.get("/api/v1/testcases").json()]
        self.assertNotIn("small-alloc", names)

    def test_unknown_param_is_400_naming_it(self):
        before = self.jobs()
        r = job(self.srv, params={"nr_tasks": 2})
        self.assertEqual(r.status, 400, r)
        err = r.json()["error"]
        self.assertEqual(err["detail"], "params.nr_tasks", err)
        self.assertIn("unknown param 'nr_tasks' of small-allocs", err["message"])
        self.assertIn("nr_task", err["message"])
        self.assertEqual(self.jobs(), before)

    def test_bad_param_value_is_400_naming_it(self):
        """values were not checked at submit although the workers
        registered their bounds; the job ran and ended run-failed"""
        before = self.jobs()
        for params, detail, why in (
                ({"nr_task": "lots"}, "params.nr_task",
                 "bad value for param 'nr_task' of small-allocs: 'lots' is neither a task "
                 "count nor a percentage"),
                ({"nr_task": 0}, "params.nr_task", "'0' is neither"),
                ({"nr_task": 5000}, "params.nr_task", "'5000' is out of range 1..4096"),
                ({"nr_task": 1.5}, "params.nr_task", "'1.5' is neither"),
                ({"runtime": 0}, "params.runtime", "'0' is out of range 0.01..86400"),
                ({"runtime": "soon"}, "params.runtime", "'soon' is not a number"),
                ({"nr_maps": 2.5}, "params.nr_maps", "'2.5' is not an integer"),
                ({"nr_maps": "1e3"}, "params.nr_maps", "'1e3' is not an integer"),
                ({"mode": "threads"}, "params.mode", "'threads' is not one of process|thread")):
            r = job(self.srv, params=params)
            self.assertEqual(r.status, 400, (params, r))
            err = r.json()["error"]
            self.assertEqual((err["code"], err["detail"]), ("invalid_field", detail), err)
            self.assertIn(why, err["message"])
        self.assertEqual(self.jobs(), before)
        # values the case takes: a percentage, a count in range, a choice, a real
        for params in ({"nr_task": "50%"}, {"nr_task": "250%"}, {"nr_task": 4096},
                       {"nr_task": "8", "runtime": "0.5", "mode": "thread", "nr_maps": "12"}):
            r = job(self.srv, params=params)
            self.assertEqual(r.status, 201, (params, r))
        # plans and requests are checked the same way
        r = self.srv.post("/api/v1/plans", self.plan(
            [{"testcase": "small-allocs", "params": {"nr_task": "lots"}}]), scope="admin")
        self.assertEqual((r.status, r.json()["error"]["detail"]),
                         (400, "testcases[0].params.nr_task"), r)

    def test_bisect_testcase_and_params_checked(self):
        """A bisect's runs are jobs: its testcase and params are checked as
        theirs (a bisect of nr_task 2^63-1 used to be queued, and each of
        its jobs ended run-failed)."""
        before = self.srv.psql("SELECT count(*) FROM bisects")
        base = {"tree": "fh", "good": sha("b1"), "bad": sha("b2"), "testcase": "small-allocs",
                "params": {"nr_task": 1}, "kconfig": "host", "tbox_group": "fh-box",
                "metric": "small-allocs.throughput"}
        for change, detail, why in (
                ({"testcase": "small-alloc"}, "testcase", "unknown testcase 'small-alloc'"),
                ({"params": {"nr_tasks": 2}}, "params.nr_tasks",
                 "unknown param 'nr_tasks' of small-allocs"),
                ({"params": {"nr_task": 9223372036854775807}}, "params.nr_task",
                 "bad value for param 'nr_task' of small-allocs"),
                ({"params": {"nr_task": "lots"}}, "params.nr_task", "'lots' is neither")):
            r = self.srv.post("/api/v1/bisects", dict(base, **change), scope="submit")
            self.assertEqual(r.status, 400, (change, r))
            err = r.json()["error"]
            self.assertEqual((err["code"], err["detail"]), ("invalid_field", detail), err)
            self.assertIn(why, err["message"])
        self.assertEqual(self.srv.psql("SELECT count(*) FROM bisects"), before)

    def test_tbox_group_no_worker_serves_is_a_warning(self):
        r = job(self.srv, tbox_group="fh-nobody")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["warnings"],
                         ["no registered worker serves tbox_group 'fh-nobody' with capability "
                          "host: the job waits for one"])
        got = self.srv.get("/api/v1/jobs/%d" % r.json()["id"]).json()
        self.assertEqual(got["warnings"], r.json()["warnings"])

    def test_bad_cases_in_registration(self):
        for cases, detail in (([], "cases"), ({"a b": {}}, "cases.a b"),
                              ({"x": []}, "cases.x"), ({"x": {"k": 1}}, "cases.x.k")):
            r = self.srv.post("/api/v1/workers/register", {
                "hostname": "fh-bad", "arch": "x86_64", "capabilities": ["host"],
                "cases": cases}, scope="worker")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, detail), r)

    def plan(self, testcases):
        return {"name": "fh-plan", "tree": "fh", "branches": ["master"],
                "testcases": testcases, "kconfigs": ["x86_64-defconfig"],
                "targets": ["x86_64"], "enabled": False}

    def test_plan_names_field(self):
        r = self.srv.post("/api/v1/plans", self.plan(
            [{"testcase": "execl", "params": {}}, {"testcase": "nosuch", "params": {}}]),
            scope="admin")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "testcases[1].testcase"),
                         r)
        r = self.srv.post("/api/v1/plans", self.plan(
            [{"testcase": "small-allocs", "params": {"nr_tasks": 1}}]), scope="admin")
        self.assertEqual((r.status, r.json()["error"]["detail"]),
                         (400, "testcases[0].params.nr_tasks"), r)
        self.assertEqual(self.srv.psql("SELECT count(*) FROM plans"), "0")
        r = self.srv.post("/api/v1/plans", self.plan(
            [{"testcase": "small-allocs", "params": {"nr_task": 1}}]), scope="admin")
        self.assertEqual(r.status, 201, r)

    def test_request_names_field(self):
        body = {"tree": "fh", "base": self.head, "head": self.head, "targets": ["x86_64"],
                "testcases": [{"testcase": "small-allocs", "params": {"bogus": 1}}]}
        r = self.srv.post("/api/v1/requests", body, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]),
                         (400, "testcases[0].params.bogus"), r)
        body["testcases"] = [{"testcase": "execl"}, {"testcase": "hackbench"}]
        r = self.srv.post("/api/v1/requests", body, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "testcases[1].testcase"),
                         r)
        self.assertEqual(self.srv.psql("SELECT count(*) FROM requests"), "0")


class ToolCases(unittest.TestCase):
    """A tool case (stress-ng) registers its table like the built-in
    cases; a bad stressor, thread count or timeout is a 400 naming the param."""

    @classmethod
    def setUpClass(cls):
        cls.srv = Server()
        cls.table = case_table("stress-ng")
        register(cls.srv, "fh-tools", "fh-tools-box",
                 {"stress-ng": cls.table, "hackbench": case_table("hackbench"),
                  "sysbench": case_table("sysbench"), "fio": case_table("fio")})

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def job(self, params):
        return job(self.srv, testcase="stress-ng", params=params, tbox_group="fh-tools-box")

    def test_table(self):
        t = self.table
        self.assertEqual(sorted(t), ["nr_threads", "stressor", "timeout"])
        self.assertEqual((t["stressor"]["type"], t["stressor"]["default"]), ("choice", "mmap"))
        stressors = t["stressor"]["choices"].split("|")
        for s in ("mmap", "brk", "fork", "futex", "pipe", "vm", "fault"):
            self.assertIn(s, stressors)
        self.assertGreater(len(stressors), 250)
        self.assertEqual((t["nr_threads"]["type"], t["nr_threads"]["default"]), ("tasks", "100%"))
        self.assertEqual((t["timeout"]["type"], t["timeout"]["min"], t["timeout"]["max"]),
                         ("duration", 1, 86400))

    def test_issue_example_accepted(self):
        for params in ({"stressor": "mmap", "nr_threads": "100%", "timeout": "30s"},
                       {"stressor": "brk", "nr_threads": 2, "timeout": 60},
                       {"stressor": "futex", "timeout": "1.5m"}, {"timeout": "2h"}, {}):
            r = self.job(params)
            self.assertEqual(r.status, 201, (params, r))
            self.assertEqual(r.json()["warnings"], [], params)

    def test_bad_values_are_400_naming_the_param(self):
        for params, detail, why in (
                ({"stressor": "mmapp"}, "params.stressor",
                 "bad value for param 'stressor' of stress-ng: 'mmapp' is not one of access|"),
                ({"stressor": "--mmap"}, "params.stressor", "'--mmap' is not one of"),
                ({"nr_threads": "all"}, "params.nr_threads", "'all' is neither a task count"),
                ({"nr_threads": 0}, "params.nr_threads", "'0' is neither"),
                ({"timeout": "30x"}, "params.timeout",
                 "'30x' is not a duration (N, Ns, Nm or Nh)"),
                ({"timeout": "0s"}, "params.timeout", "'0s' is out of range 1..86400"),
                ({"timeout": "25h"}, "params.timeout", "'25h' is out of range 1..86400"),
                ({"stresor": "mmap"}, "params.stresor", "unknown param 'stresor' of stress-ng")):
            r = self.job(params)
            self.assertEqual(r.status, 400, (params, r))
            err = r.json()["error"]
            self.assertEqual((err["code"], err["detail"]), ("invalid_field", detail), err)
            self.assertIn(why, err["message"])

    def check_table(self, testcase, good, bad):
        """good: params the table takes (201); bad: (params, detail, text
        of the message) each refused with a 400 naming detail"""
        r = job(self.srv, testcase=testcase, tbox_group="fh-tools-box", params=good)
        self.assertEqual(r.status, 201, r)
        for params, detail, why in bad:
            r = job(self.srv, testcase=testcase, tbox_group="fh-tools-box", params=params)
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, detail), r)
            self.assertIn(why, r.json()["error"]["message"])

    def test_hackbench_table(self):
        self.check_table("hackbench",
                         {"mode": "threads", "ipc": "pipe", "groups": 4, "loops": 1000}, (
            ({"mode": "thread"}, "params.mode", "'thread' is not one of process|threads"),
            ({"ipc": "fifo"}, "params.ipc", "'fifo' is not one of socket|pipe"),
            ({"groups": 0}, "params.groups", "'0' is out of range 1..10000")))

    def test_sysbench_table(self):
        self.check_table("sysbench", {"test": "memory", "nr_threads": "100%", "time": "1m"}, (
            ({"test": "fileio"}, "params.test", "'fileio' is not one of cpu|memory|threads"),
            ({"time": "10 s"}, "params.time", "is not a duration")))

    def test_fio_table(self):
        t = case_table("fio")
        self.assertEqual(sorted(t), ["bs", "dir", "iodepth", "ioengine", "nr_task", "runtime",
                                     "rw", "size_mb", "time_based"])
        self.assertEqual((t["rw"]["type"], t["rw"]["default"], t["rw"]["choices"]),
                         ("choice", "read", "read|write|randread|randwrite|rw|randrw"))
        self.assertEqual(t["ioengine"]["choices"],
                         "sync|psync|vsync|pvsync|pvsync2|mmap|posixaio|io_uring")
        self.assertEqual((t["runtime"]["type"], t["runtime"]["default"]), ("duration", "5s"))
        self.check_table("fio", {"rw": "randwrite", "bs": "64k", "ioengine": "io_uring",
                                 "iodepth": 8, "nr_task": "50%", "size_mb": 16, "runtime": "1m",
                                 "time_based": 0}, (
            ({"rw": "trim"}, "params.rw",
             "'trim' is not one of read|write|randread|randwrite|rw|randrw"),
            ({"bs": "3k"}, "params.bs", "'3k' is not one of 4k|8k|"),
            ({"ioengine": "libaio"}, "params.ioengine", "'libaio' is not one of sync|"),
            ({"size_mb": 0}, "params.size_mb", "'0' is out of range 1..65536"),
            ({"runtime": "5 s"}, "params.runtime", "is not a duration"),
            ({"time_based": 2}, "params.time_based", "'2' is out of range 0..1"),
            ({"filename": "/etc/passwd"}, "params.filename", "unknown param 'filename' of fio")))


if __name__ == "__main__":
    unittest.main()
