"""Issue 21, the first hour of a new user: what the server checks and says.

- Workers register their cases with each case's parameter table; a job, a
  plan or an A/B request naming a testcase or a param no registered worker
  has is a 400 naming the field, and stores nothing; a fresh server (no
  table registered) accepts with a warning; a job for a tbox_group no
  worker serves is accepted with a warning in the reply and in the job.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server, result_doc, sha, wait_until  # noqa: E402
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


if __name__ == "__main__":
    unittest.main()


class HandBisect(unittest.TestCase):
    """A bisect asked for by hand on a regression's range is linked to it (item 11)."""

    @classmethod
    def setUpClass(cls):
        def tree(path):
            git_init(path)
            shas = []
            for i in range(3):
                with open(os.path.join(path, "a.c"), "w") as f:
                    f.write("int a%d;\n" % i)
                git(path, "add", "a.c")
                git(path, "commit", "-q", "-m", "c%d" % i, date="2026-01-01T00:0%d:00Z" % i)
                shas.append(git(path, "rev-parse", "HEAD"))
            return shas
        # the server's default auto_bisect (on)
        cls.tmp, cls.repo, cls.shas, cls.srv = tree_server("regtrack-fhb-", tree,
                                                           auto_bisect=None)
        r = cls.srv.post("/api/v1/trees", {"name": "linux", "url": cls.repo,
                                           "branches": ["master"], "poll_s": 0}, scope="admin")
        assert r.status == 200, r

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def regression(self, good, bad, state="new"):
        srv = self.srv
        for c, v in ((good, 100.0), (bad, 80.0)):
            r = srv.post("/api/v1/results", result_doc(c, metrics={"vm-scalability.throughput": [v]}),
                         scope="submit")
            self.assertIn(r.status, (200, 201), r)
        return int(srv.psql(
            "INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
            "state, change_pct, verdict, n_before, n_after, commits_after, pair_verdict) "
            "SELECT r.setup_id, m.id, g.id, b.id, 'regression', '%s', -20, 'different', "
            "1, 1, 1, 'different' FROM runs r JOIN commits b ON b.id = r.commit_id, commits g, "
            "metrics m WHERE b.sha = '%s' AND g.sha = '%s' AND m.name = "
            "'vm-scalability.throughput' LIMIT 1 RETURNING id" % (state, bad, good)).split()[0])

    def body(self, good, bad, **kw):
        b = {"tree": "linux", "good": good, "bad": bad, "testcase": "vm-scalability",
             "params": {"test": "small-allocs", "nr_task": "100%"}, "kconfig": "x86_64-defconfig",
             "compiler": "gcc-12", "tbox_group": "vm-2p", "metric": "vm-scalability.throughput"}
        b.update(kw)
        return b

    def test_bisect_now(self):
        # the regression page's button: POST /api/v1/regressions/{id}/bisect (admin)
        srv, (c0, c1, c2) = self.srv, self.shas
        rid = self.regression(c0, c1)
        path = "/api/v1/regressions/%d/bisect" % rid
        self.assertEqual(srv.post(path, {}, scope="submit").status, 403)
        r = srv.post(path, {}, scope="admin")
        self.assertEqual(r.status, 201, r)
        self.assertEqual((r.json()["regression_id"], r.json()["state"]), (rid, "queued"), r)
        b = srv.get("/api/v1/bisects/%d" % r.json()["id"]).json()
        self.assertEqual((b["regression_id"], b["metric"], b["testcase"]),
                         (rid, "vm-scalability.throughput", "vm-scalability"), b)
        reg = srv.get("/api/v1/regressions/%d" % rid).json()
        self.assertEqual((reg["state"], reg["bisect_id"]), ("bisecting", r.json()["id"]), reg)
        r = srv.post(path, {}, scope="admin")
        self.assertEqual((r.status, r.json()["error"]["code"]), (409, "conflict"), r)
        self.assertIn("has bisect", r.json()["error"]["message"])
        r = srv.post("/api/v1/regressions/999999/bisect", {}, scope="admin")
        self.assertEqual(r.status, 404, r)

    def test_linked_by_range_and_by_id(self):
        srv, (c0, c1, c2) = self.srv, self.shas
        rid = self.regression(c0, c2)
        r = srv.post("/api/v1/bisects", self.body(c0, c2), scope="submit")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["regression_id"], rid, r)
        reg = srv.get("/api/v1/regressions/%d" % rid).json()
        self.assertEqual((reg["state"], reg["bisect_id"]), ("bisecting", r.json()["id"]), reg)
        self.assertIn("bisect %d started by hand" % r.json()["id"],
                      [h.get("note") for h in reg["history"]])
        # the regression has its bisect: naming it again is a conflict; another range links nothing
        r = srv.post("/api/v1/bisects", self.body(c0, c2, regression_id=rid), scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (409, "regression_id"), r)
        # (c1, c2): test_auto_bisect's regression, bisected already
        r = srv.post("/api/v1/bisects", self.body(c1, c2), scope="submit")
        self.assertEqual((r.status, r.json()["regression_id"]), (201, None), r)
        r = srv.post("/api/v1/bisects", self.body(c0, c1, regression_id=999999), scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "regression_id"), r)

    def test_auto_bisect_is_on_by_default(self):
        # this server's config says nothing of auto_bisect: a confirmed regression is bisected
        srv, (c0, c1, c2) = self.srv, self.shas
        rid = self.regression(c1, c2, state="confirmed")
        reg = wait_until(lambda: (lambda g: g if g.get("bisect_id") else None)(
            srv.get("/api/v1/regressions/%d" % rid).json()), what="auto bisect")
        self.assertEqual(reg["state"], "bisecting", reg)


