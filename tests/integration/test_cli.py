"""bin/regtrack against the real server: global options, --help, usage
without arguments, one flag spelling for both, the compare gate's exit 3,
marked text rows, `regtrack job submit|show|list|wait|cancel`, and --monitors
of job submit and test."""
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server, result_doc, sha  # noqa: E402

srv = None


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


def cli(*args, token="submit", server=True, env=None, cwd=None, timeout=60):
    e = dict(os.environ)
    e.pop("REGTRACK_SERVER", None)
    e.pop("REGTRACK_TOKEN", None)
    if server:
        e["REGTRACK_SERVER"] = srv.url
    if token:
        e["REGTRACK_TOKEN"] = srv.tokens[token]
    e.update(env or {})
    return subprocess.run([os.path.join(BIN, "regtrack")] + list(args), env=e, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def post_runs(testcase, metric, per_commit, params=None):
    for commit, values in per_commit:
        for v in values:
            d = result_doc(commit, testcase=testcase, metrics={metric: [v]})
            if params:
                d["params"] = params
            r = srv.post("/api/v1/results", d, scope="submit")
            assert r.status in (200, 201), r


class Capture:
    """An HTTP server on port 0 that records each request and answers 201 {"id": 1}."""

    def __init__(self):
        self.server = Scripted({}, default=(201, {"id": 1}))
        self.requests = self.server.requests
        self.url = self.server.url

    def close(self):
        self.server.close()


class Scripted:
    """An HTTP server on port 0 answering from a table {(method, path): (status, [bodies])}
    (a path's bodies given in turn, the last one repeated; any other path: default) and
    recording each request."""

    def __init__(self, table, default=(404, {"error": "x"})):
        outer = self
        self.requests = []  # (method, path, body text), in order

        class H(http.server.BaseHTTPRequestHandler):
            def answer(self):
                n = int(self.headers.get("Content-Length") or 0)
                outer.requests.append((self.command, self.path, self.rfile.read(n).decode()))
                status, bodies = table.get((self.command, self.path), (default[0], [default[1]]))
                body = json.dumps(bodies[0] if len(bodies) == 1 else bodies.pop(0)).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            do_GET = do_POST = answer

            def log_message(self, *a):
                pass

        self.httpd = http.server.HTTPServer(("127.0.0.1", 0), H)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_port
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class TestWaitsPastResolving(unittest.TestCase):
    """`regtrack test --wait` polls a 202 request until it leaves "resolving"; the
    request may be queued and already failed by a run by then (a fast worker):
    that is a failed test (3), not a bad ref of the command's (2)."""

    def run_against(self, after_resolving):
        url = "http://x/requests/7"
        fake = Scripted({
            ("POST", "/api/v1/requests"): (202, [{"id": 7, "state": "resolving", "url": url}]),
            ("GET", "/api/v1/requests/7"): (200, [{"id": 7, "state": "resolving", "url": url},
                                                  after_resolving]),
        })
        try:
            return cli("test", "--tree", "demo", "--base", sha("2a"), "--head", sha("2b"),
                       "--testcase", "small-allocs", "--target", "x86_64", "--wait",
                       "--poll", "0.1", env={"REGTRACK_SERVER": fake.url}, server=False)
        finally:
            fake.close()

    def test_failed_after_queued_is_incomplete(self):
        why = "head job 3 (round 0, vm-2p): run-failed: apply-failed: git am: patch does not apply"
        r = self.run_against({"id": 7, "state": "failed", "fail_reason": why,
                              "progress": {"base": {"jobs": 2, "finished": 2, "runs": 2},
                                           "head": {"jobs": 2, "finished": 1, "runs": 0}}})
        self.assertEqual(r.returncode, 3, r)
        self.assertIn("request 7 failed: " + why, r.stdout)

    def test_failed_while_resolving_is_the_commands_ref(self):
        r = self.run_against({"id": 7, "state": "failed", "fail_reason": "head: unknown ref",
                              "progress": {"base": {"jobs": 0}, "head": {"jobs": 0}}})
        self.assertEqual(r.returncode, 2, r)
        self.assertEqual(r.stderr.strip().splitlines()[-1],
                         "regtrack test: request 7 failed: head: unknown ref")


class Arguments(unittest.TestCase):

    def test_server_and_token_before_the_command(self):
        base, head = sha("1a"), sha("1b")
        post_runs("globtc", "globtc.ops", [(base, [10.0, 10.1]), (head, [10.2, 10.3])])
        for pre in (["--server", srv.url], ["--server=" + srv.url]):
            r = cli(*pre, "compare", "--base", base, "--head", head, server=False)
            self.assertEqual(r.returncode, 0, (pre, r.stderr))
            self.assertEqual(json.loads(r.stdout)["rows"][0]["metric"], "globtc.ops")
        # the token too: a job needs submit
        r = cli("--server", srv.url, "--token", srv.tokens["submit"], "job", "list",
                server=False, token=None)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = cli("--bogus", "compare", server=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown option '--bogus'", r.stderr)

    def test_help_of_each_online_command_reads_no_file(self):
        with tempfile.TemporaryDirectory() as d:
            for cmd in (["submit"], ["compare"], ["bisect"], ["job"]):
                for flag in ("--help", "-h"):
                    r = cli(*cmd, flag, cwd=d)
                    self.assertEqual(r.returncode, 0, (cmd, flag, r.stderr))
                    self.assertTrue(r.stdout.startswith("usage: regtrack " + cmd[0]), r.stdout)
                    self.assertEqual(r.stderr, "")
            # a job's machine is named in its params: the help says which
            r = cli("job", "--help", cwd=d)
            self.assertIn("accel=kvm|tcg|kexec, vcpus=N, pin=true,", r.stdout)
            r = cli("submit", "--bogus", cwd=d)
            self.assertEqual(r.returncode, 2)
            self.assertIn("unknown option '--bogus'", r.stderr)
            # a file that starts with '-' after '--'
            p = os.path.join(d, "-r.json")
            with open(p, "w") as f:
                json.dump(result_doc(sha("1c"), testcase="dashtc"), f)
            r = cli("submit", "--", "-r.json", cwd=d)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, "-r.json: stored\n")

    def test_no_arguments_print_usage_and_call_nobody(self):
        # a listener that must see no connection
        lsn = socket.socket()
        lsn.bind(("127.0.0.1", 0))
        lsn.listen(8)
        lsn.setblocking(False)
        url = "http://127.0.0.1:%d" % lsn.getsockname()[1]
        try:
            for args in (["compare"], ["compare", "--base", sha("1")], ["bisect", "start"],
                         ["bisect", "start", "--tree", "linux"], ["job", "submit"], ["job"]):
                r = cli(*args, env={"REGTRACK_SERVER": url})
                self.assertEqual(r.returncode, 2, (args, r.stderr))
                self.assertIn("usage: regtrack", r.stderr, args)
                self.assertNotIn("request to", r.stderr)
            with self.assertRaises(BlockingIOError):
                lsn.accept()
        finally:
            lsn.close()

    def test_unknown_command_is_named_with_the_list(self):
        cases = [(["frob"], "regtrack: unknown command 'frob'\n",
                  "regtrack commands: parse, detect, compare-samples, submit, compare, bisect, "
                  "test, job, regression ('regtrack --help' for more)\n"),
                 (["job", "frob"], "regtrack: unknown command 'job frob'\n",
                  "regtrack job commands: submit, show, list, wait, cancel "
                  "('regtrack job --help' for more)\n"),
                 (["bisect", "frob"], "regtrack: unknown command 'bisect frob'\n",
                  "regtrack bisect commands: start, show, list ('regtrack bisect --help' "
                  "for more)\n"),
                 (["regression", "frob", "1"], "regtrack: unknown command 'regression frob'\n",
                  "regtrack regression commands: invalid, show ('regtrack regression --help' "
                  "for more)\n")]
        for args, first, listed in cases:
            r = cli(*args)
            self.assertEqual((r.returncode, r.stdout), (2, ""), args)
            # the word and the one-line list, not the whole usage
            self.assertEqual(r.stderr, first + listed, args)

    def test_params_as_k_v_or_json_in_compare(self):
        base, head = sha("1d"), sha("1e")
        post_runs("kvtc", "kvtc.ops", [(base, [5.0, 5.1]), (head, [5.2, 5.3])],
                  params={"nr_task": 2, "mode": "thread"})
        post_runs("kvtc", "kvtc.ops", [(base, [9.0, 9.1]), (head, [9.2, 9.3])],
                  params={"nr_task": 4, "mode": "thread"})
        for form in (["--params", "nr_task=2,mode=thread"],
                     ["--params", '{"nr_task": 2, "mode": "thread"}'],
                     ["--params", "nr_task=2", "--params", '{"mode": "thread"}']):
            r = cli("compare", "--base", base, "--head", head, *form)
            self.assertEqual(r.returncode, 0, (form, r.stderr))
            reply = json.loads(r.stdout)
            self.assertEqual([x["metric"] for x in reply["rows"]], ["kvtc.ops"], form)
            self.assertEqual([x["params"] for x in reply["setups"]],
                             [{"nr_task": 2, "mode": "thread"}], form)
        r = cli("compare", "--base", base, "--head", head, "--params", "nr_task")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--params 'nr_task' is neither k=v,k2=v2 nor a JSON object", r.stderr)
        r = cli("compare", "--base", base, "--head", head, "--params", "{nr_task")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--params '{nr_task' is not a JSON object", r.stderr)

    def test_tbox_group_both_spellings(self):
        base, head = sha("2a"), sha("2b")
        post_runs("spelltc", "spelltc.ops", [(base, [5.0, 5.1]), (head, [5.2, 5.3])])
        rows = []
        for flag in ("--tbox-group", "--tbox_group"):
            r = cli("compare", "--base", base, "--head", head, flag, "vm-2p")
            self.assertEqual(r.returncode, 0, (flag, r.stderr))
            rows.append(json.loads(r.stdout)["rows"])
            r = cli("compare", "--base", base, "--head", head, flag, "no-such-group")
            self.assertEqual(json.loads(r.stdout)["rows"], [], flag)
        self.assertEqual(rows[0], rows[1])
        self.assertEqual(len(rows[0]), 1)
        cap = Capture()
        try:
            for flag in ("--tbox-group", "--tbox_group"):
                r = cli("bisect", "start", "--tree", "linux", "--good", sha("a"), "--bad", sha("b"),
                        "--testcase", "tc", "--kconfig", "x86_64-defconfig", "--metric", "tc.ops",
                        flag, "vm-2p", "--runs_per_step", "3", env={"REGTRACK_SERVER": cap.url})
                self.assertEqual(r.returncode, 0, (flag, r.stderr))
                r = cli("job", "submit", "--commit", sha("a"), "--kconfig", "host", "--testcase", "tc",
                        flag, "vm-2p", "--max_attempts", "2", env={"REGTRACK_SERVER": cap.url})
                self.assertEqual(r.returncode, 0, (flag, r.stderr))
        finally:
            cap.close()
        bodies = [json.loads(b) for _, _, b in cap.requests]
        self.assertEqual([p for _, p, _ in cap.requests], ["/api/v1/bisects", "/api/v1/jobs"] * 2)
        for b in bodies:
            self.assertEqual(b["tbox_group"], "vm-2p")
        self.assertEqual(bodies[0]["runs_per_step"], 3)
        self.assertEqual(bodies[1]["max_attempts"], 2)


class Gate(unittest.TestCase):

    def test_no_shared_setup_is_undecided(self):
        base, head = sha("3a"), sha("3b")
        post_runs("gate-a", "gate-a.ops", [(base, range(100, 106))])
        post_runs("gate-b", "gate-b.ops", [(head, range(100, 106))])
        r = cli("compare", "--base", base, "--head", head, "--gate")
        self.assertEqual(r.returncode, 3, r.stderr)
        # each metric is listed, with no runs on one side
        self.assertEqual(sorted((x["metric"], x["n"]) for x in json.loads(r.stdout)["rows"]),
                         [("gate-a.ops", [6, 0]), ("gate-b.ops", [0, 6])])
        self.assertEqual(r.stderr, "regtrack: gate: undecided: no setup was measured at both "
                                   "commits (nothing to compare)\n")
        r = cli("compare", "--base", base, "--head", head, "--gate", "--text")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("gate: undecided: no setup", r.stderr)
        # nothing in common, filtered to nothing at all: undecided too
        r = cli("compare", "--base", base, "--head", head, "--gate", "--metric", "nothing.")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(json.loads(r.stdout)["rows"], [])
        # without the gate the comparison is no error
        r = cli("compare", "--base", base, "--head", head)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_every_row_need_more_runs_is_undecided_one_line_per_metric(self):
        base, head = sha("4a"), sha("4b")
        for m in ("nmr.ops", "nmr.lat_ms"):
            post_runs("nmrtc", m, [(base, [100.0, 101.0, 99.0]), (head, [90.0, 91.0, 89.0])])
        r = cli("compare", "--base", base, "--head", head, "--gate")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual({x["verdict"] for x in json.loads(r.stdout)["rows"]}, {"need-more-runs"})
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 3, r.stderr)
        self.assertRegex(lines[0], r"^regtrack: gate: need-more-runs: nmr.lat_ms -10\.0% with 3 vs 3 runs "
                                   r"\(Hodges-Lehmann shift; means -10\.0%; p 0\.1; nmrtc \{")
        self.assertTrue(lines[1].startswith("regtrack: gate: need-more-runs: nmr.ops -10.0% with 3 vs 3 runs"),
                        lines[1])
        self.assertEqual(lines[2], "regtrack: gate: undecided: every row (2) is need-more-runs: "
                                   "run more at both commits")

    def test_undecided_drop_beside_zero_metrics_fails_the_gate(self):
        # 6 vs 3 runs, -8.2 % (too few runs to decide), and the setup's
        # other metrics 0 at both commits; the zeros carry no evidence and must not pass it
        base, head = sha("4c"), sha("4d")
        ops = "will-it-scale.per_process_ops"
        for commit, values in ((base, [1000, 1002, 998, 1001, 999, 1000]),
                               (head, [918, 917, 919])):
            for v in values:
                d = result_doc(commit, testcase="zerotc",
                               metrics={ops: [v], "will-it-scale.per_thread_ops": [0],
                                        "will-it-scale.workload": [0]})
                self.assertIn(srv.post("/api/v1/results", d, scope="submit").status, (200, 201))
        r = cli("compare", "--base", base, "--head", head, "--gate")
        self.assertEqual(r.returncode, 3, r.stderr)
        rows = {x["metric"]: x for x in json.loads(r.stdout)["rows"]}
        self.assertEqual((rows[ops]["n"], rows[ops]["verdict"]), ([6, 3], "need-more-runs"))
        self.assertAlmostEqual(rows[ops]["change_pct"], -8.2, places=6)
        for m in ("will-it-scale.per_thread_ops", "will-it-scale.workload"):
            # 0 -> 0: no change (not LKP's -100 % of a 1e-100 base), and no evidence
            self.assertEqual((rows[m]["change_pct"], rows[m]["constant"]), (0, True), m)
        self.assertFalse(rows[ops]["constant"])
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 2, r.stderr)
        self.assertTrue(lines[0].startswith(
            "regtrack: gate: need-more-runs: will-it-scale.per_process_ops -8.2% with 6 vs 3 "
            "runs (Hodges-Lehmann shift; means -8.2%; p 0.012; zerotc {"), lines[0])
        self.assertEqual(lines[1], "regtrack: gate: undecided: 1 of 1 deciding rows need more "
                                   "runs (left out: 2 constant): run more at both commits")
        r = cli("compare", "--base", base, "--head", head, "--text", "--gate")
        self.assertEqual(r.returncode, 3, r.stderr)
        zero = [ln for ln in r.stdout.splitlines() if ln.endswith("per_thread_ops")]
        self.assertEqual(len(zero), 1, r.stdout)
        self.assertNotIn("-100", zero[0])
        self.assertRegex(zero[0], r"^\s+0\.00\s+0\.0%\s+0\.00\s+will-it-scale\.per_thread_ops$")

    def test_part_of_the_runs_moved_is_undecided_not_same(self):
        # 40 of 100 head runs 50 % slower: the whole sample's shift is +0.4 % [0.24, 0.64],
        # inside the 1 % floor (it read `same` and the gate passed a +20 % mean latency)
        base, head = sha("9a"), sha("9b")

        def runs(moved):
            return [(moved if i % 5 < 2 else 100) * (1 + 0.004 * ((i * 7919) % 11 - 5) / 5)
                    for i in range(100)]
        post_runs("modetc", "modetc.lat_ms", [(base, runs(100)), (head, runs(150))])
        r = cli("compare", "--base", base, "--head", head, "--gate")
        self.assertEqual(r.returncode, 3, r.stderr)
        row = json.loads(r.stdout)["rows"][0]
        self.assertEqual((row["n"], row["outliers"], row["outliers_differ"], row["verdict"]),
                         ([100, 100], [0, 40], True, "need-more-runs"))
        self.assertTrue(-1 < row["ci_pct"][0] < row["ci_pct"][1] < 1, row)
        lines = r.stderr.splitlines()
        self.assertTrue(lines[0].startswith(
            "regtrack: gate: need-more-runs: modetc.lat_ms +0.4% with 100 vs 100 runs "
            "(Hodges-Lehmann shift; means +20.0%; p 4.9e-07; part of the runs moved: 40 of 100 "
            "head runs are outliers against 0 of 100 base runs, not one shift; modetc {"),
            lines[0])

    def test_only_constant_rows_is_undecided(self):
        base, head = sha("4e"), sha("4f")
        post_runs("consttc", "consttc.ops", [(base, [7.0] * 5), (head, [7.0] * 5)])
        r = cli("compare", "--base", base, "--head", head, "--gate")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(r.stderr, "regtrack: gate: undecided: every row measured at both commits "
                                   "(1) is one constant value at both: no row carries evidence\n")

    def test_regression_line_and_marked_text(self):
        base, head = sha("5a"), sha("5b")
        post_runs("markedtc", "will-it-scale.per_process_ops",
                  [(base, range(1000, 1006)), (head, range(900, 906))])
        post_runs("markedtc", "markedtc.noise_ms",
                  [(base, [5.000, 5.001, 5.002, 5.003, 5.004, 5.005]),
                   (head, [5.005, 5.004, 5.003, 5.002, 5.001, 5.000])])
        r = cli("compare", "--base", base, "--head", head, "--gate")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertRegex(r.stderr, r"^regtrack: gate: regression: will-it-scale.per_process_ops -10\.0% "
                                   r"\(Hodges-Lehmann shift; means -10\.0%; p 0\.0022, q 0\.00\d+; "
                                   r"markedtc \{")
        r = cli("compare", "--base", base, "--head", head, "--text", "--gate")
        self.assertEqual(r.returncode, 1, r.stderr)
        rows = [ln for ln in r.stdout.splitlines() if "per_process_ops" in ln or "noise_ms" in ln]
        self.assertEqual(len(rows), 2, r.stdout)
        self.assertTrue([ln for ln in rows if "noise_ms" in ln][0].endswith("markedtc.noise_ms"), rows)
        self.assertTrue([ln for ln in rows if "per_process_ops" in ln][0]
                        .endswith("will-it-scale.per_process_ops  [regression]"), rows)
        # the rest of the text is the server's, byte for byte
        plain = srv.get("/api/v1/compare?base=%s&head=%s&format=text" % (base, head)).body
        self.assertEqual(r.stdout.replace("  [regression]", ""), plain)
        # --changed: the gate still reads every row; the text shows the changed ones, marked
        r = cli("compare", "--base", base, "--head", head, "--text", "--changed", "--gate")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertNotIn("noise_ms", r.stdout)
        self.assertIn("will-it-scale.per_process_ops  [regression]\n", r.stdout)
        r = cli("compare", "--base", base, "--head", head, "--changed", "--gate", "--metric", "markedtc.")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["rows"], [])
        self.assertEqual(r.stderr, "")

    def test_marks_follow_each_setup_table(self):
        base, head = sha("7a"), sha("7b")
        metric = "will-it-scale.per_process_ops"
        # setup 1 unchanged, setup 2 (other params) 10 % slower: two tables, one mark
        post_runs("twotc", metric, [(base, range(1000, 1006)), (head, range(1000, 1006))],
                  params={"test": "one"})
        post_runs("twotc", metric, [(base, range(1000, 1006)), (head, range(900, 906))],
                  params={"test": "two"})
        for extra in ((), ("--changed",)):
            r = cli("compare", "--base", base, "--head", head, "--text", *extra)
            self.assertEqual(r.returncode, 0, r.stderr)
            tables = [t for t in re.split(r"^=+$", r.stdout, flags=re.M) if t.strip()]
            self.assertEqual(len(tables), 2, r.stdout)
            marks = {"/two/" in t: t.count("[regression]") for t in tables}
            self.assertEqual(marks, {True: 1, False: 0}, r.stdout)
            self.assertIn("%s  [regression]\n" % metric, r.stdout)


