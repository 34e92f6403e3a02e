"""Why was this (not) flagged? (issue 27, item 3)

Offline: `regtrack detect --explain` on a stored clean -8 % step
(tests/fixtures/detect/step-8pct.txt): every candidate in words and in the
JSON, the step kept; with --min-change 10 the same split dropped, and
none_because naming that rule (not a guess).

Server: the reasons of the last detection of each series are kept
(sql/0023_detect_explain.sql) and sent by GET /api/v1/series as
"detection": a series with a clear step has its step kept at its commit; a
series that only wiggles has its best candidate dropped as "p above p_max".
"""
import hashlib
import json
import os
import random
import subprocess
import sys
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, TOP, Server, result_doc  # noqa: E402

STEP = os.path.join(TOP, "tests", "fixtures", "detect", "step-8pct.txt")


def cli(*args):
    return subprocess.run([os.path.join(BIN, "regtrack")] + list(args), capture_output=True,
                          text=True, timeout=60)


class Offline(unittest.TestCase):
    def test_explain_lists_every_candidate_and_keeps_the_step(self):
        out = cli("detect", "--explain", STEP)
        self.assertEqual(out.returncode, 0, out)
        self.assertEqual(out.stderr.splitlines(), [
            "explain: window [0, 28) split before commit 20: 99.944 -> 91.9495 (-8.00 %), "
            "p 1.48e-05, 21.9 sigma: kept",
            "explain: window [0, 20) split before commit 13: 100.063 -> 99.611 (-0.45 %), "
            "p 0.00735, 1.24 sigma: p above p_max",
            "explain: window [0, 20) split before commit 3 (excursion): 100.038 -> 100.149 "
            "(+0.11 %), p 0.554, 0.304 sigma: p above p_max",
            "explain: window [20, 28) split before commit 24: 91.9015 -> 92.0315 (+0.14 %), "
            "p 1, 0.356 sigma: p above p_max",
            "explain: final estimate [0, 28) split before commit 20: 99.944 -> 91.9495 "
            "(-8.00 %), p 1.48e-05, 21.9 sigma: kept",
        ])
        doc = json.loads(out.stdout)
        self.assertEqual([c["index"] for c in doc["change_points"]], [20])
        self.assertNotIn("none_because", doc)
        ex = doc["explain"]
        self.assertEqual([(c["stage"], c["window"], c["index"], c["excursion"], c["kept"],
                           c["reason"]) for c in ex], [
            ("window", [0, 28], 20, False, True, "kept"),
            ("window", [0, 20], 13, False, False, "p above p_max"),
            ("window", [0, 20], 3, True, False, "p above p_max"),
            ("window", [20, 28], 24, False, False, "p above p_max"),
            ("final", [0, 28], 20, False, True, "kept"),
        ])
        final = ex[-1]
        self.assertEqual((final["before"], final["after"]), (99.944, 91.9495))
        self.assertAlmostEqual(final["change_pct"], -7.998979, places=5)
        self.assertAlmostEqual(final["p_value"], 1.48000148e-5, places=12)
        self.assertAlmostEqual(final["effect"], 21.869071, places=5)
        self.assertAlmostEqual(final["noise_sigma"], 0.365562, places=5)
        # without --explain: no array, no lines
        out = cli("detect", STEP)
        self.assertNotIn("explain", json.loads(out.stdout))
        self.assertEqual(out.stderr, "")

    def test_a_step_under_min_change_is_dropped_by_that_rule(self):
        out = cli("detect", "--explain", "--min-change", "10", STEP)
        self.assertEqual(out.returncode, 0, out)
        self.assertEqual(out.stderr.splitlines(), [
            "explain: window [0, 28) split before commit 20: 99.944 -> 91.9495 (-8.00 %), "
            "p 1.48e-05, 21.9 sigma: |%change| below min_change_pct",
            "explain: window [0, 28) split before commit 3 (excursion): 100.038 -> 100.149 "
            "(+0.11 %), p 0.0562, 0.304 sigma: p above p_max",
            "regtrack: detect: no change point: the strongest candidate (window scan, split "
            "before commit 20: median 99.944 -> 91.9495, -8.00 %, p 1.48e-05) was dropped: "
            "|%change| below min_change_pct (-8.00 %, --min-change 10)",
        ])
        doc = json.loads(out.stdout)
        self.assertEqual(doc["change_points"], [])
        best = doc["none_because"]["best_split"]
        self.assertEqual((best["index"], best["window"], best["stage"], best["reason"],
                          best["before"], best["after"]),
                         (20, [0, 28], "window", "|%change| below min_change_pct", 99.944,
                          91.9495))
        self.assertEqual([(c["index"], c["kept"], c["reason"]) for c in doc["explain"]],
                         [(20, False, "|%change| below min_change_pct"),
                          (3, False, "p above p_max")])

    def test_ids_name_the_candidates_commits(self):
        with open(STEP) as f:
            vals = [x for x in f.read().splitlines() if x and not x.startswith("#")]
        p = os.path.join(os.environ.get("REGTRACK_TEST_TMP", "/tmp"), "explain-ids.json")
        with open(p, "w") as f:
            json.dump({"values": [float(x) for x in vals],
                       "ids": ["c%02d" % i for i in range(len(vals))]}, f)
        doc = json.loads(cli("detect", "--explain", p).stdout)
        self.assertEqual([(c["index"], c["id"]) for c in doc["explain"] if c["kept"]],
                         [(20, "c20"), (20, "c20")])
