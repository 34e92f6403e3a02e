"""Worker tier: the real regtrack-server (throwaway PostgreSQL, port 0) and the
real regtrack-worker in host mode (`--capabilities host`, jobs with kconfig
"host": the case runs on the running kernel, nothing is built).

What is checked ("Tests"):
- a job goes queued -> leased -> done and its metrics are in the store;
- a lease that is not renewed expires and the job is queued again;
- a worker whose lease was lost gets 409 and its completion is not stored;
- a completion spooled while the server is down arrives exactly once after it
  comes back, also across a worker restart;
- a lease whose reply a gateway lost (502 after the server leased the job) is
  asked for again by the same request id and the job runs at once, first
  attempt, instead of waiting out the lease;
- `--once` against a server that cannot be reached gives up after retry_max_s
  (exit 1), keeping what the spool holds;
- a job the worker cannot run (no such case binary) ends at once as
  run-failed with the reason in the job's log_tail; so does a job whose
  completion the server refused (400);
- a worker that registered before the server restarted with a smaller
  --lease-timeout heartbeats often enough for the new one.

Run with tests/worker/run.sh (make check-worker). Standard library only.
"""
import glob
import http.server
import json
import os
import threading
import urllib.error
import urllib.request
import signal
import subprocess
import sys
import tempfile
import time
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
import harness  # noqa: E402

BIN = harness.BIN
CASES = os.environ.get("REGTRACK_CASES", os.path.join(TOP, "bin", "cases"))
COMMIT = "1" * 40


def wait_for(pred, timeout=60, step=0.2, what="condition"):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    raise AssertionError("timed out waiting for " + what)


class Worker:
    """One regtrack-worker process with its own work dir."""

    def __init__(self, server, work_dir, tbox_group, *extra, once=True):
        self.log_path = os.path.join(work_dir, "worker.log")
        os.makedirs(work_dir, exist_ok=True)
        args = [os.path.join(BIN, "regtrack-worker"), "run",
                "--server", server.url, "--work-dir", work_dir,
                "--tbox-group", tbox_group, "--capabilities", "host",
                "--cases-dir", CASES, "--lease-wait", "2", "--retry-max", "1",
                "--heartbeat", "1", "--heartbeat-run", "1"] + list(extra)
        if once:
            args.insert(2, "--once")
        env = dict(os.environ, REGTRACK_TOKEN=server.tokens["worker"])
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log, env=env)

    def wait(self, timeout=300):
        try:
            return self.proc.wait(timeout)
        finally:
            self.log.close()

    def stop(self, timeout=120):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.wait(timeout)

    def text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()


