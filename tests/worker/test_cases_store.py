"""Worker tier: the cases other than small-allocs end to end ("their
metrics land in the store").

The real regtrack-server (throwaway PostgreSQL, port 0) queues one host-mode
job per case with short params; one real regtrack-worker (`--capabilities
host`: the case runs on the running kernel) leases and runs them all, and
uploads. Each run is then read back through GET /api/v1/runs/{id} and, for
the stored form, from run_values/metrics with psql: the case's metric
names, one value per sample/window/iteration, values in plausible ranges
(no timing assertion: the bounds are orders of magnitude wide), and the
unit and direction the metric registry gave each new metric.

Whole test about 15 s (the cases run about 0.3 s each; the rest is the
server, the cluster and the worker's lease polling). Run with
tests/worker/run.sh (TESTS=test_cases_store to run it alone).
"""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# the module, not its TestCase (else its tests would run here again)
import test_worker as tw  # noqa: E402

# testcase, params (short: fast tier), {metric: (n values, low, high)},
# metrics that may be absent (kernel support), each with (n, low, high).
CASES = [
    ("proc-vs-map",
     {"nsamples": "2", "duration": "0.2", "busyduration": "1", "region_mb": "8"},
     # per sample: median/min/max mmap+munmap latency in ms, > 0, < 1 s
     {"proc-vs-map.median_ms": (2, 0, 1000),
      "proc-vs-map.min_ms": (2, 0, 1000),
      "proc-vs-map.max_ms": (2, 0, 60000),
      # a reader that got no read in fails the sample (and the run)
      "proc-vs-map.read_median_ms": (2, 0, 1000)},
     {}),
    ("page-fault",
     {"nr_task": "1", "mode": "process", "size_mb": "16", "runtime": "0.2",
      "iterations": "2", "warmup": "0"},
     # per window: write faults per second (a 16 MiB map is 4096 faults)
     {"page-fault.ops_per_sec": (2, 0, 1e9),
      "page-fault.total_ops_per_sec": (2, 0, 1e9)},
     {}),
    ("page-fault",
     {"nr_task": "2", "mode": "thread", "size_mb": "16", "runtime": "0.2",
      "warmup": "0"},
     {"page-fault.ops_per_sec": (1, 0, 1e9),
      "page-fault.total_ops_per_sec": (1, 0, 1e9)},
     {}),
    ("exit-teardown",
     {"size": "16", "iterations": "2", "warmup": "0"},
     # per iteration: SIGKILL to reap of a 16 MiB process, ms
     {"exit-teardown.teardown_ms": (2, 0, 60000)},
     # process_mrelease (Linux 5.15+): absent where the kernel lacks it
     {"exit-teardown.mrelease_ms": (2, 0, 60000)}),
    ("execl",
     {"nr_task": "1", "runtime": "0.2", "warmup": "0"},
     {"execl.lps": (1, 0, 1e7)},
     {}),
    # a tool case: the host's stress-ng, its output parsed by
    # lib/parse/stress_ng.c into LKP's names
    ("stress-ng",
     {"stressor": "brk", "nr_threads": "1", "timeout": "1s"},
     {"stress-ng.brk.ops": (1, 0, 1e12), "stress-ng.brk.ops_per_sec": (1, 0, 1e12),
      "stress-ng.brk.nanosecs_per_sbrk_page_expand": (1, 0, 1e12)},
     # a shrink too quick to time prints 0.00 (seen in a guest)
     {"stress-ng.brk.nanosecs_per_sbrk_page_shrink": (1, -1, 1e12)}),
    # rt-tests' hackbench, two iterations: LKP's per-run figures and each
    # iteration's KB/s
    ("hackbench",
     {"mode": "threads", "ipc": "pipe", "loops": "20", "iterations": "2"},
     {"hackbench.throughput": (1, 0, 1e12), "hackbench.throughput_avg": (1, 0, 1e12),
      "hackbench.throughput_worst": (1, 0, 1e12), "hackbench.throughput_best": (1, 0, 1e12),
      "hackbench.iteration_throughput": (2, 0, 1e12)},
     {}),
    # sysbench's cpu and memory tests (its own labels: lib/parse/sysbench.c)
    ("sysbench", {"test": "cpu", "time": "1s"},
     {"sysbench.events_per_sec": (1, 0, 1e12), "sysbench.total_events": (1, 0, 1e15),
      "sysbench.latency_avg_ms": (1, 0, 1e6)},
     {}),
    ("sysbench", {"test": "memory", "nr_threads": "2", "time": "1s"},
     {"sysbench.operations_per_sec": (1, 0, 1e15), "sysbench.MiB_per_sec": (1, 0, 1e12)},
     {}),
    # the host's fio on a tmpfs, its JSON parsed by lib/parse/fio.c (LKP's
    # names); randrw: both the read and the write figures
    ("fio", {"rw": "randrw", "bs": "4k", "size_mb": "8", "nr_task": "2", "runtime": "1s"},
     {"fio.read_bw_MBps": (1, 0, 1e7), "fio.read_iops": (1, 0, 1e9),
      "fio.read_clat_mean_ns": (1, 0, 1e10), "fio.read_clat_99%_ns": (1, 0, 1e10),
      "fio.write_bw_MBps": (1, 0, 1e7), "fio.write_iops": (1, 0, 1e9),
      "fio.write_clat_mean_ns": (1, 0, 1e10), "fio.workload": (1, 0, 1e12)},
     {}),
    # perf bench (the host's perf in host mode), LKP's perf-bench-* names
    ("perf-bench", {"bench": "sched-pipe", "loops": "2000", "iterations": "2"},
     {"perf-bench-sched-pipe.ops_per_sec": (2, 0, 1e12),
      "perf-bench-sched-pipe.usecs_per_op": (2, 0, 1e9)},
     {}),
    ("perf-bench", {"bench": "mem-memcpy", "function": "default", "size_kb": "1024",
                    "loops": "4"},
     {"perf-bench-mem-memcpy.default.GB_per_sec": (1, 0, 1e6)},
     {}),
]