class GateBySpread(unittest.TestCase):
    """An icount setup whose history measured a tiny A/A spread: 3 runs a side
    decide by it (no q); the gate and the text's mark say so (test_aa_spread)."""

    OPS = "will-it-scale.per_process_ops"   # higher is better
    ICOUNT = {"test": "small-allocs", "measure": "icount"}

    @classmethod
    def setUpClass(cls):
        # 4 commits x 2 runs, each pair within 0.04 %: the setup's A/A history
        hist = [(1000.0, 1000.4), (1001.0, 1001.2), (999.0, 999.3), (1000.5, 1000.6)]
        cls.base, cls.up, cls.down = sha("8a"), sha("8b"), sha("8c")
        post_runs("spreadtc", cls.OPS,
                  [(sha("8d%d" % i), pair) for i, pair in enumerate(hist)] +
                  [(cls.base, [1000.0, 1000.2, 1000.1]),
                   (cls.up, [1050.0, 1050.3, 1050.1]),      # +5 %
                   (cls.down, [950.0, 950.3, 950.1])],      # -5 %
                  params=cls.ICOUNT)

    def test_improvement_passes_the_gate_marked_by_spread(self):
        r = cli("compare", "--base", self.base, "--head", self.up, "--gate")
        self.assertEqual(r.returncode, 0, r.stderr)
        row = json.loads(r.stdout)["rows"][0]
        self.assertEqual((row["verdict"], row["change"], row["by_spread"], row["aa_runs"]),
                         ("different", "improvement", True, 11))
        self.assertIsNone(row["q_value"])
        self.assertEqual(r.stderr, "")
        r = cli("compare", "--base", self.base, "--head", self.up, "--text", "--gate")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("nan", r.stdout)
        self.assertIn("%s  [improvement, by A/A spread 0.04 %% (11 runs)]\n" % self.OPS, r.stdout)

    def test_regression_fails_the_gate_with_the_spread_not_q(self):
        # the A/A runs: the history's 8 and the other head's 3
        r = cli("compare", "--base", self.base, "--head", self.down, "--gate")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertNotIn("nan", r.stderr)
        self.assertRegex(r.stderr, r"^regtrack: gate: regression: will-it-scale.per_process_ops "
                                   r"-5\.0% \(Hodges-Lehmann shift; means -5\.0%; "
                                   r"by A/A spread 0\.04 % \(11 runs\); spreadtc \{[^\n]*\)\n$")
        r = cli("compare", "--base", self.base, "--head", self.down, "--text", "--gate")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("%s  [regression, by A/A spread 0.04 %% (11 runs)]\n" % self.OPS, r.stdout)
        plain = srv.get("/api/v1/compare?base=%s&head=%s&format=text" % (self.base, self.down)).body
        self.assertEqual(r.stdout.replace("  [regression, by A/A spread 0.04 % (11 runs)]", ""),
                         plain)


