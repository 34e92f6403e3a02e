"""The offline commands of regtrack: formats in --help, detect says why and
reads --score's labelled text, parse's exit status, --tasks, and parse --result
-> submit -> stored."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server, sha  # noqa: E402
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


RAW_WIS = ("testcase:Separate file mmap/munmap\nwarmup\nmin:100 max:110 total:1700\n"
           "measurement\nmin:101 max:111 total:1710\nmin:99 max:109 total:1690\naverage:1700\n")


class Offline(unittest.TestCase):
    """The offline commands: formats in --help, detect says why, parse's
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

    def test_detect_score_takes_its_options_in_any_order(self):
        os.makedirs(os.path.join(self.tmp, "labelled"), exist_ok=True)
        # a 20 % step at row 10, labelled where it is (TP)
        rows = ["%d TN" % v for v in (100, 100, 101, 99, 100, 100, 101, 99, 100, 100)]
        rows += ["80 TP"] + ["%d TN" % v for v in (80, 81, 79, 80, 80, 81, 79, 80, 80)]
        self.file(os.path.join("labelled", "step.txt"), "\n".join(rows) + "\n")
        d = os.path.join(self.tmp, "labelled")
        outs = [self.cli("detect", *args) for args in
                (("--score", d, "--json"), ("--score", "--json", d), ("--json", "--score", d))]
        for out in outs:
            self.assertEqual(out.returncode, 0, out)
            self.assertEqual(out.stdout, outs[0].stdout)
        doc = json.loads(outs[0].stdout)
        a = doc["alerts"]
        self.assertEqual((a["changes"], a["found_5"], a["far"]), (1, 1, 0), a)
        # --explain is one series' trace: refused with a reason, not ignored
        out = self.cli("detect", "--score", "--explain", d)
        self.assertEqual(out.returncode, 2, out)
        self.assertIn("--explain is for one series", out.stderr)
        self.assertEqual(out.stdout, "")

    def test_detect_reads_the_labelled_text_and_ignores_its_labels(self):
        vals = (100, 100, 101, 99, 100, 100, 101, 99, 100, 100, 80, 80, 81, 79, 80, 80, 81, 79,
                80, 80)
        labels = ["TN"] * 10 + ["TP"] + ["TN"] * 9
        plain = self.file("step-plain.txt", "".join("%d\n" % v for v in vals))
        lab = self.file("step-lab.txt", "# Perfherder alert\n" +
                        "".join("%d %s\n" % (v, k) for v, k in zip(vals, labels)))
        for args in ((), ("--explain",)):
            want, got = self.cli("detect", *args, plain), self.cli("detect", *args, lab)
            self.assertEqual((got.returncode, got.stdout, got.stderr),
                             (0, want.stdout, want.stderr), got)
            self.assertEqual([c["index"] for c in json.loads(got.stdout)["change_points"]], [10])
        self.assertIn("explain: ", got.stderr)
        # a missing value (nan) is left out; the indices still count its line
        rows = ["%d %s" % (v, k) for v, k in zip(vals, labels)]
        rows[3] = "nan TN"
        doc = json.loads(self.cli("detect", self.file("step-nan.txt", "\n".join(rows))).stdout)
        self.assertEqual((doc["n_values"], [c["index"] for c in doc["change_points"]]),
                         (19, [10]), doc)
        # bad lines are still refused, by line number
        for text, says in (("100 TN\n101 TN\n99 XX\n", "line 3: label 'XX' is none of TP"),
                           ("# c\n100 TN\nabc\n", "line 3: expected 'value label', got 'abc'"),
                           ("100\n200.6 TN\n", "line 2: '200.6 TN' is not a number"),
                           ("1e300 TN\n", "line 1: '1e300' is out of range"),
                           # only nan is missing: inf and overflow are refused, not dropped
                           ("1e400 TN\n2 TN\n3 TN\n", "line 1: '1e400' is out of range"),
                           ("2 TN\n# c\ninf TN\n3 TN\n", "line 3: 'inf' is out of range"),
                           ("2 TN\n-inf TN\n3 TN\n", "line 2: '-inf' is out of range")):
            out = self.cli("detect", self.file("bad.txt", text))
            self.assertEqual((out.returncode, out.stdout), (2, ""), out)
            self.assertIn(says, out.stderr)

    def test_detect_refuses_what_the_api_refuses(self):
        p = self.file("flat2.txt", "100\n101\n99\n100\n102\n100\n101\n99\n")
        # the bounds of a plan's detect settings (lib/stats/detect_keys.h)
        for args, says in ((("--p-max", "2"), "--p-max 2 is outside 0..1"),
                           (("--p-max", "-1"), "--p-max -1 is outside 0..1"),
                           (("--min-change", "-5"), "--min-change -5 is outside 0..1000"),
                           (("--min-change", "1001"), "--min-change 1001 is outside 0..1000"),
                           (("--window", "4"), "--window 4 is outside 8..100000"),
                           (("--min-seg", "0"), "--min-seg 0 is outside 1..1000"),
                           (("--min-seg", "40"), "--min-seg 40 is more than half of --window 64"),
                           (("--window", "16", "--min-seg", "9"), "--min-seg 9 is more than half")):
            for score in ((), ("--score",)):
                out = self.cli("detect", *score, *args, p)
                self.assertEqual((out.returncode, out.stdout), (2, ""), out)
                self.assertIn(says, out.stderr)
        for args in (("--p-max", "1"), ("--min-change", "1000"), ("--window", "16", "--min-seg", "8")):
            self.assertEqual(self.cli("detect", *args, p).returncode, 0, args)
        # a file with no values is an input error, not "too few commits (0)"
        for name, text in (("empty.txt", ""), ("comments.txt", "# nothing yet\n"),
                           ("empty.json", "[]"), ("nans.txt", "nan TN\nnan TN\n"),
                           ("novalues.json", '{"values": []}')):
            out = self.cli("detect", self.file(name, text))
            self.assertEqual((out.returncode, out.stdout), (2, ""), out)
            self.assertIn("no values", out.stderr)
        # every value missing: no values for detect, and for --score too (a series with
        # nothing measured would score F1 1.0 and lift the directory's average)
        for name, text in (("allnan.txt", "nan TN\nnan TN\n"),
                           ("allnull.json", '{"values": [null, null, null], "annotations": '
                                            '{"1": [1]}}'),
                           ("allnull-ours.json", '{"values": [null, null], "changes": [1]}')):
            for score in ((), ("--score",)):
                out = self.cli("detect", *score, self.file(name, text))
                self.assertEqual((out.returncode, out.stdout), (2, ""), out)
                self.assertIn("no values: every value is missing (null or nan)", out.stderr)
        # a plan's fifth detect key, min_effect, bounded as the API bounds it
        out = self.cli("detect", "--min-effect", "101", p)
        self.assertEqual((out.returncode, out.stdout), (2, ""), out)
        self.assertIn("--min-effect 101 is outside 0..100", out.stderr)
        # what the command line cannot mean is named, not answered with the usage text
        for args, says in ((("--score", p, p), "one FILE (with --score: one FILE or DIR), not"),
                           (("--score", "--tail", "3", p), "--tail checks one series' last"),
                           (("--json", p), "--json is for --score")):
            out = self.cli("detect", *args)
            self.assertEqual((out.returncode, out.stdout), (2, ""), out)
            self.assertIn(says, out.stderr)
            self.assertNotIn("usage:", out.stderr)
        # a directory where a series file is expected says why it cannot be read
        d = os.path.join(self.tmp, "with-dir")
        os.makedirs(os.path.join(d, "dir.json"), exist_ok=True)
        out = self.cli("detect", "--score", d)
        self.assertEqual((out.returncode, out.stdout), (2, ""), out)
        self.assertIn("cannot read '%s/dir.json': Is a directory" % d, out.stderr)
        # our JSON form under --score: past 2^63 refused as plain detect refuses it
        big = self.file("big.json", '{"values": [1e300, 2, 3, 4, 5, 6], "changes": [1]}')
        for args in (("--score",), ()):
            out = self.cli("detect", *args, big)
            self.assertEqual((out.returncode, out.stdout), (2, ""), out)
            self.assertIn("values[0] is out of range", out.stderr)

    def test_detect_explains_a_labelled_json_with_missing_values(self):
        # TCPD's uk_coal_employ (105 years, values 8 and 13 null): scored by --score and
        # explained from the same file, the nulls left out, the indices the file's
        p = os.path.join(ROOT, "tests/fixtures/realcpd/tcpd/uk_coal_employ.json")
        with open(p) as f:
            vals = json.load(f)["values"]
        self.assertEqual([i for i, v in enumerate(vals) if v is None], [8, 13])
        out = self.cli("detect", "--explain", p)
        self.assertEqual(out.returncode, 0, out)
        doc = json.loads(out.stdout)
        self.assertEqual((doc["n_values"], doc["n_commits"]), (103, 103), doc)
        # the first window: 64 measured commits, 66 positions of the file
        self.assertEqual(doc["explain"][0]["window"], [0, 66])
        # the same detection as on the values without the nulls, in the file's positions
        kept = [i for i, v in enumerate(vals) if v is not None]
        plain = json.loads(self.cli("detect", self.file(
            "coal-kept.json", json.dumps([vals[i] for i in kept]))).stdout)
        self.assertEqual([c["index"] for c in doc["change_points"]],
                         [kept[c["index"]] for c in plain["change_points"]])
        # with groups (our form), a missing value leaves its group out
        g = self.file("grouped-null.json", json.dumps({
            "values": [100, 101, None, 100, 80, 81, 80, 79], "groups": [0, 0, 1, 1, 2, 2, 3, 3],
            "changes": [2]}))
        doc = json.loads(self.cli("detect", "--explain", g).stdout)
        self.assertEqual((doc["n_values"], doc["n_commits"]), (7, 4), doc)

    def test_detect_tail_right_after_a_found_step(self):
        # 52 commits near 100, then 8 near 90: the detector finds the step at 52, and
        # --tail 8 compares those 8 with the 52 before the step, not with none after it
        vals = ([100 + ((i * 7) % 5 - 2) * 0.3 for i in range(52)] +
                [90 + ((i * 3) % 5 - 2) * 0.3 for i in range(8)])
        p = self.file("tail.txt", "".join("%.1f\n" % v for v in vals))
        out = self.cli("detect", "--tail", "8", p)
        self.assertEqual(out.returncode, 0, out)
        doc = json.loads(out.stdout)
        self.assertEqual([c["index"] for c in doc["change_points"]], [52])
        t = doc["tail_check"]
        ref, tail = statistics.median(vals[:52]), statistics.median(vals[52:])
        self.assertEqual((t["commits"], t["alarm"], t["reference_commits"]), (8, -1, 52), t)
        self.assertAlmostEqual(t["reference_median"], ref, places=9)
        self.assertAlmostEqual(t["change_pct"], 100 * (tail - ref) / ref, places=6)
        # the last 6: the 2 commits after the step before them are the reference, their
        # median given; too few for a noise model, so no alarm
        t = json.loads(self.cli("detect", "--tail", "6", p).stdout)["tail_check"]
        self.assertEqual((t["commits"], t["alarm"], t["reference_commits"]), (6, 0, 2), t)
        self.assertAlmostEqual(t["reference_median"], statistics.median(vals[52:54]), places=9)
        self.assertAlmostEqual(t["change_pct"],
                               100 * (statistics.median(vals[54:]) - t["reference_median"]) /
                               t["reference_median"], places=6)

    def test_detect_explain_numbers_lines_when_some_are_nan(self):
        # 40 lines, nan at line 10, -10 % from line 20: the detector sees 39 values
        rows = ["100 TN"] * 10 + ["nan TN"] + ["100.2 TN"] * 9 + ["90 TP"] + ["90.1 TN"] * 19
        out = self.cli("detect", "--explain", self.file("vl-nan.txt", "\n".join(rows) + "\n"))
        self.assertEqual(out.returncode, 0, out)
        doc = json.loads(out.stdout)
        self.assertEqual((doc["n_values"], doc["n_commits"]), (39, 39), doc)
        self.assertEqual([c["index"] for c in doc["change_points"]], [11, 20])
        # the window of the whole file is its 40 lines, in the index's numbers
        first = doc["explain"][0]
        self.assertEqual((first["stage"], first["window"], first["index"]), ("window", [0, 40], 20))
        self.assertIn("explain: window [0, 40) split before commit 20: 100 -> 90.1", out.stderr)
        # a window that starts after the nan starts at a line index too
        self.assertIn(("window", [11, 40], 20),
                      [(c["stage"], c["window"], c["index"]) for c in doc["explain"]])
        # no noise model (null in the JSON) reads as such, not "nan sigma"
        unknown = [c for c in doc["explain"] if c["noise_sigma"] is None]
        self.assertTrue(unknown, doc["explain"])
        self.assertNotIn("nan sigma", out.stderr)
        self.assertIn("p 0.000152, sigma unknown: kept", out.stderr)

    def test_detect_score_with_no_true_change_prints_a_dash(self):
        p = self.file("quiet.txt", "".join("%d TN\n" % v for v in (100, 101, 99, 100) * 5))
        out = self.cli("detect", "--score", p)
        self.assertEqual(out.returncode, 0, out)
        self.assertIn("0 of 0 true changes found within +-5 (-), 0 within +-20 (-);", out.stdout)
        self.assertNotIn("nan", out.stdout)

    def test_detect_score_that_fails_prints_nothing_on_stdout(self):
        d = os.path.join(self.tmp, "some-bad")
        os.makedirs(d, exist_ok=True)
        self.file(os.path.join("some-bad", "a-good.txt"),
                  "".join("%d TN\n" % v for v in (100, 101, 99, 100, 100, 101, 99, 100)))
        self.file(os.path.join("some-bad", "b-bad.txt"), "100 TN\n101 XX\n")
        for args in ((d,), (d, "--json")):
            out = self.cli("detect", "--score", *args)
            self.assertEqual((out.returncode, out.stdout), (2, ""), out)
            self.assertIn("line 2: label 'XX'", out.stderr)
        out = self.cli("detect", "--score", os.path.join(d, "a-good.txt"))
        self.assertEqual(out.returncode, 0, out)
        self.assertTrue(out.stdout.startswith("series "), out.stdout)
        self.assertIn("a-good ", out.stdout)

    def test_detect_score_reads_old_mac_files_and_names_twins_and_empty_files(self):
        d = os.path.join(self.tmp, "twins")
        os.makedirs(d, exist_ok=True)
        v = [100, 101, 99, 100] * 5 + [92, 93, 91, 92] * 2
        # lone CRs end lines (an old Mac file was one long line, refused by its first label)
        with open(os.path.join(d, "a.txt"), "w", newline="") as f:
            f.write("".join("%d %s\r" % (x, "FN" if i == 20 else "TN") for i, x in enumerate(v)))
        # the same series under the same name in TCPD's form: two rows told apart by file
        with open(os.path.join(d, "b.json"), "w") as f:
            json.dump({"name": "a", "values": v, "annotations": {"1": [20]}}, f)
        out = self.cli("detect", "--score", d)
        self.assertEqual(out.returncode, 0, out)
        rows = [ln.split() for ln in out.stdout.splitlines()[1:3]]
        self.assertEqual([(r[0], r[1], r[2], r[3]) for r in rows],
                         [("a.txt", "28", "1", "1.000"), ("b.json", "28", "1", "1.000")], out.stdout)
        self.assertIn("1 of 1 true changes found within +-5", out.stdout)
        # one name once: the name, not the file
        out = self.cli("detect", "--score", os.path.join(d, "a.txt"))
        self.assertEqual(out.stdout.splitlines()[1].split()[0], "a", out.stdout)
        # an empty file (or one of comments) says so, in either form's extension
        for name, text in (("empty.json", ""), ("comments.txt", "# nothing yet\n\n")):
            p = self.file(name, text)
            out = self.cli("detect", "--score", p)
            self.assertEqual((out.returncode, out.stdout), (2, ""), out)
            self.assertIn("'%s': no values: the file is empty (or only comments)" % p, out.stderr)

    def test_compare_samples_names_an_unreadable_file_once(self):
        good = self.file("one.txt", "1\n2\n3\n")
        for path, says in ((self.tmp, "regtrack: cannot read '%s': Is a directory\n" % self.tmp),
                           (os.path.join(self.tmp, "none.txt"),
                            "regtrack: cannot open '%s': No such file or directory\n"
                            % os.path.join(self.tmp, "none.txt"))):
            out = self.cli("compare-samples", path, good)
            self.assertEqual((out.returncode, out.stdout, out.stderr), (2, "", says))
        # a bad line is named with its file
        bad = self.file("bad.txt", "1\nabc\n")
        out = self.cli("compare-samples", good, bad)
        self.assertEqual((out.returncode, out.stderr),
                         (2, "regtrack: '%s': line 2: 'abc' is not a number\n" % bad))

    def test_compare_samples_gate_never_passes_what_it_could_not_decide(self):
        """compare-samples --gate: 1 on a regression, 3 when the data cannot decide
        (need-more-runs, an unknown direction, one constant value at both), 0 only
        for a decided pass; before, every undecided drop exited 0."""
        def vals(level, n, noise=0.004):
            return "".join("%r\n" % (level * (1 + noise * ((i * 7919) % 11 - 5) / 5))
                           for i in range(n))

        def gate(base, head, *opts):
            out = self.cli("compare-samples", "--gate", *(opts or ("higher",)),
                           self.file("gb.txt", base), self.file("gh.txt", head))
            return out.returncode, json.loads(out.stdout)["verdict"], out.stderr

        # -8 % at 3 vs 3 runs, 0.4 % noise: p cannot go below 0.1
        rc, verdict, err = gate(vals(1000, 3), vals(920, 3))
        self.assertEqual((rc, verdict), (3, "need-more-runs"), err)
        self.assertIn("regtrack: gate: undecided: need-more-runs: -8.0% with 3 vs 3 runs", err)
        self.assertIn("p 0.1, the least these runs can reach 0.1", err)
        # one run a side, and an empty base (a benchmark that wrote nothing)
        self.assertEqual(gate("1000\n", "900\n")[:2], (3, "need-more-runs"))
        rc, verdict, err = gate("", vals(920, 10))
        self.assertEqual((rc, verdict), (3, "need-more-runs"), err)
        self.assertIn("0 vs 10 runs: the base has no runs", err)
        # 4 of 10 runs 20 % down, the rest 1 % up: neither decided nor passed
        self.assertEqual(gate("100\n" * 10, "101\n" * 6 + "80\n" * 4)[:2],
                         (3, "need-more-runs"))
        # decided: the same drop at 10 vs 10 is a regression; for a latency an improvement
        rc, verdict, err = gate(vals(1000, 10), vals(920, 10))
        self.assertEqual((rc, verdict), (1, "different"), err)
        self.assertIn("regtrack: gate: regression: -8.0% (Hodges-Lehmann shift", err)
        self.assertEqual(gate(vals(1000, 10), vals(920, 10), "auto", "--metric",
                              "fio.read_clat_mean_us")[:2], (0, "different"))
        # a change in a direction the metric does not know
        rc, verdict, err = gate(vals(1000, 10), vals(920, 10), "auto", "--metric", "foo.bar")
        self.assertEqual((rc, verdict), (3, "different"), err)
        self.assertIn("a direction the metric does not know", err)
        # one constant value at both sides: same, but no evidence
        rc, verdict, err = gate("7\n" * 6, "7\n" * 6)
        self.assertEqual((rc, verdict), (3, "same"), err)
        self.assertIn("one constant value", err)
        # decided the same: a 0.1 % drift inside the 1 % floor passes
        rc, verdict, err = gate(vals(1000, 40), vals(999, 40))
        self.assertEqual((rc, verdict, err), (0, "same", ""))
        # 40 of 100 latency runs 50 % slower: the whole sample's shift +0.4 % lies inside a
        # 5 % floor (it read `same` and passed), but part of the runs moved
        moved = "".join("%r\n" % ((150 if i % 5 < 2 else 100)
                                  * (1 + 0.004 * ((i * 7919) % 11 - 5) / 5)) for i in range(100))
        rc, verdict, err = gate(vals(100, 100), moved, "lower", "--floor", "5")
        self.assertEqual((rc, verdict), (3, "need-more-runs"), err)
        self.assertIn("regtrack: gate: undecided: part of the runs moved: 40 of 100 head runs are "
                      "outliers against 0 of 100 base runs (Hodges-Lehmann shift +0.4%; means "
                      "+20.0%; p 4.9e-07): not one shift, look at the runs", err)

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


if __name__ == "__main__":
    unittest.main()