class LossyGateway:
    """An HTTP proxy in front of a server (like nginx) that loses the reply of
    the first lease that carried a job: the server leased it, the worker gets
    502. Everything else is passed through."""

    def __init__(self, server):
        self.upstream = server.url
        self.tokens = server.tokens
        self.dropped = []           # (job id, request_id) of the lost replies
        gw = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def relay(self, method):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                req = urllib.request.Request(gw.upstream + self.path, data=body, method=method)
                for h in ("Authorization", "Content-Type"):
                    if self.headers.get(h):
                        req.add_header(h, self.headers[h])
                try:
                    with urllib.request.urlopen(req, timeout=120) as r:
                        status, data, ctype = r.status, r.read(), r.headers.get("Content-Type")
                except urllib.error.HTTPError as e:
                    status, data, ctype = e.code, e.read(), e.headers.get("Content-Type")
                if (self.path == "/api/v1/jobs/lease" and status == 200 and not gw.dropped):
                    gw.dropped.append((json.loads(data)["job"]["id"],
                                       json.loads(body).get("request_id")))
                    status, data, ctype = 502, b"<html>502 Bad Gateway</html>", "text/html"
                self.send_response(status)
                if ctype:
                    self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self.relay("GET")

            def do_POST(self):
                self.relay("POST")

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class WorkerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="regtrack-wt-", dir=os.environ.get("REGTRACK_TEST_TMP"))
        self.servers = []
        self.workers = []

    def tearDown(self):
        for w in self.workers:
            if w.proc.poll() is None:
                w.proc.kill()
                w.wait()
        for s in self.servers:
            s.stop()

    def server(self, *args):
        s = harness.Server(extra_args=args)
        self.servers.append(s)
        return s

    def worker(self, s, name, *extra, once=True):
        w = Worker(s, os.path.join(self.tmp, name), self.tbox, *extra, once=once)
        self.workers.append(w)
        return w

    @property
    def tbox(self):
        return "wt-" + self.id().rsplit(".", 1)[-1]

    def submit(self, s, runtime="0.2", repeat=2):
        r = s.post("/api/v1/jobs", {
            "commit": COMMIT, "kconfig": "host", "compiler": "gcc-12",
            "testcase": "small-allocs",
            "params": {"nr_task": "1", "runtime": runtime, "source": "anon"},
            "tbox_group": self.tbox, "repeat": repeat}, scope="submit")
        self.assertIn(r.status, (200, 201), r)
        return r.json()["id"]

    def job(self, s, job_id):
        r = s.get("/api/v1/jobs/%d" % job_id, scope="read")
        self.assertEqual(r.status, 200, r)
        return r.json()

    def state(self, s, job_id):
        return self.job(s, job_id)["state"]

    def run_ids(self, s, job_id):
        return self.job(s, job_id)["runs"]

    def assert_done_with_metrics(self, s, job_id, repeat):
        j = self.job(s, job_id)
        self.assertEqual(j["state"], "done", j)
        ids = self.run_ids(s, job_id)
        self.assertEqual(len(ids), repeat, j)
        self.assertEqual(len(set(ids)), repeat, j)
        for run_id in ids:
            r = s.get("/api/v1/runs/" + run_id, scope="read")
            self.assertEqual(r.status, 200, r)
            run = r.json()
            metrics = run.get("metrics", {})
            tp = metrics.get("small-allocs.throughput")
            self.assertTrue(tp, run)
            self.assertGreater(tp[0], 0, run)
            self.assertEqual(run.get("commit"), COMMIT, run)
            self.assertEqual(run.get("job_id"), job_id, run)
        # stored once: exactly `repeat` runs for this job in the database
        n = s.psql("SELECT count(*) FROM runs WHERE job_id = %d" % job_id)
        self.assertEqual(int(n), repeat)

    # -- queued -> leased -> done -----------------------------------------
    def test_host_job_done(self):
        s = self.server()
        job_id = self.submit(s, repeat=2)
        self.assertEqual(self.state(s, job_id), "queued")
        w = self.worker(s, "w")
        rc = w.wait()
        self.assertEqual(rc, 0, w.text())
        self.assert_done_with_metrics(s, job_id, 2)
        j = self.job(s, job_id)
        self.assertEqual(j["attempts"], 1, j)
        phases = [p["phase"] for p in j["phase_history"]]
        self.assertEqual(phases[0], "leased", j)
        self.assertEqual(phases[-1], "done", j)
        self.assertIn("upload", phases, j)
        # the spool is empty once the server acknowledged the completion
        self.assertEqual(glob.glob(os.path.join(self.tmp, "w", "spool", "*.json")), [])
        # register carried the fingerprint; the run its machine
        self.assertIn("registered at", w.text())
        # each run's host fingerprint names the accelerator that run used (host mode:
        # "host"), so a series that turns from KVM to TCG is an environment change
        for run_id in self.run_ids(s, job_id):
            extra = s.get("/api/v1/runs/" + run_id, scope="read").json()["extra"]
            self.assertEqual(extra["accel"], "host", extra)
            self.assertEqual(extra["host_fingerprint"]["accel"], extra["accel"], extra)

    def test_once_without_job_exits_0(self):
        s = self.server()
        w = self.worker(s, "idle")
        self.assertEqual(w.wait(60), 0, w.text())
        self.assertIn("no job offered", w.text())

    # -- SIGTERM finishes the running job, then exits ----------------------
    def test_sigterm_finishes_current_job(self):
        s = self.server()
        job_id = self.submit(s, runtime="3", repeat=1)
        w = self.worker(s, "w", once=False)
        # started: past "leased" (a job whose lease reply meets the stop is handed
        # back, README "SIGTERM"; that is not this test)
        wait_for(lambda: self.job(s, job_id)["phase"] not in (None, "queued", "leased"),
                 what="the job started")
        w.proc.send_signal(signal.SIGTERM)
        self.assertEqual(w.wait(), 0, w.text())
        self.assert_done_with_metrics(s, job_id, 1)
        self.assertIn("stopped after 1 job(s)", w.text())
        # idle: a stop cuts the lease long-poll short
        w = self.worker(s, "w2", "--lease-wait", "60", once=False)
        wait_for(lambda: "registered at" in w.text(), what="register")
        t0 = time.time()
        w.proc.send_signal(signal.SIGTERM)
        self.assertEqual(w.wait(), 0, w.text())
        self.assertIn("stopped after 0 job(s)", w.text())
        self.assertLess(time.time() - t0, 30)

    # -- lease expiry ----------------------------------------------------
    def test_lease_expiry_requeues(self):
        s = self.server("--lease-timeout", "2")
        job_id = self.submit(s, repeat=1)
        # a machine that leases and then vanishes (never heartbeats)
        r = s.post("/api/v1/workers/register", {
            "hostname": "ghost", "arch": os.uname().machine, "tbox_group": self.tbox,
            "nr_cpus": 1, "memory_mb": 512, "cpu_model": "none", "capabilities": ["host"],
            "fingerprint": {}}, scope="worker")
        self.assertEqual(r.status, 200, r)
        ghost = r.json()["machine_id"]
        r = s.post("/api/v1/jobs/lease", {"machine_id": ghost, "wait_s": 0}, scope="worker")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["job"]["id"], job_id)
        self.assertEqual(self.state(s, job_id), "leased")
        wait_for(lambda: self.state(s, job_id) == "queued", timeout=30, what="requeue")
        # a live worker then does the job: second attempt
        w = self.worker(s, "w")
        self.assertEqual(w.wait(), 0, w.text())
        self.assert_done_with_metrics(s, job_id, 1)
        self.assertEqual(self.job(s, job_id)["attempts"], 2)
        # the ghost's late completion is refused and stores nothing
        r = s.post("/api/v1/jobs/%d/complete" % job_id,
                   {"machine_id": ghost, "status": "run-failed", "results": [],
                    "log_tail": "late"}, scope="worker")
        self.assertEqual(r.status, 409, r)
        self.assertEqual(r.json()["error"]["code"], "lease_lost")
        r = s.post("/api/v1/jobs/%d/heartbeat" % job_id,
                   {"machine_id": ghost, "phase": "run", "progress": 0.5, "message": ""},
                   scope="worker")
        self.assertEqual(r.status, 409, r)
        j = self.job(s, job_id)
        self.assertEqual((j["state"], j["outcome"]), ("done", "ok"), j)

    # -- heartbeats keep a lease alive through a run longer than it -------
    def test_heartbeats_keep_lease(self):
        # lease 3 s, case 7 s: only heartbeats during "run" keep the job; the
        # worker is asked for 60 s periods and caps them at half the lease
        s = self.server("--lease-timeout", "3")
        job_id = self.submit(s, runtime="7", repeat=1)
        w = self.worker(s, "w", "--heartbeat", "60", "--heartbeat-run", "60")
        self.assertEqual(w.wait(), 0, w.text())
        self.assertIn("over half the server's lease timeout", w.text())
        self.assert_done_with_metrics(s, job_id, 1)
        j = self.job(s, job_id)
        self.assertEqual(j["attempts"], 1, j)
        self.assertNotIn("lease-expired", [p["phase"] for p in j["phase_history"]], j)

    # -- the worker loses its lease --------------------------------------
    def test_lost_lease_409(self):
        # while the case measures (6 s), the lease is made to expire as if
        # heartbeats had been lost; the server requeues the job and the
        # worker's next heartbeat or its completion gets 409
        s = self.server()
        job_id = self.submit(s, runtime="6", repeat=1)
        w = self.worker(s, "w", "--heartbeat", "2", "--heartbeat-run", "2")
        wait_for(lambda: self.state(s, job_id) == "leased", what="lease")
        s.psql("UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE id = %d"
               % job_id)
        wait_for(lambda: self.state(s, job_id) == "queued", timeout=60, what="requeue")
        rc = w.wait()
        self.assertEqual(rc, 1, w.text())
        self.assertIn("lease lost", w.text())
        # nothing stored for it; the completion is kept aside, not re-sent
        n = s.psql("SELECT count(*) FROM runs WHERE job_id = %d" % job_id)
        self.assertEqual(int(n), 0)
        self.assertEqual(glob.glob(os.path.join(self.tmp, "w", "spool", "*.json")), [])
        kept = glob.glob(os.path.join(self.tmp, "w", "spool", "dropped", "*.json"))
        self.assertEqual(len(kept), 1, w.text())
        with open(kept[0]) as f:
            entry = json.load(f)
        self.assertEqual(entry["job_id"], job_id)
        self.assertEqual(len(entry["body"]["results"]), 1)
        self.assertEqual(self.state(s, job_id), "queued")
        hist = [p["phase"] for p in self.job(s, job_id)["phase_history"]]
        self.assertIn("lease-expired", hist)

    # -- a lease reply lost by a gateway: asked for again by the same id ---
    def test_lease_reply_lost_by_gateway(self):
        # a lease that outlives the test: only a repeated request brings the job back
        s = self.server("--lease-timeout", "900")
        job_id = self.submit(s, repeat=1)
        gw = LossyGateway(s)
        try:
            w = self.worker(gw, "w")
            rc = w.wait(240)
        finally:
            gw.stop()
        self.assertEqual(rc, 0, w.text())
        self.assertEqual(len(gw.dropped), 1, gw.dropped)
        self.assertEqual(gw.dropped[0][0], job_id)
        self.assertIn("lease: HTTP status 502", w.text())
        self.assert_done_with_metrics(s, job_id, 1)
        j = self.job(s, job_id)
        self.assertEqual(j["attempts"], 1, j)
        # the job was leased once, and handed over again under the same request id
        self.assertEqual([p["phase"] for p in j["phase_history"]].count("leased"), 1, j)
        self.assertEqual(s.psql("SELECT lease_request FROM jobs WHERE id = %d" % job_id),
                         gw.dropped[0][1])

    # -- spool while the server is down ----------------------------------
    def test_spooled_while_down_arrives_once(self):
        s = self.server()
        job_id = self.submit(s, runtime="3", repeat=1)
        w = self.worker(s, "w")
        wait_for(lambda: self.state(s, job_id) == "leased", what="lease")
        port = int(s.addr.rsplit(":", 1)[1])
        s.stop()
        # the worker finishes the case, spools the completion, cannot send it
        wait_for(lambda: "will retry" in w.text(), timeout=120, what="upload retry")
        spooled = glob.glob(os.path.join(self.tmp, "w", "spool", "*.json"))
        self.assertEqual(len(spooled), 1)
        with open(spooled[0]) as f:
            entry = json.load(f)
        self.assertEqual(entry["job_id"], job_id)
        self.assertEqual(entry["body"]["status"], "ok")
        run_id = entry["body"]["results"][0]["run_id"]
        # stop the worker while the server is still down: the entry stays
        self.assertEqual(w.stop(), 1, w.text())
        self.assertEqual(glob.glob(os.path.join(self.tmp, "w", "spool", "*.json")), spooled)
        # server back; a restarted worker sends what is left first
        s.start(port)
        w2 = self.worker(s, "w")
        self.assertEqual(w2.wait(), 0, w2.text())
        self.assertEqual(glob.glob(os.path.join(self.tmp, "w", "spool", "*.json")), [])
        self.assert_done_with_metrics(s, job_id, 1)
        self.assertEqual(self.run_ids(s, job_id), [run_id])

    # -- --once gives up on an unreachable server, keeps the spool --------
    def test_once_gives_up_when_server_unreachable(self):
        # nothing listens on port 1; --retry-max 1 (Worker's): a step is
        # retried for 1 s, then the worker exits 1
        nowhere = types.SimpleNamespace(url="http://127.0.0.1:1", tokens={"worker": "x"})
        w = Worker(nowhere, os.path.join(self.tmp, "fresh"), self.tbox)
        self.workers.append(w)
        self.assertEqual(w.wait(60), 1, w.text())
        self.assertIn("register at 'http://127.0.0.1:1': giving up after", w.text())
        self.assertNotIn("registered at", w.text())
        # a completion left by an earlier run is not discarded on giving up
        spool = os.path.join(self.tmp, "old", "spool")
        os.makedirs(spool)
        entry = {"kind": "complete", "job_id": 7, "path": "/api/v1/jobs/7/complete",
                 "body": {"machine_id": 1, "status": "run-failed", "results": [],
                          "log_tail": "kept"},
                 "spooled_at": "2026-11-30T00:00:00Z"}
        name = os.path.join(spool, "0000000000000000001-1-0.json")
        with open(name, "w") as f:
            json.dump(entry, f)
        w = Worker(nowhere, os.path.join(self.tmp, "old"), self.tbox)
        self.workers.append(w)
        self.assertEqual(w.wait(60), 1, w.text())
        self.assertIn("sending the spool: giving up after", w.text())
        self.assertIn("1 completion(s) left in", w.text())
        self.assertEqual(glob.glob(os.path.join(spool, "*.json")), [name])
        with open(name) as f:
            self.assertEqual(json.load(f), entry)

    # -- the cases registered; each run of repeat 6 logged and recorded
    def test_registers_its_cases_and_the_server_checks_jobs(self):
        s = self.server()
        w = self.worker(s, "w")
        self.assertEqual(w.wait(), 0, w.text())
        m = [m for m in s.get("/api/v1/machines", scope="read").json()
             if m["tbox_group"] == self.tbox]
        cases = m[0]["cases"]
        self.assertEqual(sorted(cases), ["execl", "exit-teardown", "fio", "hackbench",
                                         "page-fault", "perf-bench", "proc-vs-map",
                                         "small-allocs", "stress-ng", "sysbench"],
                         cases)
        self.assertEqual(cases["small-allocs"]["nr_task"]["type"], "tasks", cases)
        self.assertEqual(cases["small-allocs"]["source"]["choices"], "devzero|anon", cases)
        # a tool case registers like the others
        self.assertIn("|mmap|", cases["stress-ng"]["stressor"]["choices"], cases)
        self.assertEqual(cases["stress-ng"]["timeout"]["type"], "duration", cases)
        self.assertIn("10 case(s)", w.text())
        self.assertIn("|sched-pipe|", cases["perf-bench"]["bench"]["choices"], cases)
        r = s.post("/api/v1/jobs", {
            "commit": COMMIT, "kconfig": "host", "testcase": "stress-ng",
            "params": {"stressor": "nosuch"}, "tbox_group": self.tbox}, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "params.stressor"), r)
        r = s.post("/api/v1/jobs", {
            "commit": COMMIT, "kconfig": "host", "testcase": "perf-bench",
            "params": {"bench": "numa-mem"}, "tbox_group": self.tbox}, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "params.bench"), r)
        r = s.post("/api/v1/jobs", {
            "commit": COMMIT, "kconfig": "host", "testcase": "small-allocs",
            "params": {"nr_tasks": "1"}, "tbox_group": self.tbox}, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "params.nr_tasks"), r)
        r = s.post("/api/v1/jobs", {
            "commit": COMMIT, "kconfig": "host", "testcase": "nosuchcase",
            "tbox_group": self.tbox}, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "testcase"), r)

    def test_repeat_6_logs_and_records_each_run_and_the_kernel(self):
        s = self.server()
        job_id = self.submit(s, runtime="0.05", repeat=6)
        w = self.worker(s, "w")
        self.assertEqual(w.wait(), 0, w.text())
        self.assert_done_with_metrics(s, job_id, 6)
        text = w.text()
        for i in range(1, 7):
            self.assertIn("host run %d/6 of small-allocs" % i, text)
        j = self.job(s, job_id)
        runs = [p for p in j["phase_history"] if p["phase"] == "run"]
        self.assertEqual([p["message"] for p in runs],
                         ["host run %d/6 of small-allocs" % i for i in range(1, 7)], j)
        # each run records the kernel it ran on; one task: no .median
        with open("/proc/version") as f:
            version = f.read().strip()
        for run_id in j["runs"]:
            run = s.get("/api/v1/runs/" + run_id, scope="read").json()
            self.assertEqual(run["extra"]["host_kernel"]["release"], os.uname().release, run)
            self.assertEqual(run["extra"]["host_kernel"]["version"], version, run)
            self.assertNotIn("small-allocs.median", run["metrics"], run)
        # the job says gcc-12; a kernel built by another compiler is a warning in its log
        cc = run["extra"]["host_kernel"]["compiler"]
        if cc and cc != "gcc-12":
            self.assertIn("regtrack-worker: warning: the running kernel was built with %s, "
                          "not the job's gcc-12" % cc, j["log_tail"])
            self.assertIn("warning: the running kernel was built with", text)

    # -- keep_logs: the newest N run logs stay, the rest are deleted --
    def test_keep_logs_keeps_the_newest_n(self):
        s = self.server()
        ids = [self.submit(s, runtime="0.05", repeat=2) for _ in range(4)]
        w = self.worker(s, "w", "--keep-logs", "3", once=False)
        wait_for(lambda: all(self.state(s, i) == "done" for i in ids), timeout=240,
                 what="4 jobs done")
        w.proc.send_signal(signal.SIGTERM)
        self.assertEqual(w.wait(60), 0, w.text())
        logs = sorted(os.listdir(os.path.join(self.tmp, "w", "run", "host")))
        logs = [n for n in logs if n.endswith(".log")]
        # 8 runs made 8 logs; the newest 3 by job, then run, are kept
        self.assertEqual(logs, ["run-%d-1.log" % ids[2], "run-%d-2.log" % ids[2],
                                "run-%d-1.log" % ids[3], "run-%d-2.log" % ids[3]][1:],
                         w.text())
        with open(os.path.join(self.tmp, "w", "run", "host", logs[-1])) as f:
            text = f.read()
        self.assertIn("/small-allocs\n", text)
        self.assertIn("regtrack: case ended: ", text)

    # -- a job the worker cannot run: run-failed with the reason ----------
    def test_unknown_case_is_run_failed_with_reason(self):
        s = self.server()
        r = s.post("/api/v1/jobs", {
            "commit": COMMIT, "kconfig": "host", "testcase": "nosuchcase",
            "tbox_group": self.tbox, "repeat": 2}, scope="submit")
        self.assertEqual(r.status, 201, r)
        job_id = r.json()["id"]
        w = self.worker(s, "w")
        self.assertEqual(w.wait(), 0, w.text())
        j = self.job(s, job_id)
        self.assertEqual((j["state"], j["outcome"], j["attempts"]), ("done", "run-failed", 1), j)
        self.assertIn("regtrack-worker: invalid_job: no case binary", j["log_tail"])
        self.assertIn("/nosuchcase'", j["log_tail"])
        self.assertEqual(self.run_ids(s, job_id), [])
        # delivered, not set aside
        self.assertEqual(glob.glob(os.path.join(self.tmp, "w", "spool", "*", "*.json")), [])

    # -- a completion the server refuses: the job ends with the reason -----
    def test_refused_completion_ends_job_with_reason(self):
        # a spooled completion the server refuses for good (400: "ok" without
        # results, as an older worker sent): it is set aside, and the job is
        # completed as run-failed saying why instead of waiting out its lease
        s = self.server()
        job_id = self.submit(s, repeat=1)
        with open("/proc/sys/kernel/hostname") as f:
            host = f.read().strip()
        r = s.post("/api/v1/workers/register", {
            "hostname": host, "arch": os.uname().machine, "tbox_group": self.tbox,
            "capabilities": ["host"], "fingerprint": {}}, scope="worker")
        self.assertEqual(r.status, 200, r)
        machine = r.json()["machine_id"]
        r = s.post("/api/v1/jobs/lease", {"machine_id": machine, "wait_s": 0}, scope="worker")
        self.assertEqual((r.status, r.json()["job"]["id"]), (200, job_id), r)
        spool = os.path.join(self.tmp, "w", "spool")
        os.makedirs(spool)
        entry = {"kind": "complete", "job_id": job_id,
                 "path": "/api/v1/jobs/%d/complete" % job_id,
                 "body": {"machine_id": machine, "status": "ok", "results": [],
                          "log_tail": "the case said hello\n"},
                 "spooled_at": "2026-11-30T00:00:00Z"}
        name = "0000000000000000001-1-0.json"
        with open(os.path.join(spool, name), "w") as f:
            json.dump(entry, f)
        w = self.worker(s, "w")
        self.assertEqual(w.wait(), 0, w.text())
        j = self.job(s, job_id)
        self.assertEqual((j["state"], j["outcome"], j["attempts"]), ("done", "run-failed", 1), j)
        self.assertTrue(j["log_tail"].startswith("the case said hello\n"), j)
        self.assertIn("regtrack-worker: the server refused the completion (status ok, 0 result(s)): "
                      "HTTP 400 invalid_field: /api/v1/jobs/%d/complete: status ok needs at least "
                      "one result document at results" % job_id, j["log_tail"])
        self.assertIn("spool/rejected/" + name, j["log_tail"])
        # the refused copy is kept as it was; nothing else is left or set aside
        with open(os.path.join(spool, "rejected", name)) as f:
            self.assertEqual(json.load(f), entry)
        self.assertEqual(glob.glob(os.path.join(spool, "*.json")), [])
        self.assertEqual(glob.glob(os.path.join(spool, "*", "*.json")),
                         [os.path.join(spool, "rejected", name)])

    # -- a server restarted with a smaller lease timeout -------------------
    def test_smaller_lease_timeout_after_restart(self):
        # registered under a 60 s lease: run heartbeats every 30 s (60 asked,
        # capped at half); the server comes back with 3 s, and a 7 s case
        # must keep its lease on the first attempt
        s = self.server("--lease-timeout", "60")
        w = self.worker(s, "w", "--heartbeat", "60", "--heartbeat-run", "60", once=False)
        wait_for(lambda: "registered at" in w.text(), what="register")
        s.extra_args = ["--lease-timeout", "3"]
        s.restart()
        job_id = self.submit(s, runtime="7", repeat=1)
        wait_for(lambda: self.state(s, job_id) in ("done", "failed"), timeout=180,
                 what="job end")
        self.assertEqual(w.stop(), 0, w.text())
        self.assert_done_with_metrics(s, job_id, 1)
        j = self.job(s, job_id)
        self.assertEqual(j["attempts"], 1, j)
        self.assertNotIn("lease-expired", [p["phase"] for p in j["phase_history"]], j)
        self.assertNotIn("lease lost", w.text())
        self.assertIn("lease timeout is now 3 s (was 60 s, told by the lease reply)", w.text())

    def test_smaller_lease_timeout_told_by_heartbeat(self):
        # the server restarts with a 6 s lease while a 24 s case measures
        # under a lease taken with 60 s and run heartbeats every 10 s: the
        # first heartbeat after the restart says 6 s, and the next ones come
        # every 3 s (not 10 s, which would let the lease lapse)
        s = self.server("--lease-timeout", "60")
        job_id = self.submit(s, runtime="24", repeat=1)
        w = self.worker(s, "w", "--heartbeat", "10", "--heartbeat-run", "10")
        wait_for(lambda: "phase run" in w.text(), what="run phase")
        s.extra_args = ["--lease-timeout", "6"]
        s.restart()
        self.assertEqual(w.wait(), 0, w.text())
        self.assert_done_with_metrics(s, job_id, 1)
        j = self.job(s, job_id)
        self.assertEqual(j["attempts"], 1, j)
        self.assertNotIn("lease-expired", [p["phase"] for p in j["phase_history"]], j)
        self.assertIn("lease timeout is now 6 s (was 60 s, told by the heartbeat reply)", w.text())

    # -- kill -9 mid-job, restart on the same work dir: the job comes back --
    def test_killed_worker_restart_gets_its_job_back(self):
        # a lease that outlives the test: only the hand-back brings the job back
        s = self.server("--lease-timeout", "900")
        job_id = self.submit(s, runtime="4", repeat=1)
        w = self.worker(s, "w", once=False)
        wait_for(lambda: "phase run" in w.text(), what="run phase")
        w.proc.kill()
        w.wait()
        lease_file = os.path.join(self.tmp, "w", "lease-request")
        kept = open(lease_file).read() if os.path.exists(lease_file) else None
        request = s.psql("SELECT lease_request FROM jobs WHERE id = %d" % job_id)
        # another worker of the same machine id (same host, arch, tbox_group),
        # other work dir: it does not get the job of the dead one
        other = self.worker(s, "other")
        self.assertEqual(other.wait(), 0, other.text())
        self.assertIn("no job offered", other.text())
        self.assertEqual(self.state(s, job_id), "leased")
        # the same work dir restarted: the job at once, first attempt
        w2 = self.worker(s, "w")
        self.assertEqual(w2.wait(), 0, w2.text())
        self.assert_done_with_metrics(s, job_id, 1)
        j = self.job(s, job_id)
        self.assertEqual(j["attempts"], 1, j)
        self.assertEqual([p["phase"] for p in j["phase_history"]].count("leased"), 1, j)
        # by the name the dead worker had left in its work dir, now removed
        self.assertEqual(kept, request + "\n")
        self.assertIn("a previous run left lease request " + request, w2.text())
        self.assertFalse(os.path.exists(lease_file))


if __name__ == "__main__":
    unittest.main()