def register(host, tbox):
    r = srv.post("/api/v1/workers/register", {
        "hostname": host, "arch": "x86_64", "tbox_group": tbox, "nr_cpus": 2, "memory_mb": 2048,
        "cpu_model": "test", "capabilities": ["host"], "fingerprint": {}}, scope="worker")
    assert r.status == 200, r
    return r.json()["machine_id"]


class Job(unittest.TestCase):

    def submit(self, commit, tbox, *extra):
        r = cli("job", "submit", "--commit", commit, "--kconfig", "host", "--testcase", "clijob",
                "--params", '{"nr_task": 1}', "--tbox-group", tbox, "--repeat", "2", *extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        reply = json.loads(r.stdout)
        self.assertEqual(reply["state"], "queued")
        return reply["id"]

    def worker(self, m, jid, commit, status="ok", delay=0.3):
        """Plays the worker in a thread: lease, two phases, complete."""
        def run():
            time.sleep(delay)
            r = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 5}, scope="worker")
            assert r.status == 200 and r.json()["job"]["id"] == jid, r
            for phase in ("run", "upload"):
                time.sleep(delay)
                srv.post("/api/v1/jobs/%d/heartbeat" % jid,
                         {"machine_id": m, "phase": phase, "progress": 0.5}, scope="worker")
            time.sleep(delay)
            body = {"machine_id": m, "status": status, "log_tail": "regtrack-worker: bad_params: no 'nr_task'\n"}
            if status == "ok":
                body["results"] = [result_doc(commit, testcase="clijob", job_id=jid, kconfig="host",
                                              params={"nr_task": 1}, metrics={"clijob.ops": [1.0 + i]})
                                   for i in range(2)]
            r = srv.post("/api/v1/jobs/%d/complete" % jid, body, scope="worker")
            assert r.status == 200, r
        t = threading.Thread(target=run)
        t.start()
        return t

    def test_submit_show_list_wait_ok(self):
        m = register("cli-w1", "cli-1")
        jid = self.submit(sha("6a"), "cli-1")
        r = cli("job", "show", str(jid))
        self.assertEqual(r.returncode, 0, r.stderr)
        shown = json.loads(r.stdout)
        self.assertEqual((shown["id"], shown["testcase"], shown["params"], shown["repeat"], shown["tbox_group"]),
                         (jid, "clijob", {"nr_task": 1}, 2, "cli-1"))
        r = cli("job", "list", "--state", "queued")
        self.assertEqual(r.returncode, 0, r.stderr)
        mine = [ln for ln in r.stdout.splitlines() if ln.split()[0] == str(jid)]
        self.assertEqual(len(mine), 1, r.stdout)
        self.assertEqual(mine[0].split()[1:5], ["queued", "-", "clijob", '{"nr_task":1}'])
        t = self.worker(m, jid, sha("6a"))
        r = cli("job", "wait", str(jid), "--interval", "1", "--timeout", "60")
        t.join()
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual([ln.split()[3] for ln in lines[:-1]], ["leased", "run", "upload", "done"], r.stdout)
        self.assertIn(" attempt=1 ", lines[0] + " ")
        self.assertIn(" outcome=ok", lines[-2])
        self.assertEqual(lines[-1], "job %d: done, ok, 2 run(s)" % jid)

    def test_wait_on_a_job_without_run_fails_with_the_reason(self):
        m = register("cli-w2", "cli-2")
        jid = self.submit(sha("6b"), "cli-2")
        t = self.worker(m, jid, sha("6b"), status="run-failed", delay=0.1)
        r = cli("job", "wait", str(jid), "--interval", "1")
        t.join()
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1],
                         "job %d: done, run-failed: run-failed: regtrack-worker: bad_params: no 'nr_task'" % jid)

    def test_cancel_then_wait_and_timeout(self):
        jid = self.submit(sha("6c"), "cli-nobody")
        r = cli("job", "wait", str(jid), "--interval", "1", "--timeout", "1")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("job %d still queued after 1 s" % jid, r.stderr)
        r = cli("job", "cancel", str(jid), token="read")
        self.assertEqual(r.returncode, 2)
        self.assertIn("403", r.stderr)
        r = cli("job", "cancel", str(jid))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout), {"id": jid, "state": "cancelled", "was": "queued"})
        r = cli("job", "cancel", str(jid))
        self.assertEqual(r.returncode, 2)
        self.assertIn("409 job %d is cancelled: only a queued or leased job can be cancelled (state)" % jid,
                      r.stderr)
        r = cli("job", "wait", str(jid))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "job %d: cancelled" % jid)
        r = cli("job", "show", "999999")
        self.assertEqual(r.returncode, 2)
        self.assertIn("404", r.stderr)

    def test_submit_params_as_k_v_or_json(self):
        for form, want in ((["--params", "nr_task=3"], {"nr_task": 3}),
                           (["--params", '{"nr_task": 3}', "--params", "mode=thread"],
                            {"nr_task": 3, "mode": "thread"})):
            r = cli("job", "submit", "--commit", sha("6b"), "--kconfig", "host", "--testcase",
                    "clijob", "--tbox-group", "cli-kv", *form)
            self.assertEqual(r.returncode, 0, r.stderr)
            jid = json.loads(r.stdout)["id"]
            self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["params"], want)
            self.assertEqual(cli("job", "cancel", str(jid)).returncode, 0)

    def test_submit_with_monitors(self):
        jid = self.submit(sha("6d"), "cli-mon", "--monitors", "perf-profile,perf-stat")
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["monitors"],
                         ["perf-profile", "perf-stat"])
        r = cli("job", "show", str(jid))
        self.assertEqual(json.loads(r.stdout)["monitors"], ["perf-profile", "perf-stat"])
        # without the flag: none
        jid2 = self.submit(sha("6e"), "cli-mon")
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid2).json()["monitors"], [])
        queued = srv.psql("SELECT count(*) FROM jobs")
        r = cli("job", "submit", "--commit", sha("6f"), "--kconfig", "host", "--testcase", "clijob",
                "--tbox-group", "cli-mon", "--monitors", "perf-profile,perf-top")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn("POST /api/v1/jobs: 400 'monitors[1]' is 'perf-top': a monitor is "
                      "\"perf-profile\" or \"perf-stat\" (monitors[1])", r.stderr)
        self.assertEqual(srv.psql("SELECT count(*) FROM jobs"), queued)
        for j in (jid, jid2):
            self.assertEqual(cli("job", "cancel", str(j)).returncode, 0)

    def test_request_with_monitors(self):
        """regtrack test --monitors: the request's body carries the list as an array;
        a bad name is the server's 400 naming monitors[i], exit 2."""
        args = ["test", "--tree", "demo", "--base", sha("7a"), "--head", sha("7b"),
                "--testcase", "clijob", "--target", "x86_64"]
        cap = Capture()
        try:
            r = cli(*args, "--monitors", "perf-profile,perf-stat",
                    env={"REGTRACK_SERVER": cap.url})
            self.assertEqual(r.returncode, 0, r.stderr)
        finally:
            cap.close()
        self.assertEqual([(m, p) for m, p, _ in cap.requests], [("POST", "/api/v1/requests")])
        self.assertEqual(json.loads(cap.requests[0][2])["monitors"], ["perf-profile", "perf-stat"])
        r = cli(*args, "--monitors", "perf-stat,bogus")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("server answered 400: 'monitors[1]' is 'bogus': a monitor is "
                      "\"perf-profile\" or \"perf-stat\" (monitors[1])", r.stderr)


if __name__ == "__main__":
    unittest.main()