RAW_WIS = ("testcase:Separate file mmap/munmap\nwarmup\nmin:100 max:110 total:1700\n"
           "measurement\nmin:101 max:111 total:1710\nmin:99 max:109 total:1690\naverage:1700\n")


class Offline(unittest.TestCase):
    """The offline commands (item 9): formats in --help, detect says why, parse's
    exit status, --tasks, and parse --result -> submit -> stored."""

    @classmethod
    def setUpClass(cls):
        cls.srv = Server()
        cls.tmp = tempfile.mkdtemp(prefix="regtrack-fho-")

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        subprocess.run(["rm", "-rf", "--", cls.tmp], timeout=60)

    def cli(self, *args, env=None):
        return subprocess.run([os.path.join(BIN, "regtrack")] + list(args), capture_output=True,
                              text=True, timeout=60, env=dict(os.environ, **(env or {})))

    def file(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def test_help_says_each_input_format(self):
        for cmd, says in (("parse", "runtest.py's csv"), ("detect", "one value per commit"),
                          ("compare-samples", "one sample per run")):
            out = self.cli(cmd, "--help")
            self.assertEqual(out.returncode, 0, out)
            self.assertIn(says, out.stdout + out.stderr, cmd)

    def test_detect_that_finds_nothing_says_why(self):
        p = self.file("flat.txt", "100\n101\n99\n100\n102\n100\n101\n99\n")
        out = self.cli("detect", p)
        self.assertEqual(out.returncode, 0, out)
        doc = json.loads(out.stdout)
        self.assertEqual(doc["change_points"], [])
        nb = doc["none_because"]
        # the strongest candidate of the detector's own trace and the rule that dropped it
        self.assertEqual((nb["p_max"], nb["best_split"]["index"], nb["best_split"]["window"],
                          nb["best_split"]["reason"]), (0.001, 4, [0, 8], "p above p_max"), nb)
        self.assertGreater(nb["best_split"]["p_value"], 0.001)
        self.assertIn("was dropped: p above p_max (p 1, --p-max 0.001)", out.stderr)
        self.assertIn("no change point: the strongest candidate", out.stderr)

    def test_parse_exit_status_and_tasks(self):
        out = self.cli("parse", "will-it-scale", self.file("junk.txt", "nothing here\n"))
        self.assertEqual(out.returncode, 1, out)
        self.assertEqual(json.loads(out.stdout)["status"], "failed")
        raw = self.file("raw.txt", RAW_WIS)
        one = json.loads(self.cli("parse", "will-it-scale", raw).stdout)["metrics"]
        self.assertEqual(one["will-it-scale.1.per_process_ops"], [1700])
        out = self.cli("parse", "--tasks", "16", "will-it-scale", raw)
        self.assertEqual(out.returncode, 0, out)
        m = json.loads(out.stdout)["metrics"]
        self.assertEqual((m["will-it-scale.16.processes"], m["will-it-scale.16.per_process_ops"]),
                         ([1700], [106]), m)
        # a command line in the file still says its own count
        m = json.loads(self.cli("parse", "--tasks", "16", "will-it-scale", self.file(
            "cmd.txt", "./mmap2_processes -t 4 -s 5\n" + RAW_WIS)).stdout)["metrics"]
        self.assertIn("will-it-scale.4.processes", m)

    def test_parse_result_then_submit_stores_the_run(self):
        raw = self.file("raw2.txt", RAW_WIS)
        out = self.cli("parse", "--result", "--commit", sha("e1"), "--testcase", "will-it-scale",
                       "--params", '{"test": "mmap2", "mode": "process", "nr_task": 16}',
                       "--kconfig", "x86_64-defconfig", "--tbox-group", "fh-ci", "--tasks", "16",
                       "will-it-scale", raw)
        self.assertEqual(out.returncode, 0, out)
        doc = json.loads(out.stdout)
        self.assertEqual((doc["commit"], doc["testcase"], doc["machine"]["tbox_group"]),
                         (sha("e1"), "will-it-scale", "fh-ci"), doc)
        p = self.file("result.json", out.stdout)
        out = self.cli("submit", p, env={"REGTRACK_SERVER": self.srv.url,
                                          "REGTRACK_TOKEN": self.srv.tokens["submit"]})
        self.assertEqual(out.returncode, 0, out)
        run = self.srv.get("/api/v1/runs/" + doc["run_id"]).json()
        self.assertEqual(run["metrics"]["will-it-scale.16.per_process_ops"], [106], run)
        self.assertEqual(run["commit"], sha("e1"))
        # a failed parse writes no result
        out = self.cli("parse", "--result", "--commit", sha("e1"), "will-it-scale",
                       self.file("junk2.txt", "nothing\n"))
        self.assertEqual((out.returncode, out.stdout), (1, ""), out)
        self.assertIn("no result written", out.stderr)


class AccessLog(unittest.TestCase):
    """access_log = 1: one line per request, never the token (item 15); off by default."""

    def log_since(self, srv, start):
        with open(srv.log.name, errors="replace") as f:
            f.seek(start)
            return f.read()

    def test_off_by_default(self):
        srv = Server()
        try:
            start = srv.log.tell()
            self.assertEqual(srv.get("/api/v1/jobs", scope="read").status, 200)
            self.assertNotIn(" access ", self.log_since(srv, start))
        finally:
            srv.stop()

    def test_one_line_per_request(self):
        srv = Server(extra_args=["--access-log", "1"])
        try:
            name = "fh-log-reader"
            tok = srv.token("read", name)
            start = srv.log.tell()
            r = srv.get("/api/v1/jobs", token=tok)
            self.assertEqual(r.status, 200)
            self.assertEqual(srv.post("/api/v1/jobs", {"commit": "x"}, token=tok).status, 403)
            self.assertIn(srv.get("/api/v1/jobs/%0a9", token=tok).status, (400, 404))
            srv.get("/healthz")
            # the access log is written after the reply is sent: under load
            # (2 cores, a CI run beside other work) that can take seconds
            time_wait = __import__("time")
            deadline = time_wait.monotonic() + 30
            while True:
                text = self.log_since(srv, start)
                if text.count(" access ") >= 4 or time_wait.monotonic() > deadline:
                    break
                time_wait.sleep(0.1)
            lines = [l.split(" access ", 1)[1] for l in text.splitlines() if " access " in l]
            self.assertEqual(len(lines), 4, text)
            f = lines[0].split()
            self.assertEqual((f[0], f[1], f[2], f[5]), ("GET", "/api/v1/jobs", "200", name), lines)
            self.assertGreater(int(f[3]), 0)
            self.assertGreaterEqual(float(f[4]), 0)
            self.assertEqual(lines[1].split()[:3] + lines[1].split()[5:], ["POST", "/api/v1/jobs", "403", name])
            # a newline in the path is %0A again: no forged line
            self.assertRegex(lines[2], r"^GET /api/v1/jobs/%0A9 40[04] ", lines[2])
            self.assertTrue(lines[3].startswith("GET /healthz 200 ") and lines[3].endswith(" -"),
                            lines[3])
            self.assertNotIn(tok.split("_", 2)[2], text)
            self.assertNotIn(tok, text)
        finally:
            srv.stop()


class Tokens(unittest.TestCase):
    """regtrack-server token create | list | revoke, as the README's token section."""

    @classmethod
    def setUpClass(cls):
        cls.srv = Server()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def test_list_duplicate_revoke(self):
        srv = self.srv
        tok = srv.cli("token", "create", "--scope", "admin", "--name", "fh-me").stdout.strip()
        self.assertRegex(tok, r"^rt_\d+_")
        # a duplicate name: one line naming the name, no PostgreSQL wording
        out = srv.cli("token", "create", "--scope", "read", "--name", "fh-me", check=False)
        self.assertEqual(out.returncode, 1, out)
        self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)
        self.assertIn("a token named 'fh-me' exists", out.stderr)
        for pg in ("duplicate key", "constraint", "23505", "already exists"):
            self.assertNotIn(pg, out.stderr + out.stdout)
        # list: every token, its scope and state, never a secret
        out = srv.cli("token", "list")
        lines = out.stdout.splitlines()
        self.assertEqual(lines[0].split()[:4], ["ID", "NAME", "SCOPE", "STATE"], out.stdout)
        me = [l for l in lines if " fh-me " in l]
        self.assertEqual(len(me), 1, out.stdout)
        self.assertEqual(me[0].split()[2:4], ["admin", "live"], me)
        self.assertNotIn(tok.split("_", 2)[2], out.stdout)
        # revoke says what it revoked; the token then gets 401
        out = srv.cli("token", "revoke", "fh-me")
        self.assertIn("revoked token 'fh-me' (id %s, scope admin, created " % tok.split("_")[1],
                      out.stdout)
        self.assertEqual(srv.get("/api/v1/subscriptions", token=tok).status, 401)
        self.assertEqual([l.split()[3] for l in srv.cli("token", "list").stdout.splitlines()
                          if " fh-me " in l], ["revoked"])
        out = srv.cli("token", "revoke", "fh-me", check=False)
        self.assertEqual(out.returncode, 1)
        self.assertIn("token 'fh-me' (id %s) was revoked already" % tok.split("_")[1],
                      out.stderr)
        out = srv.cli("token", "revoke", "fh-nobody", check=False)
        self.assertEqual(out.returncode, 1)
        self.assertIn("no token of that name", out.stderr)


class ToolCases(unittest.TestCase):
    """Issue 32: a tool case (stress-ng) registers its table like the built-in
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