# unit and direction the registry (lib/stats/metric.c) gives: stored with
# the metric when a run first brings it
REGISTRY = {
    "proc-vs-map.median_ms": ("ms", "f"),
    "page-fault.ops_per_sec": ("ops/s", "t"),
    "exit-teardown.teardown_ms": ("ms", "f"),
    "execl.lps": ("lps", "t"),
}


class CasesStoreTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="regtrack-wt-", dir=os.environ.get("REGTRACK_TEST_TMP"))
        self.srv = None
        self.w = None

    def tearDown(self):
        if self.w and self.w.proc.poll() is None:
            self.w.proc.kill()
            self.w.wait()
        if self.srv:
            self.srv.stop()

    tbox = "wt-cases-store"

    def job(self, s, job_id):
        r = s.get("/api/v1/jobs/%d" % job_id, scope="read")
        self.assertEqual(r.status, 200, r)
        return r.json()

    def submit_case(self, s, testcase, params):
        r = s.post("/api/v1/jobs", {
            "commit": tw.COMMIT, "kconfig": "host", "compiler": "gcc-12",
            "testcase": testcase, "params": params,
            "tbox_group": self.tbox, "repeat": 1}, scope="submit")
        self.assertIn(r.status, (200, 201), r)
        return r.json()["id"]

    def check_values(self, where, vals, n, low, high):
        self.assertEqual(len(vals), n, where)
        for v in vals:
            self.assertGreater(v, low, where)
            self.assertLess(v, high, where)

    def test_cases_metrics_stored(self):
        s = self.srv = tw.harness.Server()
        jobs = [(self.submit_case(s, tc, params), tc, want, maybe)
                for tc, params, want, maybe in CASES]
        w = self.w = tw.Worker(s, os.path.join(self.tmp, "w"), self.tbox, once=False)
        tw.wait_for(lambda: all(self.job(s, j)["state"] in ("done", "failed")
                                for j, *_ in jobs),
                    timeout=240, step=0.5, what="all case jobs done")
        self.assertEqual(w.stop(), 0, w.text())
        for job_id, tc, want, maybe in jobs:
            j = self.job(s, job_id)
            self.assertEqual((j["state"], j["outcome"]), ("done", "ok"), (tc, j, w.text()))
            ids = j["runs"]
            self.assertEqual(len(ids), 1, j)
            r = s.get("/api/v1/runs/" + ids[0], scope="read")
            self.assertEqual(r.status, 200, r)
            run = r.json()
            metrics = run.get("metrics", {})
            self.assertEqual(run.get("job_id"), job_id, run)
            self.assertEqual(run.get("commit"), tw.COMMIT, run)
            for name, (n, low, high) in want.items():
                self.assertIn(name, metrics, (tc, sorted(metrics)))
                self.check_values("%s %s (api)" % (tc, name), metrics[name], n, low, high)
            for name, (n, low, high) in maybe.items():
                if name in metrics:
                    self.check_values("%s %s (api)" % (tc, name), metrics[name], n, low, high)
            # a tool case: the version of the tool that ran, as it printed it
            version = {"stress-ng": "stress-ng, version 0.", "hackbench": "hackbench V ",
                       "sysbench": "sysbench 1.", "perf-bench": "perf version ",
                       "fio": "fio-3."}
            tool = "perf" if tc == "perf-bench" else tc  # perf-bench runs perf
            if tc in version:
                self.assertTrue(run["extra"].get("tools", {}).get(tool, "").startswith(
                    version[tc]), run)
            # nothing but the case's own keys (perf bench's are LKP's, named
            # by its testcases perf-bench-COLLECTION-BENCH)
            own = "perf-bench-" if tc == "perf-bench" else tc + "."
            for name in metrics:
                self.assertTrue(name.startswith(own), (tc, name))
            # the stored form: one run_values row per metric, same values
            rows = s.psql(
                "SELECT m.name || '=' || array_to_string(rv.vals, ',') "
                "FROM run_values rv JOIN metrics m ON m.id = rv.metric_id "
                "JOIN runs r ON r.id = rv.run_id "
                "WHERE r.run_id = '%s' ORDER BY m.name" % ids[0])
            stored = {}
            for line in rows.splitlines():
                # a name may hold "=" (fio.latency_>=2000ms%), the values not
                name, vals = line.rsplit("=", 1)
                stored[name] = [float(x) for x in vals.split(",")]
            self.assertEqual(sorted(stored), sorted(metrics), tc)
            for name, vals in stored.items():
                self.assertEqual(len(vals), len(metrics[name]), name)
                for a, b in zip(vals, metrics[name]):
                    self.assertAlmostEqual(a, b, delta=abs(b) * 1e-12, msg=name)
        # the two page-fault jobs are two setups (mode is a param), not one
        n = s.psql("SELECT count(DISTINCT r.setup_id) FROM runs r JOIN setups st "
                   "ON st.id = r.setup_id JOIN testcases t ON t.id = st.testcase_id "
                   "WHERE t.name = 'page-fault'")
        self.assertEqual(int(n), 2)
        for name, (unit, hib) in REGISTRY.items():
            got = s.psql("SELECT unit || ' ' || coalesce(higher_is_better::text, 'null') "
                         "FROM metrics WHERE name = '%s'" % name)
            self.assertEqual(got, "%s %s" % (unit, "true" if hib == "t" else "false"), name)


if __name__ == "__main__":
    unittest.main()
